-- A monthly statement (reports.models.MonthlyStatement) is computed once and signed once:
-- never deleted; its figures written once, when it is done; its signature written once, and
-- nothing changed after. Loaded by reports/migrations/0006_monthly_statements.py; listed in
-- docs/guards.md.
CREATE OR REPLACE FUNCTION reports_statement_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'monthly statement #% is never deleted', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.id <> OLD.id OR NEW.month <> OLD.month OR NEW.version <> OLD.version
       OR NEW.requested_at <> OLD.requested_at OR NEW.requested_by_id IS DISTINCT FROM OLD.requested_by_id THEN
        RAISE EXCEPTION 'monthly statement #%: what was asked for never changes', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status IN ('done', 'failed') AND (NEW.status <> OLD.status OR NEW.figures IS DISTINCT FROM OLD.figures
       OR NEW.last_day <> OLD.last_day OR NEW.computed_at IS DISTINCT FROM OLD.computed_at
       OR NEW.error <> OLD.error OR NEW.progress <> OLD.progress OR NEW.stage <> OLD.stage) THEN
        RAISE EXCEPTION 'monthly statement #% is computed: its figures never change (ask for a new version)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.signed_by_id IS NOT NULL AND (NEW.signed_by_id IS DISTINCT FROM OLD.signed_by_id
       OR NEW.signed_at IS DISTINCT FROM OLD.signed_at OR NEW.signature <> OLD.signature OR NEW.key_id <> OLD.key_id) THEN
        RAISE EXCEPTION 'monthly statement #% is signed: its signature never changes', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS reports_statement_guard ON reports_monthlystatement;
CREATE TRIGGER reports_statement_guard BEFORE UPDATE OR DELETE ON reports_monthlystatement
    FOR EACH ROW EXECUTE FUNCTION reports_statement_guard();
