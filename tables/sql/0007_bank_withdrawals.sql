-- A bank withdrawal's record (tables_bankwithdrawal) is written once with its posting: never
-- changed or deleted, and only for a posting of kind 'bank_withdrawal' that debits its
-- tenure's account by its amount. Loaded by tables/migrations/0007_bank_withdrawals.py;
-- listed in docs/guards.md.
CREATE OR REPLACE FUNCTION tables_bankwithdrawal_posting() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction t
     WHERE t.id = NEW.transaction_id AND t.kind = 'bank_withdrawal'
       AND EXISTS (SELECT 1 FROM ledger_entry e JOIN tables_banktenure bt ON bt.account_id = e.account_id
                    WHERE e.transaction_id = t.id AND bt.id = NEW.tenure_id AND e.side = 'D'
                      AND e.amount = NEW.amount);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'bank withdrawal % of tenure %: transaction % does not withdraw % from its bank',
            NEW.number, NEW.tenure_id, NEW.transaction_id, NEW.amount USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_bankwithdrawal_posting ON tables_bankwithdrawal;
CREATE TRIGGER tables_bankwithdrawal_posting BEFORE INSERT ON tables_bankwithdrawal
    FOR EACH ROW EXECUTE FUNCTION tables_bankwithdrawal_posting();
DROP TRIGGER IF EXISTS tables_bankwithdrawal_append_only ON tables_bankwithdrawal;
CREATE TRIGGER tables_bankwithdrawal_append_only BEFORE DELETE OR UPDATE ON tables_bankwithdrawal
    FOR EACH ROW EXECUTE FUNCTION tables_refuse_change();
