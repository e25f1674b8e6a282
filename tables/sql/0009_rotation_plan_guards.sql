-- The pits' rotation plans: a pit, each version of its plan, the version's tables and its
-- relief order are append-only (a change is a new version, attributed); a version is the
-- pit's last one + 1.
-- Loaded by tables/migrations/0009_rotation_plan_guards.py; listed in docs/guards.md.

CREATE OR REPLACE FUNCTION tables_rotation_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% rows are never % (a change of plan is a new version)', TG_TABLE_NAME, lower(TG_OP)
        USING ERRCODE = 'check_violation';
END;
$$;

CREATE OR REPLACE FUNCTION tables_rotationplan_next_version() RETURNS trigger
    LANGUAGE plpgsql
AS $$
DECLARE
    last integer;
BEGIN
    -- (an advisory lock: the app's role may not lock the append-only pit's row)
    PERFORM pg_advisory_xact_lock(hashtext('tables_rotationplan_version'), NEW.pit_id::integer);
    SELECT coalesce(max(version), 0) INTO last FROM tables_rotationplan WHERE pit_id = NEW.pit_id;
    IF NEW.version <> last + 1 THEN
        RAISE EXCEPTION 'pit %''s next plan is version %, not %', NEW.pit_id, last + 1, NEW.version
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_pit_append_only ON tables_pit;
CREATE TRIGGER tables_pit_append_only BEFORE UPDATE OR DELETE ON tables_pit
    FOR EACH ROW EXECUTE FUNCTION tables_rotation_refuse_change();
DROP TRIGGER IF EXISTS tables_rotationplan_append_only ON tables_rotationplan;
CREATE TRIGGER tables_rotationplan_append_only BEFORE UPDATE OR DELETE ON tables_rotationplan
    FOR EACH ROW EXECUTE FUNCTION tables_rotation_refuse_change();
DROP TRIGGER IF EXISTS tables_rotationplan_tables_append_only ON tables_rotationplan_tables;
CREATE TRIGGER tables_rotationplan_tables_append_only BEFORE UPDATE OR DELETE ON tables_rotationplan_tables
    FOR EACH ROW EXECUTE FUNCTION tables_rotation_refuse_change();
DROP TRIGGER IF EXISTS tables_rotationslot_append_only ON tables_rotationslot;
CREATE TRIGGER tables_rotationslot_append_only BEFORE UPDATE OR DELETE ON tables_rotationslot
    FOR EACH ROW EXECUTE FUNCTION tables_rotation_refuse_change();
DROP TRIGGER IF EXISTS tables_rotationplan_next_version ON tables_rotationplan;
CREATE TRIGGER tables_rotationplan_next_version BEFORE INSERT ON tables_rotationplan
    FOR EACH ROW EXECUTE FUNCTION tables_rotationplan_next_version();
