-- A run of the pooled review (reports.models.PooledReview) is asked for once and computed
-- once: never deleted; what was asked for (its day, who, when) never changes; once done,
-- nothing of it changes (a run asked for again is a new row). A run left running or failed
-- may be computed again (reports.pooling.pooled_review_run). Loaded by
-- reports/migrations/0010_pooled_review_guard.py; listed in docs/guards.md.
CREATE OR REPLACE FUNCTION reports_pooledreview_guard() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'pooled review #% is never deleted', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF NEW.id <> OLD.id OR NEW.day <> OLD.day OR NEW.created_at <> OLD.created_at
       OR NEW.requested_by_id IS DISTINCT FROM OLD.requested_by_id THEN
        RAISE EXCEPTION 'pooled review #%: what was asked for never changes', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.status = 'done' AND (NEW.status <> OLD.status OR NEW.result IS DISTINCT FROM OLD.result
       OR NEW.alerts <> OLD.alerts OR NEW.opened <> OLD.opened OR NEW.error <> OLD.error
       OR NEW.started_at IS DISTINCT FROM OLD.started_at OR NEW.finished_at IS DISTINCT FROM OLD.finished_at) THEN
        RAISE EXCEPTION 'pooled review #% is done: its result never changes (ask for a new run)', OLD.id
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END;
$$;

DROP TRIGGER IF EXISTS reports_pooledreview_guard ON reports_pooledreview;
CREATE TRIGGER reports_pooledreview_guard BEFORE UPDATE OR DELETE ON reports_pooledreview
    FOR EACH ROW EXECUTE FUNCTION reports_pooledreview_guard();
