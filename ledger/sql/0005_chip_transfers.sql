-- A chip transfer's record (ledger_chiptransfer) is written once with its posting: never
-- changed or deleted, and only for a posting of kind 'transfer' that moves its amount from
-- the giver's chips to the receiver's. Loaded by ledger/migrations/0005_chip_transfers.py;
-- listed in docs/guards.md.
CREATE OR REPLACE FUNCTION ledger_chiptransfer_posting() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM ledger_transaction t
     WHERE t.id = NEW.transaction_id AND t.kind = 'transfer'
       AND EXISTS (SELECT 1 FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id
                    WHERE e.transaction_id = t.id AND a.player_id = NEW.giver_id AND e.side = 'D'
                      AND e.amount = NEW.amount)
       AND EXISTS (SELECT 1 FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id
                    WHERE e.transaction_id = t.id AND a.player_id = NEW.receiver_id AND e.side = 'C'
                      AND e.amount = NEW.amount);
    IF NOT FOUND THEN
        RAISE EXCEPTION 'chip transfer of transaction %: not a transfer of % from player % to player %',
            NEW.transaction_id, NEW.amount, NEW.giver_id, NEW.receiver_id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS ledger_chiptransfer_posting ON ledger_chiptransfer;
CREATE TRIGGER ledger_chiptransfer_posting BEFORE INSERT ON ledger_chiptransfer
    FOR EACH ROW EXECUTE FUNCTION ledger_chiptransfer_posting();
DROP TRIGGER IF EXISTS ledger_chiptransfer_append_only ON ledger_chiptransfer;
CREATE TRIGGER ledger_chiptransfer_append_only BEFORE DELETE OR UPDATE ON ledger_chiptransfer
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
