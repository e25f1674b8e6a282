-- A slip's void moves its cash through an open drawer (the slip's own while open, else the
-- voiding supervisor's or the slip's cashier's current one): never into a closed drawer,
-- whose figures never change. Loaded by cage/migrations/0003_void_drawer.py; listed in
-- docs/guards.md.
CREATE OR REPLACE FUNCTION cage_void_needs_open_drawer() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM 1 FROM cage_drawer d WHERE d.id = NEW.drawer_id AND d.closed_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'void of cashier slip %: no open drawer takes its cash (drawer %)', NEW.slip_id, NEW.drawer_id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS cage_void_needs_open_drawer ON cage_slipvoid;
CREATE TRIGGER cage_void_needs_open_drawer BEFORE INSERT ON cage_slipvoid
    FOR EACH ROW EXECUTE FUNCTION cage_void_needs_open_drawer();
