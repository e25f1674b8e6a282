-- An alert's bets (the digest of the bets a statistical finding tested) are written once, as
-- everything of it but its status. A later finding's (reports_alertevidence) are kept by
-- that table's guard (reports/sql/0011_alert_evidence.sql), which refuses any change.
-- Loaded by reports/migrations/0012_alert_bets.py; listed in docs/guards.md.

CREATE OR REPLACE FUNCTION reports_alert_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'alert % cannot be deleted: acknowledge it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.kind, NEW.code, NEW.subject, NEW.fingerprint, NEW.table_id, NEW.shift_id, NEW.report_id, NEW.evidence,
        NEW.opened_at, NEW."group", NEW.bets) IS DISTINCT FROM
       (OLD.kind, OLD.code, OLD.subject, OLD.fingerprint, OLD.table_id, OLD.shift_id, OLD.report_id, OLD.evidence,
        OLD.opened_at, OLD."group", OLD.bets) THEN
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
