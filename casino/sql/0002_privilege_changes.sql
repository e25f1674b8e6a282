-- Privilege changes, recorded by PostgreSQL whoever makes them (casino.models.PrivilegeChange;
-- listed with every app's guards in docs/guards.md). Loaded by casino/migrations/0002_privilege_changes.py.
--
-- Each trigger function is SECURITY DEFINER: it runs as the owner, so it may add to
-- casino_privilegechange, which the app's role may only read (casino.dbroles.READ_ONLY): the
-- app's role cannot write a record itself (a trigger function cannot be called directly),
-- nor change or delete one (casino_privilegechange_refuse_change below; no privilege either).
-- ``session_user`` is the role that connected (the app's, the owner's, a psql user's), the
-- app's user is the transaction's ``casino.actor`` setting where the app set it (casino.privileges).

-- A user's flags: made a superuser, staff, (in)active, renamed, created with a flag, deleted.
CREATE OR REPLACE FUNCTION casino_user_flags() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
DECLARE
    was jsonb := NULL;
    now_ jsonb := NULL;
    who text;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        was := jsonb_build_object('username', OLD.username, 'is_superuser', OLD.is_superuser,
                                  'is_staff', OLD.is_staff, 'is_active', OLD.is_active);
        who := OLD.username;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        now_ := jsonb_build_object('username', NEW.username, 'is_superuser', NEW.is_superuser,
                                   'is_staff', NEW.is_staff, 'is_active', NEW.is_active);
        who := NEW.username;
    END IF;
    IF (TG_OP = 'INSERT' AND NOT (NEW.is_superuser OR NEW.is_staff)) OR (TG_OP = 'UPDATE' AND was = now_) THEN
        RETURN NULL;
    END IF;
    INSERT INTO casino_privilegechange (at, db_role, actor, table_name, operation, subject, before, after)
    VALUES (clock_timestamp(), session_user, coalesce(current_setting('casino.actor', true), ''),
            TG_TABLE_NAME, TG_OP, who, was, now_);
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS casino_user_flags ON auth_user;
CREATE TRIGGER casino_user_flags AFTER INSERT OR UPDATE OR DELETE ON auth_user
    FOR EACH ROW EXECUTE FUNCTION casino_user_flags();

-- A user put into or taken out of a group (a staff role), or given or denied a permission;
-- a group given or denied a permission (every member's).
CREATE OR REPLACE FUNCTION casino_grants() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
DECLARE
    row_ jsonb;
    granted jsonb;
    who text;
BEGIN
    row_ := to_jsonb(CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END);
    IF row_ ? 'user_id' THEN
        SELECT username INTO who FROM auth_user WHERE id = (row_->>'user_id')::int;
        who := coalesce(who, 'user #' || (row_->>'user_id'));
    ELSE
        SELECT 'group ' || name INTO who FROM auth_group WHERE id = (row_->>'group_id')::int;
        who := coalesce(who, 'group #' || (row_->>'group_id'));
    END IF;
    IF row_ ? 'permission_id' THEN
        SELECT jsonb_build_object('permission', t.app_label || '.' || p.codename) INTO granted
          FROM auth_permission p JOIN django_content_type t ON t.id = p.content_type_id
         WHERE p.id = (row_->>'permission_id')::int;
        granted := coalesce(granted, jsonb_build_object('permission', '#' || (row_->>'permission_id')));
    ELSE
        SELECT jsonb_build_object('group', name) INTO granted FROM auth_group WHERE id = (row_->>'group_id')::int;
        granted := coalesce(granted, jsonb_build_object('group', '#' || (row_->>'group_id')));
    END IF;
    IF TG_OP = 'UPDATE' THEN
        -- A grant moved to another user, group or permission: the old one is gone, the new one given.
        INSERT INTO casino_privilegechange (at, db_role, actor, table_name, operation, subject, before, after)
        VALUES (clock_timestamp(), session_user, coalesce(current_setting('casino.actor', true), ''),
                TG_TABLE_NAME, TG_OP, who, to_jsonb(OLD), to_jsonb(NEW));
    ELSE
        INSERT INTO casino_privilegechange (at, db_role, actor, table_name, operation, subject, before, after)
        VALUES (clock_timestamp(), session_user, coalesce(current_setting('casino.actor', true), ''),
                TG_TABLE_NAME, TG_OP, who,
                CASE WHEN TG_OP = 'DELETE' THEN granted END, CASE WHEN TG_OP = 'INSERT' THEN granted END);
    END IF;
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS casino_user_groups ON auth_user_groups;
CREATE TRIGGER casino_user_groups AFTER INSERT OR UPDATE OR DELETE ON auth_user_groups
    FOR EACH ROW EXECUTE FUNCTION casino_grants();
DROP TRIGGER IF EXISTS casino_user_permissions ON auth_user_user_permissions;
CREATE TRIGGER casino_user_permissions AFTER INSERT OR UPDATE OR DELETE ON auth_user_user_permissions
    FOR EACH ROW EXECUTE FUNCTION casino_grants();
DROP TRIGGER IF EXISTS casino_group_permissions ON auth_group_permissions;
CREATE TRIGGER casino_group_permissions AFTER INSERT OR UPDATE OR DELETE ON auth_group_permissions
    FOR EACH ROW EXECUTE FUNCTION casino_grants();

-- A lock-out's record deleted (django-axes' reset, its clean-up of expired attempts, or anyone's
-- DELETE), or its failures counted down.
CREATE OR REPLACE FUNCTION casino_lockout_records() RETURNS trigger
    LANGUAGE plpgsql SECURITY DEFINER SET search_path = public
AS $$
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.failures_since_start >= OLD.failures_since_start THEN
        RETURN NULL;
    END IF;
    INSERT INTO casino_privilegechange (at, db_role, actor, table_name, operation, subject, before, after)
    VALUES (clock_timestamp(), session_user, coalesce(current_setting('casino.actor', true), ''),
            TG_TABLE_NAME, TG_OP, coalesce(OLD.username, '') || ' @ ' || coalesce(host(OLD.ip_address), ''),
            jsonb_build_object('username', OLD.username, 'ip_address', host(OLD.ip_address),
                               'failures', OLD.failures_since_start, 'attempt_time', OLD.attempt_time),
            CASE WHEN TG_OP = 'UPDATE' THEN jsonb_build_object('failures', NEW.failures_since_start) END);
    RETURN NULL;
END;
$$;

DROP TRIGGER IF EXISTS casino_lockout_records ON axes_accessattempt;
CREATE TRIGGER casino_lockout_records AFTER UPDATE OR DELETE ON axes_accessattempt
    FOR EACH ROW EXECUTE FUNCTION casino_lockout_records();

-- The record itself is never changed nor deleted.
CREATE OR REPLACE FUNCTION casino_privilegechange_refuse_change() RETURNS trigger
    LANGUAGE plpgsql
AS $$
BEGIN
    RAISE EXCEPTION '% on % refused: the record of privilege changes is append-only', TG_OP, TG_TABLE_NAME
        USING ERRCODE = 'integrity_constraint_violation';
END;
$$;

DROP TRIGGER IF EXISTS casino_privilegechange_append_only ON casino_privilegechange;
CREATE TRIGGER casino_privilegechange_append_only BEFORE UPDATE OR DELETE ON casino_privilegechange
    FOR EACH ROW EXECUTE FUNCTION casino_privilegechange_refuse_change();
