"""Sealed postings at no extra trigger call per entry (what ``benchmarks/ledger.py``
measures): the rule of 0005 moved into the deferred check every entry already has.

- ``ledger_transaction.sealed_xact`` defaults to ``txid_current()`` (the top-level
  database transaction posting it); 0005's BEFORE INSERT trigger that set it goes. A
  value given by an INSERT only concerns that new transaction: an old transaction's seal
  cannot change (UPDATE is refused, 0002), and rows from before 0005 have none (sealed).
- ``ledger_entry_balanced`` (0002's deferred constraint trigger, fired for every entry at
  COMMIT) now refuses an entry whose transaction was not posted by the current top-level
  database transaction, instead of checking that old transaction's balance; entries of
  a transaction posted now are checked by that transaction's own deferred trigger, as
  before. 0005's BEFORE INSERT row trigger on entries goes.

So an entry added later to a posted transaction is refused at COMMIT (the whole database
transaction rolls back), by ``txid_current()``, whatever savepoints were used.
"""

from django.db import migrations

FORWARD = r"""
DROP TRIGGER IF EXISTS ledger_entry_sealed ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entry_sealed();
DROP TRIGGER IF EXISTS ledger_transaction_seal ON ledger_transaction;
DROP FUNCTION IF EXISTS ledger_transaction_seal();
ALTER TABLE ledger_transaction ALTER COLUMN sealed_xact SET DEFAULT txid_current();

CREATE OR REPLACE FUNCTION ledger_entry_balanced() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction t WHERE t.id = NEW.transaction_id AND t.sealed_xact = txid_current();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is posted and sealed: an entry cannot be added to it later; '
                        'post a new transaction (a reversal and its correction)', NEW.transaction_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;
"""

BACKWARD = r"""
CREATE OR REPLACE FUNCTION ledger_entry_balanced() RETURNS trigger AS $$
BEGIN
    -- A transaction inserted by this same top-level transaction is checked once by its
    -- own deferred trigger; an entry added to any other transaction is checked here.
    PERFORM 1 FROM ledger_transaction t
     WHERE t.id = NEW.transaction_id AND t.xmin = pg_current_xact_id()::xid;
    IF NOT FOUND THEN
        PERFORM ledger_check_transaction(NEW.transaction_id);
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

ALTER TABLE ledger_transaction ALTER COLUMN sealed_xact DROP DEFAULT;

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


class Migration(migrations.Migration):
    dependencies = [("ledger", "0005_sealed_postings")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD])]
