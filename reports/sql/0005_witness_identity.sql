-- The witness identity (reports.models.WitnessIdentity) is written once and never changed:
-- rewritten, this database would read another witness file. Loaded by
-- reports/migrations/0005_witness_identity.py; listed in docs/guards.md.
CREATE OR REPLACE FUNCTION reports_witnessidentity_refuse() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% of the witness identity refused: it names this database''s witness of seals for good',
        TG_OP USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS reports_witnessidentity_refuse ON reports_witnessidentity;
CREATE TRIGGER reports_witnessidentity_refuse BEFORE DELETE OR UPDATE ON reports_witnessidentity
    FOR EACH ROW EXECUTE FUNCTION reports_witnessidentity_refuse();
