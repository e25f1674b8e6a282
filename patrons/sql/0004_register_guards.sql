-- The exclusion register's guards in PostgreSQL. Loaded by
-- patrons/migrations/0004_register_guards.py; listed with every app's in docs/guards.md.

-- A load of a regulator's file, an entry of the register and a refused admission are kept
-- as they were written: never changed, never deleted (a new load supersedes, it does not
-- erase). [Ley 13/2011 art. 22; RD 1614/2011 art. 9: the register's consultations kept]
CREATE OR REPLACE FUNCTION patrons_register_append_only() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the exclusion register and its refusals are append-only',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS patrons_exclusionload_append_only ON patrons_exclusionload;
CREATE TRIGGER patrons_exclusionload_append_only BEFORE DELETE OR UPDATE ON patrons_exclusionload
    FOR EACH ROW EXECUTE FUNCTION patrons_register_append_only();

DROP TRIGGER IF EXISTS patrons_exclusionentry_append_only ON patrons_exclusionentry;
CREATE TRIGGER patrons_exclusionentry_append_only BEFORE DELETE OR UPDATE ON patrons_exclusionentry
    FOR EACH ROW EXECUTE FUNCTION patrons_register_append_only();

DROP TRIGGER IF EXISTS patrons_admissionrefusal_append_only ON patrons_admissionrefusal;
CREATE TRIGGER patrons_admissionrefusal_append_only BEFORE DELETE OR UPDATE ON patrons_admissionrefusal
    FOR EACH ROW EXECUTE FUNCTION patrons_register_append_only();
