-- The patrons' guards in PostgreSQL. Loaded by patrons/migrations/0002_guards.py; listed
-- with every app's in docs/guards.md.

-- A patron's identity record never changes, and is kept until its retention ends (its day
-- + AML_RETENTION_YEARS). [EU Directive 2015/849 art. 40; Ley 10/2010 art. 25]
CREATE OR REPLACE FUNCTION patrons_kept_until_retained() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        RAISE EXCEPTION '%: an identity record never changes (record a new one)', TG_TABLE_NAME
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    IF OLD.retain_until >= current_date THEN
        RAISE EXCEPTION '%: an identity record is kept until %', TG_TABLE_NAME, OLD.retain_until
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN OLD;
END;
$$;

DROP TRIGGER IF EXISTS patrons_identityrecord_append_only ON patrons_identityrecord;
CREATE TRIGGER patrons_identityrecord_append_only BEFORE DELETE OR UPDATE ON patrons_identityrecord
    FOR EACH ROW EXECUTE FUNCTION patrons_kept_until_retained();

-- A change to a player's record is kept as it was written: never changed, never deleted.
CREATE OR REPLACE FUNCTION patrons_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the ledger is append-only; correct a mistake with a reversal',
        TG_OP, TG_TABLE_NAME USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS patrons_playerchange_append_only ON patrons_playerchange;
CREATE TRIGGER patrons_playerchange_append_only BEFORE DELETE OR UPDATE ON patrons_playerchange
    FOR EACH ROW EXECUTE FUNCTION patrons_refuse_change();
