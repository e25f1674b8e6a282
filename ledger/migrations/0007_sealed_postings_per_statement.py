"""Sealed postings, checked once per INSERT statement instead of once per entry.

The same rule as 0005 (an entry is refused unless its transaction was posted by the
current top-level database transaction), run as an AFTER INSERT statement-level trigger
over the statement's new entries (a transition table): a posting writes its entries in
one statement (``ledger.services.posting._write``), so the check costs one trigger call
per posting instead of one per entry (what ``benchmarks/ledger.py`` measures). An
exception raised by it aborts the INSERT as the row trigger did.
"""

from django.db import migrations

FORWARD = r"""
DROP TRIGGER IF EXISTS ledger_entry_sealed ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entry_sealed();

CREATE FUNCTION ledger_entries_sealed() RETURNS trigger AS $$
DECLARE
    late bigint;
BEGIN
    SELECT a.transaction_id INTO late
      FROM added a JOIN ledger_transaction t ON t.id = a.transaction_id
     WHERE t.sealed_xact IS DISTINCT FROM txid_current()
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is posted and sealed: an entry cannot be added to it later; '
                        'post a new transaction (a reversal and its correction)', late
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_entries_sealed AFTER INSERT ON ledger_entry
    REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_sealed();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_entries_sealed ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entries_sealed();

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


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_sealed_postings")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD])]
