-- A drawer names its postings (float_transaction, close_transaction): each set once, to a
-- posting of its kind whose cause names this drawer; the float's while the drawer is open,
-- the close's by the update that closes it. A drawer is still never deleted, its opening
-- never changes and a closed drawer never changes. Replaces cage_drawer_guard of
-- cage/sql/0002_guards.sql. Loaded by cage/migrations/0005_drawer_postings.py; listed in
-- docs/guards.md.
CREATE OR REPLACE FUNCTION cage_drawer_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'cage drawer %: a drawer is never deleted', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.closed_at IS NOT NULL THEN
        RAISE EXCEPTION 'cage drawer %: a closed drawer never changes', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.cashier_id <> OLD.cashier_id OR NEW.opened_at <> OLD.opened_at
       OR NEW.float_amount <> OLD.float_amount OR NEW.float_count <> OLD.float_count THEN
        RAISE EXCEPTION 'cage drawer %: its opening never changes', OLD.id USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.float_transaction_id IS DISTINCT FROM OLD.float_transaction_id THEN
        PERFORM 1 FROM ledger_transaction t
         WHERE t.id = NEW.float_transaction_id AND t.kind = 'drawer_float' AND t.cause->>'drawer' = OLD.id::text;
        IF OLD.float_transaction_id IS NOT NULL OR NOT FOUND THEN
            RAISE EXCEPTION 'cage drawer %: its float''s posting is set once, to the posting of its own float', OLD.id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    IF NEW.close_transaction_id IS DISTINCT FROM OLD.close_transaction_id THEN
        PERFORM 1 FROM ledger_transaction t
         WHERE t.id = NEW.close_transaction_id AND t.kind = 'drawer_close' AND t.cause->>'drawer' = OLD.id::text;
        IF NEW.closed_at IS NULL OR NOT FOUND THEN
            RAISE EXCEPTION 'cage drawer %: its close''s posting is named once, by its close, and is the posting of its own close', OLD.id
                USING ERRCODE = 'integrity_constraint_violation';
        END IF;
    END IF;
    RETURN NEW;
END;
$$;
