-- Dealer relief within a session: the relief record is append-only, it is made only in an
-- open shift for its current dealer, and it moves the shift's current dealer; a hand's
-- dealer, once set, never changes; a new shift's current dealer is its dealer.
-- Loaded by tables/migrations/0005_dealer_relief_guards.py; listed in docs/guards.md.

CREATE OR REPLACE FUNCTION tables_dealerrelief_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION 'dealer reliefs are never % (a later relief is a new row)', lower(TG_OP)
        USING ERRCODE = 'check_violation';
END;
$$;

-- A relief of an open shift's current dealer; the shift's current dealer becomes the
-- relieving one, in the same statement (whoever writes the relief).
CREATE OR REPLACE FUNCTION tables_dealerrelief_insert() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    current_id integer;
    closed timestamptz;
BEGIN
    SELECT current_dealer_id, closed_at INTO current_id, closed
      FROM tables_shift WHERE id = NEW.shift_id FOR UPDATE;
    IF closed IS NOT NULL THEN
        RAISE EXCEPTION 'shift % is closed: no relief', NEW.shift_id USING ERRCODE = 'check_violation';
    END IF;
    IF current_id IS DISTINCT FROM NEW.relieved_id THEN
        RAISE EXCEPTION 'user % is not the current dealer of shift %', NEW.relieved_id, NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    UPDATE tables_shift SET current_dealer_id = NEW.relieving_id WHERE id = NEW.shift_id;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_dealerrelief_append_only ON tables_dealerrelief;
CREATE TRIGGER tables_dealerrelief_append_only BEFORE UPDATE OR DELETE ON tables_dealerrelief
    FOR EACH ROW EXECUTE FUNCTION tables_dealerrelief_refuse_change();
DROP TRIGGER IF EXISTS tables_dealerrelief_insert ON tables_dealerrelief;
CREATE TRIGGER tables_dealerrelief_insert BEFORE INSERT ON tables_dealerrelief
    FOR EACH ROW EXECUTE FUNCTION tables_dealerrelief_insert();

-- A shift's current dealer: its dealer at the opening; later only what a relief sets
-- (the last relief's relieving dealer).
CREATE OR REPLACE FUNCTION tables_shift_current_dealer() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.current_dealer_id IS DISTINCT FROM NEW.dealer_id THEN
            RAISE EXCEPTION 'a new shift''s current dealer is its dealer' USING ERRCODE = 'check_violation';
        END IF;
    ELSIF NEW.current_dealer_id IS DISTINCT FROM OLD.current_dealer_id AND pg_trigger_depth() < 2 THEN
        -- (a relief's insert trigger, one level down, is the only writer of the column)
        RAISE EXCEPTION 'shift %''s current dealer changes only by a relief', OLD.id
            USING ERRCODE = 'check_violation';
    ELSIF NEW.dealer_id IS DISTINCT FROM OLD.dealer_id THEN
        RAISE EXCEPTION 'shift %''s dealer never changes (relieve him instead)', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_shift_current_dealer ON tables_shift;
CREATE TRIGGER tables_shift_current_dealer BEFORE INSERT OR UPDATE ON tables_shift
    FOR EACH ROW EXECUTE FUNCTION tables_shift_current_dealer();

-- A hand's dealer, once set, never changes.
CREATE OR REPLACE FUNCTION tables_hand_dealer_fixed() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF OLD.dealer_id IS NOT NULL AND NEW.dealer_id IS DISTINCT FROM OLD.dealer_id THEN
        RAISE EXCEPTION 'hand % was dealt by user %: its dealer never changes', OLD.id, OLD.dealer_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_hand_dealer_fixed ON tables_hand;
CREATE TRIGGER tables_hand_dealer_fixed BEFORE UPDATE OF dealer_id ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_hand_dealer_fixed();
