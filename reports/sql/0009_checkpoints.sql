-- An audit checkpoint (reports.models.CheckPoint) is written once, sealed, and never changed
-- nor deleted: the next incremental check starts from the latest one. Loaded by
-- reports/migrations/0009_checkpoints.py; listed in docs/guards.md.
CREATE OR REPLACE FUNCTION reports_checkpoint_refuse() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% of audit checkpoint #% refused: a checkpoint is never changed nor deleted',
        TG_OP, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS reports_checkpoint_refuse ON reports_checkpoint;
CREATE TRIGGER reports_checkpoint_refuse BEFORE DELETE OR UPDATE ON reports_checkpoint
    FOR EACH ROW EXECUTE FUNCTION reports_checkpoint_refuse();
