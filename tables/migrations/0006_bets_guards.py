"""Settled bets are append-only, and a settled hand's counts are final like its settlement.

Reversed, the hand's update guard is 0004's again (it reads none of the counts 0005 adds).
"""

from importlib import import_module

from django.db import migrations

HAND_UPDATE_0004 = import_module("tables.migrations.0004_postgresql_guards").HAND_UPDATE

FORWARD = r"""
CREATE TRIGGER tables_handbet_append_only BEFORE UPDATE OR DELETE ON tables_handbet
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();

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
    IF OLD.status <> 'open' AND (NEW.settlement, NEW.transaction_id, NEW.splits, NEW.exchanges, NEW.fusilados,
                                 NEW.muertos, NEW.cards)
                                IS DISTINCT FROM
                                (OLD.settlement, OLD.transaction_id, OLD.splits, OLD.exchanges, OLD.fusilados,
                                 OLD.muertos, OLD.cards) THEN
        RAISE EXCEPTION 'hand % is %: its settlement is final', OLD.id, OLD.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS tables_handbet_append_only ON tables_handbet;
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0005_bets_and_counts")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD, HAND_UPDATE_0004])]
