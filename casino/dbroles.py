"""Two database roles: the
**owner** owns the tables and runs the migrations; the **app** role, which web, worker and
beat connect as, owns nothing, is no superuser and holds only the grants below, so that a
stolen app connection can neither rewrite the money nor hide it: no ``UPDATE`` or
``DELETE`` of an entry, a transaction, a slip, a share, a hand's bet or event, no
``DELETE`` on any table of the money apps, no ``TRUNCATE``, no DDL (``ALTER TABLE ...
DISABLE TRIGGER`` needs the owner), no ``SET session_replication_role`` (superusers only).

``DATABASE_URL`` is the app's connection; ``MIGRATE_DATABASE_URL`` (optional) the owner's,
to the same database: ``manage.py migrate`` (``casino/management/commands/migrate.py``)
then runs as the owner and grants the app role its privileges afterwards, and
``manage.py app_role`` creates the app role (with the password of ``DATABASE_URL``) and
grants them too. Without ``MIGRATE_DATABASE_URL`` everything runs as ``DATABASE_URL``'s
role (the quick start and the tests).
"""

from django.apps import apps
from django.db import connection as default_connection
from psycopg import sql

#: Tables written once and never changed: the ledger's postings and the hands' record.
#: Their rows are guarded by triggers too (``*_refuse_change``); the app role may only add.
APPEND_ONLY = frozenset({
    "ledger_transaction", "ledger_entry", "cage_cashierslip", "tables_syndicateshare",
    "tables_handbet", "tables_handevent", "tables_bankrebuild", "tables_bankwithdrawal", "tables_incident",
    "tables_dealerrelief", "ledger_chiptransfer",
    "tables_pit", "tables_rotationplan", "tables_rotationplan_tables", "tables_rotationslot",
    "reports_witnessidentity", "reports_alertevidence",
    "patrons_exclusionload", "patrons_exclusionentry", "patrons_admissionrefusal", "patrons_dayadmission",
})
#: The apps that hold the money and its audit trail: nothing of theirs is ever deleted.
MONEY_APPS = frozenset({"patrons", "ledger", "tables", "cage", "reports"})
#: Read by the app, written by the owner only: the migrations (``migrate --check``,
#: ``showmigrations``) and the privilege changes (written by the owner's triggers).
READ_ONLY = frozenset({"django_migrations", "casino_privilegechange"})

SELECT_INSERT = ("SELECT", "INSERT")
NO_DELETE = ("SELECT", "INSERT", "UPDATE")
ALL_ROWS = ("SELECT", "INSERT", "UPDATE", "DELETE")


def table_privileges(table, app_label):
    """The privileges (a tuple of SQL keywords) the app role gets on ``table`` of the app
    ``app_label`` (None for a table no installed model maps to: read only)."""
    if table in APPEND_ONLY:
        return SELECT_INSERT
    if table in READ_ONLY or app_label is None:
        return ("SELECT",)
    if app_label in MONEY_APPS:
        return NO_DELETE
    return ALL_ROWS  # sessions, tokens, login attempts, idempotency keys, beat's schedules


def model_tables():
    """``{table name: app label}`` of every installed model (many-to-many tables included)."""
    return {model._meta.db_table: model._meta.app_label
            for model in apps.get_models(include_auto_created=True)}


def grant_app_role(cursor, role):
    """Give ``role`` exactly the privileges of ``table_privileges`` on every table of the
    ``public`` schema (any it held before revoked first) and the use of its sequences.

    ``cursor`` is the owner's (a DB-API cursor of psycopg 3). Idempotent; run after every
    migration. Raises ``ValueError`` if ``role`` is a superuser or owns a table."""
    refuse_unsafe_role(cursor, role)
    owned = model_tables()
    cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
    name = sql.Identifier(role)
    statements = [sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}").format(name),
                  sql.SQL("REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {}").format(name),
                  sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name),
                  sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(name)]
    for (table,) in cursor.fetchall():
        privileges = sql.SQL(", ").join(sql.SQL(p) for p in table_privileges(table, owned.get(table)))
        statements.append(sql.SQL("GRANT {} ON TABLE public.{} TO {}").format(privileges, sql.Identifier(table), name))
    for statement in statements:
        cursor.execute(statement.as_string(cursor.connection))


def refuse_unsafe_role(cursor, role):
    """Raise ``ValueError`` if ``role`` does not exist, is a superuser, may bypass row
    security, create roles or databases, or owns a table of the ``public`` schema."""
    cursor.execute("SELECT rolsuper, rolbypassrls, rolcreaterole, rolcreatedb FROM pg_roles WHERE rolname = %s",
                   [role])
    row = cursor.fetchone()
    if row is None:
        raise ValueError(f"the database role {role!r} does not exist (manage.py app_role creates it)")
    if any(row):
        raise ValueError(f"the app's database role {role!r} must be no superuser and may not bypass row "
                         "security, create roles or create databases")
    cursor.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = %s", [role])
    if cursor.fetchone()[0]:
        raise ValueError(f"the app's database role {role!r} owns tables: the owner must run the migrations "
                         "(MIGRATE_DATABASE_URL)")


def create_app_role(cursor, role, password=None):
    """Create the LOGIN role ``role`` (no superuser, no role or database creation, no
    replication) if it does not exist, set its password if one is given; returns True if
    it was created. ``cursor`` is a cursor of a role that may create roles."""
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    created = cursor.fetchone() is None
    name = sql.Identifier(role)
    if created:
        cursor.execute(sql.SQL("CREATE ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION "
                               "NOBYPASSRLS").format(name).as_string(cursor.connection))
    if password:
        cursor.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(name, sql.Literal(password))
                       .as_string(cursor.connection))
    return created


def app_role_name(connection=default_connection):
    """The role ``DATABASE_URL`` connects as (the app's)."""
    return connection.settings_dict["USER"]
