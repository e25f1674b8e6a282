"""The tables' invariants enforced by PostgreSQL itself, whatever writes to it.

- Hand numbers run 1, 2, 3… per table with no gaps: a hand is inserted only with the next
  number, and never deleted.
- A hand's identity never changes (table, number, tenure, bank, seats, rules, limits);
  its status only goes open -> settled, open -> voided, settled -> voided.
- HandEvent rows are append-only (no UPDATE, no DELETE) and their sequence runs 1, 2, 3…
  per hand.
``HAND_UPDATE`` is the hand's update guard as it stood here (0006 replaces it, and puts it
back when reversed).
"""

from django.db import migrations

HAND_UPDATE = r"""
CREATE OR REPLACE FUNCTION tables_hand_update() RETURNS trigger AS $$
BEGIN
    IF (NEW.table_id, NEW.number, NEW.tenure_id, NEW.bank_id, NEW.seats, NEW.rules, NEW.min_bet, NEW.max_bet)
       IS DISTINCT FROM
       (OLD.table_id, OLD.number, OLD.tenure_id, OLD.bank_id, OLD.seats, OLD.rules, OLD.min_bet, OLD.max_bet) THEN
        RAISE EXCEPTION 'hand % cannot change its table, number, bank, seats, rules or limits', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> NEW.status AND NOT (
        (OLD.status = 'open' AND NEW.status IN ('settled', 'voided'))
        OR (OLD.status = 'settled' AND NEW.status = 'voided')) THEN
        RAISE EXCEPTION 'hand % cannot go from % to %', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'open' AND (NEW.settlement IS DISTINCT FROM OLD.settlement
                                 OR NEW.transaction_id IS DISTINCT FROM OLD.transaction_id) THEN
        RAISE EXCEPTION 'hand % is %: its settlement is final', OLD.id, OLD.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

FORWARD = r"""
CREATE FUNCTION tables_hand_insert() RETURNS trigger AS $$
DECLARE
    last integer;
BEGIN
    SELECT coalesce(max(number), 0) INTO last FROM tables_hand WHERE table_id = NEW.table_id;
    IF NEW.number <> last + 1 THEN
        RAISE EXCEPTION 'hand number % at table %: the next hand is number %', NEW.number, NEW.table_id, last + 1
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_hand_insert BEFORE INSERT ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_hand_insert();

CREATE TRIGGER tables_hand_update BEFORE UPDATE ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_hand_update();

CREATE FUNCTION tables_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% rows are never % (correct a mistake with a new entry)', TG_TABLE_NAME, lower(TG_OP)
        USING ERRCODE = 'check_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_hand_no_delete BEFORE DELETE ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();
CREATE TRIGGER tables_handevent_append_only BEFORE UPDATE OR DELETE ON tables_handevent
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();

CREATE FUNCTION tables_handevent_insert() RETURNS trigger AS $$
DECLARE
    last integer;
BEGIN
    SELECT coalesce(max(sequence), 0) INTO last FROM tables_handevent WHERE hand_id = NEW.hand_id;
    IF NEW.sequence <> last + 1 THEN
        RAISE EXCEPTION 'entry % of hand %: the next entry is %', NEW.sequence, NEW.hand_id, last + 1
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_handevent_insert BEFORE INSERT ON tables_handevent
    FOR EACH ROW EXECUTE FUNCTION tables_handevent_insert();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS tables_handevent_insert ON tables_handevent;
DROP FUNCTION IF EXISTS tables_handevent_insert();
DROP TRIGGER IF EXISTS tables_handevent_append_only ON tables_handevent;
DROP TRIGGER IF EXISTS tables_hand_no_delete ON tables_hand;
DROP FUNCTION IF EXISTS tables_refuse_change();
DROP TRIGGER IF EXISTS tables_hand_update ON tables_hand;
DROP FUNCTION IF EXISTS tables_hand_update();
DROP TRIGGER IF EXISTS tables_hand_insert ON tables_hand;
DROP FUNCTION IF EXISTS tables_hand_insert();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0003_shifts_hands_events")]
    operations = [migrations.RunSQL([HAND_UPDATE, FORWARD], [BACKWARD])]
