-- The ledger's guards for signed postings (ledger/migrations/0004_signed_postings.py): the
-- rule against entries added to a posted transaction rests on the number of entries it was
-- posted with (ledger_transaction.legs, signed: ledger/signing.py), not on PostgreSQL's
-- transaction ids, so that a plain pg_dump and pg_restore keeps the ledger whole.
-- Replaces ledger_entry_sealed (ledger/sql/0002_guards.sql).

DROP TRIGGER IF EXISTS ledger_entry_sealed ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entry_sealed();

-- A transaction has at least two entries, exactly as many as it was posted with, and
-- balances (checked at COMMIT).
CREATE OR REPLACE FUNCTION ledger_check_transaction(tx_id bigint) RETURNS void
    LANGUAGE plpgsql
AS $$
DECLARE
    n integer;
    posted integer;
    debits numeric;
    credits numeric;
BEGIN
    SELECT count(*),
           coalesce(sum(amount) FILTER (WHERE side = 'D'), 0),
           coalesce(sum(amount) FILTER (WHERE side = 'C'), 0)
      INTO n, debits, credits
      FROM ledger_entry WHERE transaction_id = tx_id;
    IF n < 2 THEN
        RAISE EXCEPTION 'ledger transaction % has % entries: a transaction needs at least two', tx_id, n
            USING ERRCODE = 'check_violation';
    END IF;
    IF debits <> credits THEN
        RAISE EXCEPTION 'ledger transaction % does not balance: debits % <> credits %', tx_id, debits, credits
            USING ERRCODE = 'check_violation';
    END IF;
    SELECT legs INTO posted FROM ledger_transaction WHERE id = tx_id;
    IF n <> posted THEN
        RAISE EXCEPTION 'ledger transaction % has % entries but is posted with %', tx_id, n, posted
            USING ERRCODE = 'check_violation';
    END IF;
END;
$$;

-- No statement adds an entry to a transaction beyond the number it was posted with: an
-- entry added to a posted transaction later is refused at once (a transaction's entries
-- are written by one statement: the posting's, or an import's COPY).
CREATE OR REPLACE FUNCTION ledger_entry_legs() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    tx_id bigint;
BEGIN
    SELECT t.id INTO tx_id
      FROM (SELECT DISTINCT transaction_id FROM added) a
           JOIN ledger_transaction t ON t.id = a.transaction_id
     WHERE (SELECT count(*) FROM ledger_entry e WHERE e.transaction_id = t.id) > t.legs
     LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is posted and sealed: an entry cannot be added to it later; '
                        'post a new transaction (a reversal and its correction)', tx_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS ledger_entry_legs ON ledger_entry;
CREATE TRIGGER ledger_entry_legs AFTER INSERT ON ledger_entry
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ledger_entry_legs();
