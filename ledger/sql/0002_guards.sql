-- The ledger's guards in PostgreSQL: what the app's code keeps, the database keeps too.
-- Loaded by ledger/migrations/0002_guards.py; listed with every app's in docs/guards.md.

-- An account is never deleted; only its balance changes, and a closed account stays closed.
CREATE OR REPLACE FUNCTION ledger_account_update() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind
       OR NEW.player_id IS DISTINCT FROM OLD.player_id
       OR NEW.created_at <> OLD.created_at THEN
        RAISE EXCEPTION 'ledger account %: only its balance may change, and it may be closed', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.is_open AND NOT OLD.is_open THEN
        RAISE EXCEPTION 'ledger account % is closed for good', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the ledger is append-only; correct a mistake with a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS ledger_account_no_delete ON ledger_account;
CREATE TRIGGER ledger_account_no_delete BEFORE DELETE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_account_update ON ledger_account;
CREATE TRIGGER ledger_account_update BEFORE UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_update();

-- A transaction and its entries are posted once: never changed, never deleted.
DROP TRIGGER IF EXISTS ledger_transaction_append_only ON ledger_transaction;
CREATE TRIGGER ledger_transaction_append_only BEFORE DELETE OR UPDATE ON ledger_transaction
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_entry;
CREATE TRIGGER ledger_entry_append_only BEFORE DELETE OR UPDATE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

-- A transaction has at least two entries and balances (checked at COMMIT).
CREATE OR REPLACE FUNCTION ledger_check_transaction(tx_id bigint) RETURNS void
    LANGUAGE plpgsql
AS $$
DECLARE
    n integer;
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
END;
$$;

CREATE OR REPLACE FUNCTION ledger_transaction_balanced() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM ledger_check_transaction(NEW.id);
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS ledger_transaction_balanced ON ledger_transaction;
CREATE CONSTRAINT TRIGGER ledger_transaction_balanced AFTER INSERT ON ledger_transaction
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced();

-- An entry goes only to an open account.
CREATE OR REPLACE FUNCTION ledger_entry_account_open() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = NEW.account_id AND is_open;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger account % is closed: nothing more is posted to it', NEW.account_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS ledger_entry_account_open ON ledger_entry;
CREATE TRIGGER ledger_entry_account_open BEFORE INSERT ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_account_open();

-- An entry is written by the database transaction that posted its transaction
-- (ledger_transaction.sealed_xact): none is added to a posted transaction later.
CREATE OR REPLACE FUNCTION ledger_entry_sealed() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction t WHERE t.id = NEW.transaction_id AND t.sealed_xact = txid_current();
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger transaction % is posted and sealed: an entry cannot be added to it later; '
                        'post a new transaction (a reversal and its correction)', NEW.transaction_id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS ledger_entry_sealed ON ledger_entry;
CREATE CONSTRAINT TRIGGER ledger_entry_sealed AFTER INSERT ON ledger_entry
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION ledger_entry_sealed();
