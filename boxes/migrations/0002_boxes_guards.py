"""PostgreSQL guards of the table's boxes: counts, buy-ins, explanations and drop boxes are
never updated or deleted; a box is counted only once its session is closed, by two people
neither of whom is the session's dealer; a buy-in goes into an open session. [issue 16]"""

from django.db import migrations

FORWARD = """
CREATE FUNCTION boxes_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% rows are never changed or deleted: record a new entry instead', TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END $$ LANGUAGE plpgsql;

CREATE TRIGGER boxes_count_no_change BEFORE UPDATE OR DELETE ON boxes_boxcount
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
CREATE TRIGGER boxes_buy_in_no_change BEFORE UPDATE OR DELETE ON boxes_tablebuyin
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
CREATE TRIGGER boxes_note_no_change BEFORE UPDATE OR DELETE ON boxes_variancenote
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();
CREATE TRIGGER boxes_drop_box_no_change BEFORE UPDATE OR DELETE ON boxes_dropbox
    FOR EACH ROW EXECUTE FUNCTION boxes_refuse_change();

CREATE FUNCTION boxes_count_check() RETURNS trigger AS $$
DECLARE
    s record;
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
    RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER boxes_count_check BEFORE INSERT ON boxes_boxcount
    FOR EACH ROW EXECUTE FUNCTION boxes_count_check();

CREATE FUNCTION boxes_buy_in_check() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM tables_shift WHERE id = NEW.shift_id AND closed_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'session % is closed: no table buy-in is recorded in it', NEW.shift_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$ LANGUAGE plpgsql;

CREATE TRIGGER boxes_buy_in_check BEFORE INSERT ON boxes_tablebuyin
    FOR EACH ROW EXECUTE FUNCTION boxes_buy_in_check();
"""

BACKWARD = """
DROP TRIGGER boxes_buy_in_check ON boxes_tablebuyin;
DROP FUNCTION boxes_buy_in_check();
DROP TRIGGER boxes_count_check ON boxes_boxcount;
DROP FUNCTION boxes_count_check();
DROP TRIGGER boxes_drop_box_no_change ON boxes_dropbox;
DROP TRIGGER boxes_note_no_change ON boxes_variancenote;
DROP TRIGGER boxes_buy_in_no_change ON boxes_tablebuyin;
DROP TRIGGER boxes_count_no_change ON boxes_boxcount;
DROP FUNCTION boxes_refuse_change();
"""


class Migration(migrations.Migration):

    dependencies = [("boxes", "0001_initial")]

    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
