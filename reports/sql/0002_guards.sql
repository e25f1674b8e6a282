-- The reports' guards in PostgreSQL. Loaded by reports/migrations/0002_guards.py; listed
-- with every app's in docs/guards.md.

-- A stored report is never changed or deleted: a new run adds a version.
CREATE OR REPLACE FUNCTION reports_report_append_only() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION 'stored reports are append-only: % of report #% refused (a new run adds a version)',
        TG_OP, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS reports_report_append_only ON reports_report;
CREATE TRIGGER reports_report_append_only BEFORE DELETE OR UPDATE ON reports_report
    FOR EACH ROW EXECUTE FUNCTION reports_report_append_only();

-- An alert is never deleted; only its status changes, from open to acknowledged, with an
-- acknowledgement recorded; an acknowledgement is final.
CREATE OR REPLACE FUNCTION reports_alert_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'alert % cannot be deleted: acknowledge it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.kind, NEW.code, NEW.subject, NEW.fingerprint, NEW.table_id, NEW.shift_id, NEW.report_id, NEW.evidence,
        NEW.opened_at) IS DISTINCT FROM
       (OLD.kind, OLD.code, OLD.subject, OLD.fingerprint, OLD.table_id, OLD.shift_id, OLD.report_id, OLD.evidence,
        OLD.opened_at) THEN
        RAISE EXCEPTION 'alert %: only its status changes', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> NEW.status AND NOT (OLD.status = 'open' AND NEW.status = 'acknowledged'
            AND EXISTS (SELECT 1 FROM reports_alertchange c WHERE c.alert_id = OLD.id AND c.action = 'acknowledged')) THEN
        RAISE EXCEPTION 'alert % cannot go from % to % without an acknowledgement', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

CREATE OR REPLACE FUNCTION reports_alertchange_refuse() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION 'alert change % is final: it cannot be changed or deleted', OLD.id
        USING ERRCODE = 'check_violation';
END;
$$;

DROP TRIGGER IF EXISTS reports_alert_guard ON reports_alert;
CREATE TRIGGER reports_alert_guard BEFORE DELETE OR UPDATE ON reports_alert
    FOR EACH ROW EXECUTE FUNCTION reports_alert_guard();
DROP TRIGGER IF EXISTS reports_alertchange_refuse ON reports_alertchange;
CREATE TRIGGER reports_alertchange_refuse BEFORE DELETE OR UPDATE ON reports_alertchange
    FOR EACH ROW EXECUTE FUNCTION reports_alertchange_refuse();
