-- The boxes' guards in PostgreSQL. Loaded by boxes/migrations/0002_guards.py; listed with
-- every app's in docs/guards.md.

-- A box, a buy-in or a tip at the table, a count, a variance's note, a tronc distribution
-- and its shares are never changed or deleted.
CREATE OR REPLACE FUNCTION boxes_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% rows are never changed or deleted: record a new entry instead', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END $$;

DROP TRIGGER IF EXISTS boxes_buy_in_no_change ON boxes_tablebuyin;
CREATE TRIGGER boxes_buy_in_no_change BEFORE DELETE OR UPDATE ON boxes_tablebuyin
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_count_no_change ON boxes_boxcount;
CREATE TRIGGER boxes_count_no_change BEFORE DELETE OR UPDATE ON boxes_boxcount
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_drop_box_no_change ON boxes_dropbox;
CREATE TRIGGER boxes_drop_box_no_change BEFORE DELETE OR UPDATE ON boxes_dropbox
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_note_no_change ON boxes_variancenote;
CREATE TRIGGER boxes_note_no_change BEFORE DELETE OR UPDATE ON boxes_variancenote
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_tip_no_change ON boxes_tabletip;
CREATE TRIGGER boxes_tip_no_change BEFORE DELETE OR UPDATE ON boxes_tabletip
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_tips_box_no_change ON boxes_tipsbox;
CREATE TRIGGER boxes_tips_box_no_change BEFORE DELETE OR UPDATE ON boxes_tipsbox
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_tronc_counts_no_change ON boxes_troncdistribution_counts;
CREATE TRIGGER boxes_tronc_counts_no_change BEFORE DELETE OR UPDATE ON boxes_troncdistribution_counts
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_tronc_no_change ON boxes_troncdistribution;
CREATE TRIGGER boxes_tronc_no_change BEFORE DELETE OR UPDATE ON boxes_troncdistribution
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
DROP TRIGGER IF EXISTS boxes_tronc_share_no_change ON boxes_troncshare;
CREATE TRIGGER boxes_tronc_share_no_change BEFORE DELETE OR UPDATE ON boxes_troncshare
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();

-- A buy-in or a tip is recorded only in an open session.
CREATE OR REPLACE FUNCTION boxes_buy_in_check() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM tables_shift WHERE id = NEW.shift_id AND closed_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'session % is closed: no table buy-in is recorded in it', NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

CREATE OR REPLACE FUNCTION boxes_tip_check() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM tables_shift WHERE id = NEW.shift_id AND closed_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'session % is closed: no tip is recorded in it', NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS boxes_buy_in_check ON boxes_tablebuyin;
CREATE TRIGGER boxes_buy_in_check BEFORE INSERT ON boxes_tablebuyin
    FOR EACH ROW EXECUTE FUNCTION boxes_buy_in_check();
DROP TRIGGER IF EXISTS boxes_tip_check ON boxes_tabletip;
CREATE TRIGGER boxes_tip_check BEFORE INSERT ON boxes_tabletip
    FOR EACH ROW EXECUTE FUNCTION boxes_tip_check();

-- A session's boxes are counted once it is closed, never by its dealer; a recount
-- supersedes a count of the same box of the same session; a tips count goes into one
-- tronc distribution only.
CREATE OR REPLACE FUNCTION boxes_count_check() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    s record;
    earlier record;
BEGIN
    SELECT dealer_id, closed_at INTO s FROM tables_shift WHERE id = NEW.shift_id;
    IF s.closed_at IS NULL THEN
        RAISE EXCEPTION 'session % is still open: its boxes are counted once it is closed', NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.first_counter_id = s.dealer_id OR NEW.second_counter_id = s.dealer_id THEN
        RAISE EXCEPTION 'the dealer of session % does not count its boxes', NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.supersedes_id IS NOT NULL THEN
        SELECT shift_id, box INTO earlier FROM boxes_boxcount WHERE id = NEW.supersedes_id;
        IF earlier.shift_id <> NEW.shift_id OR earlier.box <> NEW.box THEN
            RAISE EXCEPTION 'a recount supersedes a count of the same box of the same session'
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS boxes_count_check ON boxes_boxcount;
CREATE TRIGGER boxes_count_check BEFORE INSERT ON boxes_boxcount
    FOR EACH ROW EXECUTE FUNCTION boxes_count_check();
CREATE UNIQUE INDEX IF NOT EXISTS boxes_tronc_count_once ON boxes_troncdistribution_counts (boxcount_id);
