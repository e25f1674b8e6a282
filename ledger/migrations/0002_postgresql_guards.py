"""The ledger's invariants enforced by PostgreSQL itself, whatever writes to it.

- A transaction balances (debits == credits) and has at least two entries: deferred
  constraint triggers on ledger_transaction and ledger_entry, checked at COMMIT.
- Transactions, entries, syndicate shares and cashier slips are append-only: UPDATE and
  DELETE are refused. Accounts and tenures are never deleted; an account's UPDATE may
  only change ``balance`` (kept by the posting transaction) and close it (``is_open``
  true -> false); a tenure's only change is its closing (``closed_at``, ``ended``).
- No entry is posted to a closed account.
- A tenure's syndicate shares sum to 100 percent (deferred constraint triggers).

CHECK constraints (amount > 0, ...) are in 0001. TRUNCATE is not refused (the test runner
flushes with it); in production the application's role is not granted TRUNCATE.
Pattern after django-hordak's ``check_leg`` trigger.
"""

from django.db import migrations

FORWARD = r"""
CREATE FUNCTION ledger_check_transaction(tx_id bigint) RETURNS void AS $$
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
$$ LANGUAGE plpgsql;

CREATE FUNCTION ledger_transaction_balanced() RETURNS trigger AS $$
BEGIN
    PERFORM ledger_check_transaction(NEW.id);
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE FUNCTION ledger_entry_balanced() RETURNS trigger AS $$
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

CREATE CONSTRAINT TRIGGER ledger_transaction_balanced
    AFTER INSERT ON ledger_transaction DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_transaction_balanced();

CREATE CONSTRAINT TRIGGER ledger_entry_balanced
    AFTER INSERT ON ledger_entry DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_balanced();

CREATE FUNCTION ledger_entry_account_open() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM ledger_account WHERE id = NEW.account_id AND is_open;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'ledger account % is closed: nothing more is posted to it', NEW.account_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_entry_account_open
    BEFORE INSERT ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_entry_account_open();

CREATE FUNCTION ledger_refuse_change() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the ledger is append-only; correct a mistake with a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_transaction_append_only BEFORE UPDATE OR DELETE ON ledger_transaction
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_entry_append_only BEFORE UPDATE OR DELETE ON ledger_entry
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_syndicateshare_append_only BEFORE UPDATE OR DELETE ON ledger_syndicateshare
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_cashierslip_append_only BEFORE UPDATE OR DELETE ON ledger_cashierslip
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_account_no_delete BEFORE DELETE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_banktenure_no_delete BEFORE DELETE ON ledger_banktenure
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();

CREATE FUNCTION ledger_account_update() RETURNS trigger AS $$
BEGIN
    IF NEW.id <> OLD.id OR NEW.kind <> OLD.kind
       OR NEW.player_id IS DISTINCT FROM OLD.player_id
       OR NEW.tenure_id IS DISTINCT FROM OLD.tenure_id
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
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_account_update BEFORE UPDATE ON ledger_account
    FOR EACH ROW EXECUTE FUNCTION ledger_account_update();

CREATE FUNCTION ledger_banktenure_update() RETURNS trigger AS $$
BEGIN
    IF OLD.closed_at IS NOT NULL THEN
        RAISE EXCEPTION 'bank tenure % is closed: it cannot change', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF (NEW.id, NEW.table_id, NEW.holder_id, NEW.opened_at, NEW.began, NEW.capital)
           IS DISTINCT FROM (OLD.id, OLD.table_id, OLD.holder_id, OLD.opened_at, OLD.began, OLD.capital)
       OR NEW.price IS DISTINCT FROM OLD.price
       OR NEW.seller_id IS DISTINCT FROM OLD.seller_id
       OR NEW.previous_id IS DISTINCT FROM OLD.previous_id THEN
        RAISE EXCEPTION 'bank tenure %: only its closing (closed_at, ended) may be recorded', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER ledger_banktenure_update BEFORE UPDATE ON ledger_banktenure
    FOR EACH ROW EXECUTE FUNCTION ledger_banktenure_update();

CREATE FUNCTION ledger_shares_sum() RETURNS trigger AS $$
DECLARE
    tenure bigint;
    total numeric;
BEGIN
    IF TG_TABLE_NAME = 'ledger_banktenure' THEN
        tenure := NEW.id;
    ELSE
        tenure := NEW.tenure_id;
    END IF;
    SELECT coalesce(sum(percent), 0) INTO total FROM ledger_syndicateshare WHERE tenure_id = tenure;
    IF total <> 100 THEN
        RAISE EXCEPTION 'the syndicate shares of bank tenure % sum to % percent, not 100', tenure, total
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE CONSTRAINT TRIGGER ledger_banktenure_shares
    AFTER INSERT ON ledger_banktenure DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_shares_sum();
CREATE CONSTRAINT TRIGGER ledger_syndicateshare_sum
    AFTER INSERT ON ledger_syndicateshare DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION ledger_shares_sum();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS ledger_syndicateshare_sum ON ledger_syndicateshare;
DROP TRIGGER IF EXISTS ledger_banktenure_shares ON ledger_banktenure;
DROP FUNCTION IF EXISTS ledger_shares_sum();
DROP TRIGGER IF EXISTS ledger_banktenure_update ON ledger_banktenure;
DROP FUNCTION IF EXISTS ledger_banktenure_update();
DROP TRIGGER IF EXISTS ledger_account_update ON ledger_account;
DROP FUNCTION IF EXISTS ledger_account_update();
DROP TRIGGER IF EXISTS ledger_banktenure_no_delete ON ledger_banktenure;
DROP TRIGGER IF EXISTS ledger_account_no_delete ON ledger_account;
DROP TRIGGER IF EXISTS ledger_cashierslip_append_only ON ledger_cashierslip;
DROP TRIGGER IF EXISTS ledger_syndicateshare_append_only ON ledger_syndicateshare;
DROP TRIGGER IF EXISTS ledger_entry_append_only ON ledger_entry;
DROP TRIGGER IF EXISTS ledger_transaction_append_only ON ledger_transaction;
DROP FUNCTION IF EXISTS ledger_refuse_change();
DROP TRIGGER IF EXISTS ledger_entry_account_open ON ledger_entry;
DROP FUNCTION IF EXISTS ledger_entry_account_open();
DROP TRIGGER IF EXISTS ledger_entry_balanced ON ledger_entry;
DROP TRIGGER IF EXISTS ledger_transaction_balanced ON ledger_transaction;
DROP FUNCTION IF EXISTS ledger_entry_balanced();
DROP FUNCTION IF EXISTS ledger_transaction_balanced();
DROP FUNCTION IF EXISTS ledger_check_transaction(bigint);
"""


class Migration(migrations.Migration):
    dependencies = [("ledger", "0001_initial")]
    operations = [migrations.RunSQL([FORWARD], [BACKWARD])]
