"""A hand's status cannot change to voided without its reversal (issue 14 "An audit trail
that needs a secret to forge").

A settled hand's posting is reversed by ``hand_void`` before the hand is marked voided
(``ledger.services.ledger_reverse``, then the hand's UPDATE, in one database
transaction): a BEFORE UPDATE trigger, fired only when the status becomes ``voided`` on a
hand with a posting, refuses the UPDATE unless a reversal of that posting exists. An open
hand (nothing posted) is voided freely.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION tables_hand_void_reversed() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction WHERE reverses_id = NEW.transaction_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'hand % cannot be voided before its posting (ledger transaction %) is reversed',
            NEW.id, NEW.transaction_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_hand_void_reversed BEFORE UPDATE OF status ON tables_hand
    FOR EACH ROW
    WHEN (NEW.status = 'voided' AND OLD.status <> 'voided' AND NEW.transaction_id IS NOT NULL)
    EXECUTE FUNCTION tables_hand_void_reversed();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS tables_hand_void_reversed ON tables_hand;
DROP FUNCTION IF EXISTS tables_hand_void_reversed();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0006_bets_guards"), ("ledger", "0005_sealed_postings")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD])]
