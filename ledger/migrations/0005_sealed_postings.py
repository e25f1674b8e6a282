"""Sealed postings (issue 14): PostgreSQL refuses an entry added to a transaction posted
in an earlier database transaction.

Each ledger transaction row records the top-level database transaction that inserted it
(``sealed_xact``: ``txid_current()``, set by a BEFORE INSERT trigger whatever the
INSERT says, so it cannot be forged through the application's role). A BEFORE INSERT
trigger on ``ledger_entry`` refuses an entry unless its transaction's ``sealed_xact`` is
the current top-level database transaction: a posting's entries are written with it (the
posting core writes them in the same statement), never later. ``txid_current()`` is the
top-level transaction's id, so Django's savepoints (subtransactions) do not matter.
Rows posted before this migration have no ``sealed_xact``: they are sealed too.

The column is not in the Django model: nothing in the application reads or writes it.
Someone who owns the tables can still disable the triggers: ``ledger_check`` then finds
the entries whose row was written by another database transaction than their
transaction's (``xmin``), a slip whose transaction moves another amount, and negative
chips.
"""

from django.db import migrations

FORWARD = r"""
ALTER TABLE ledger_transaction ADD COLUMN sealed_xact bigint;

CREATE FUNCTION ledger_transaction_seal() RETURNS trigger AS $$
BEGIN
    NEW.sealed_xact := txid_current();
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_transaction_seal BEFORE INSERT ON ledger_transaction
    FOR EACH ROW EXECUTE FUNCTION ledger_transaction_seal();

CREATE FUNCTION ledger_entry_sealed() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction WHERE id = NEW.transaction_id AND sealed_xact = txid_current();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is posted and sealed: an entry cannot be added to it later; '
                        'post a new transaction (a reversal and its correction)', NEW.transaction_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_entry_sealed BEFORE INSERT ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_sealed();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_entry_sealed ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entry_sealed();
DROP TRIGGER IF EXISTS ledger_transaction_seal ON ledger_transaction;
DROP FUNCTION IF EXISTS ledger_transaction_seal();
ALTER TABLE ledger_transaction DROP COLUMN IF EXISTS sealed_xact;
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0004_chips_kinds")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD])]
