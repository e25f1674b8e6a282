-- The dispute desk's guards: disputes and incidents are never deleted; an incident never
-- changes; a dispute changes once, open -> decided, its opening untouched.
-- Loaded by tables/migrations/0003_disputes.py; listed in docs/guards.md.

CREATE OR REPLACE FUNCTION tables_dispute_decided_once() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'dispute % is never deleted', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> 'open' OR NEW.status <> 'decided' THEN
        RAISE EXCEPTION 'dispute % changes only once, from open to decided', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.hand_id, NEW.player_id, NEW.claim, NEW.opened_by_id, NEW.opened_at)
       IS DISTINCT FROM (OLD.hand_id, OLD.player_id, OLD.claim, OLD.opened_by_id, OLD.opened_at) THEN
        RAISE EXCEPTION 'dispute % cannot change its hand, patron, claim or opening', OLD.id
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS tables_dispute_decided_once ON tables_dispute;
CREATE TRIGGER tables_dispute_decided_once BEFORE UPDATE OR DELETE ON tables_dispute
    FOR EACH ROW EXECUTE FUNCTION tables_dispute_decided_once();

CREATE OR REPLACE FUNCTION tables_incident_append_only() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION 'incident % is never %', OLD.id, lower(TG_OP) USING ERRCODE = 'check_violation';
END;
$$;

DROP TRIGGER IF EXISTS tables_incident_append_only ON tables_incident;
CREATE TRIGGER tables_incident_append_only BEFORE UPDATE OR DELETE ON tables_incident
    FOR EACH ROW EXECUTE FUNCTION tables_incident_append_only();
