"""The app connects as a role that owns nothing and is no superuser (issue 14): as that role
the raw-SQL attacks on the money are refused by PostgreSQL's privileges — an entry
updated, an event or an account deleted, a table truncated or altered, a trigger
disabled, ``session_replication_role`` set — while the app's own work (buy-ins, hands
settled and voided, a shift closed, its report, ``ledger_check``) goes through.
``manage.py migrate`` with ``MIGRATE_DATABASE_URL`` runs as the owner and grants the
app's role; ``manage.py app_role`` creates it.

The role is this test database's own (``<database>_app``), dropped at the end: roles
are shared by the server's databases."""

import os
import subprocess
import sys
from decimal import Decimal

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection
from psycopg import errors

from cage.services.slips import cashier_buy_in
from casino.dbroles import APPEND_ONLY, grant_app_role, table_privileges
from ledger.models import Entry
from ledger.selectors import ledger_faults
from reports.models import Report
from tables import services
from tables.models import Hand, HandEvent
from tests.conftest import ROOT, database_url

pytestmark = pytest.mark.django_db(transaction=True)

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def server_params(**override):
    settings = connection.settings_dict
    params = {"host": settings["HOST"] or None, "port": settings["PORT"] or None, "dbname": settings["NAME"],
              "user": settings["USER"] or None, "password": settings["PASSWORD"] or None, **override}
    return {key: value for key, value in params.items() if value is not None}


def drop_role(cursor, role):
    cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    if cursor.fetchone():
        cursor.execute(f'DROP OWNED BY "{role}"')  # its privileges in this database
        cursor.execute(f'DROP ROLE "{role}"')


@pytest.fixture
def app_role():
    """A LOGIN role granted as the app's (``casino.dbroles``); its name."""
    role = f"{connection.settings_dict['NAME']}_app"[:63]
    with connection.cursor() as cursor:
        drop_role(cursor, role)
        cursor.execute(f'CREATE ROLE "{role}" LOGIN PASSWORD \'app-role-test\'')
        grant_app_role(cursor, role)
    yield role
    connection.close()
    with connection.cursor() as cursor:
        drop_role(cursor, role)


@pytest.fixture
def as_app(app_role):
    """A psycopg connection (autocommit) to the test database as the app's role."""
    with psycopg.connect(**server_params(user=app_role, password="app-role-test"), autocommit=True) as db:
        yield db


@pytest.fixture
def mesa(staff):
    """Mesa 1 in play (``tests/tables/conftest.py``)."""
    from tests.tables.conftest import TableInPlay, mesa_ready

    table, players = mesa_ready(staff)
    return TableInPlay(table, staff["dealer"], staff["supervisor"], staff["cashier"], players)


@pytest.fixture
def played(mesa):
    """Mesa 1 with one hand played and settled (its events, bets and postings)."""
    return mesa.play(mesa.open("luis", "marta"), *P01)


ATTACKS = {
    "update an entry": "UPDATE ledger_entry SET amount = amount + 1",
    "update a transaction": "UPDATE ledger_transaction SET memo = 'x'",
    "update a slip": "UPDATE cage_cashierslip SET amount = 1",
    "update a bet": "UPDATE tables_handbet SET stake = 50",
    "update an event": "UPDATE tables_handevent SET event = '{}'",
    "delete an event": "DELETE FROM tables_handevent",
    "delete an entry": "DELETE FROM ledger_entry",
    "delete an account": "DELETE FROM ledger_account",
    "delete a hand": "DELETE FROM tables_hand",
    "delete a report": "DELETE FROM reports_report",
    "truncate the entries": "TRUNCATE ledger_entry CASCADE",
    "truncate the hands": "TRUNCATE tables_hand CASCADE",
    "alter a table": "ALTER TABLE ledger_entry ADD COLUMN forged integer",
    "disable a trigger": "ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_append_only",
    "disable all triggers": "ALTER TABLE tables_handevent DISABLE TRIGGER ALL",
    "drop a trigger": "DROP TRIGGER ledger_entry_append_only ON ledger_entry",
    "replace a trigger function": "CREATE OR REPLACE FUNCTION ledger_refuse_change() RETURNS trigger "
                                  "LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    "replica mode (triggers off)": "SET session_replication_role = replica",
    "create a table": "CREATE TABLE public.forged (id integer)",
    "become the owner": "SET ROLE postgres",
    "read the owner's files": "COPY ledger_entry TO '/tmp/entries.csv'",
}


@pytest.mark.parametrize("attack", ATTACKS)
def test_as_the_apps_role_raw_sql_attacks_are_refused(attack, played, as_app):
    with pytest.raises(errors.InsufficientPrivilege):
        as_app.execute(ATTACKS[attack])
    # Nothing changed: the hand's record and the ledger are as the app left them.
    assert HandEvent.objects.filter(hand=played).count() == len(P01)
    assert ledger_faults() == []
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM information_schema.columns WHERE table_name = 'ledger_entry' "
                       "AND column_name = 'forged'")
        assert cursor.fetchone()[0] == 0
        cursor.execute("SELECT tgenabled FROM pg_trigger WHERE tgname = 'ledger_entry_append_only'")
        assert cursor.fetchone()[0] == "O"


def test_the_apps_role_owns_nothing_and_is_no_superuser(app_role, as_app):
    row = as_app.execute("SELECT rolsuper, rolcreaterole, rolcreatedb, rolbypassrls, rolreplication "
                         "FROM pg_roles WHERE rolname = current_user").fetchone()
    assert row == (False, False, False, False, False)
    owned = as_app.execute("SELECT count(*) FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
                           "WHERE r.rolname = current_user").fetchone()[0]
    assert owned == 0
    # It can read and add entries, never change or remove them.
    privileges = as_app.execute(
        "SELECT privilege_type FROM information_schema.role_table_grants WHERE grantee = current_user "
        "AND table_name = 'ledger_entry' ORDER BY 1").fetchall()
    assert [p for (p,) in privileges] == ["INSERT", "SELECT"]


def test_the_grants_follow_the_rules_for_every_table():
    assert table_privileges("ledger_entry", "ledger") == ("SELECT", "INSERT")
    assert table_privileges("ledger_account", "ledger") == ("SELECT", "INSERT", "UPDATE")
    assert table_privileges("reports_report", "reports") == ("SELECT", "INSERT", "UPDATE")
    assert table_privileges("django_session", "sessions") == ("SELECT", "INSERT", "UPDATE", "DELETE")
    assert table_privileges("django_migrations", None) == ("SELECT",)
    assert table_privileges("somebody_elses", None) == ("SELECT",)
    assert all(table.split("_")[0] in ("patrons", "ledger", "tables", "cage", "reports") for table in APPEND_ONLY)
    assert table_privileges("patrons_admissionrefusal", "patrons") == ("SELECT", "INSERT")
    # written by the owner's triggers only (casino/sql/0002_privilege_changes.sql)
    assert table_privileges("casino_privilegechange", "casino") == ("SELECT",)


def test_a_superuser_is_refused_as_the_apps_role():
    with connection.cursor() as cursor, pytest.raises(ValueError, match="no superuser"):
        grant_app_role(cursor, connection.settings_dict["USER"] or "postgres")


def test_the_app_does_its_work_as_its_role(mesa, app_role):
    """The services as the app's role (``SET ROLE``): a buy-in, a hand played and settled,
    another voided with its reversal, the shift closed and its report computed."""
    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{app_role}"')
    try:
        cashier_buy_in(player=mesa.players["luis"], amount=Decimal("50.00"), posted_by=mesa.cashier)
        settled = mesa.play(mesa.open("luis", "marta"), *P01)
        assert settled.status == Hand.Status.SETTLED
        second = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
        services.hand_void(hand=second, reason="error del crupier", voided_by=mesa.supervisor)
        services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=mesa.supervisor)
        assert ledger_faults() == []
        assert Report.objects.filter(shift__table=mesa.table).exists()  # computed at the close
        call_command("ledger_check", stdout=open(os.devnull, "w"))
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone()[0] == app_role
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    assert Entry.objects.count() > 0


def test_migrate_runs_as_the_owner_and_grants_the_apps_role(tmp_path):
    """``manage.py app_role`` then ``migrate`` on a scratch database, as the compose file
    runs them: the owner owns every table, the app's role none, and it holds its grants."""
    name = f"{connection.settings_dict['NAME']}_roles"[:63]
    role = f"{name}_app"[:63]
    owner = server_params(dbname="postgres")
    with psycopg.connect(**owner, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        def url(user, password=""):
            return database_url(dbname=name, user=user, password=password, host=owner.get("host"),
                                port=owner.get("port"))
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.local",
               "MIGRATE_DATABASE_URL": url(owner.get("user", "postgres"), owner.get("password", "")),
               "DATABASE_URL": url(role, "app-pass-1")}
        for command in (["app_role"], ["migrate", "--noinput", "-v", "0"]):
            done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=600)
            assert done.returncode == 0, done.stdout + done.stderr
        with psycopg.connect(**{**owner, "dbname": name}, autocommit=True) as db:
            owners = {o for (o,) in db.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")}
            assert owners == {owner.get("user", "postgres")}
            grants = dict(db.execute(
                "SELECT table_name, string_agg(privilege_type, ',' ORDER BY privilege_type) FROM "
                "information_schema.role_table_grants WHERE grantee = %s GROUP BY table_name", [role]).fetchall())
        assert grants["ledger_entry"] == "INSERT,SELECT"
        assert grants["tables_handevent"] == "INSERT,SELECT"
        assert grants["ledger_account"] == "INSERT,SELECT,UPDATE"
        assert grants["django_session"] == "DELETE,INSERT,SELECT,UPDATE"
        assert grants["django_migrations"] == "SELECT"
        # The app's role logs in with DATABASE_URL's password and migrations are applied.
        with psycopg.connect(**{**owner, "dbname": name, "user": role, "password": "app-pass-1"}) as app:
            assert app.execute("SELECT count(*) FROM django_migrations").fetchone()[0] > 0
    finally:
        with psycopg.connect(**owner, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_the_register_and_the_rotation_plans_are_written_as_the_apps_role(mesa, app_role):
    """A regulator's file loaded and a pit's rotation plan set twice as the app's role,
    which may only read and insert their append-only rows (no ``SELECT ... FOR UPDATE``
    of them: an advisory lock). Found walking the shipped stack: the load answered 500."""
    from patrons.admission import exclusion_load
    from tables.models import RotationPlan
    from tests.factories import UserFactory

    compliance = UserFactory(username="cumple", roles=["compliance_officer"])
    relief = UserFactory(username="dealer2", roles=["dealer"])
    with connection.cursor() as cursor:
        cursor.execute(f'SET ROLE "{app_role}"')
    try:
        load = exclusion_load(content=b"documento\n12345678Z\n", file_name="r.csv", source="rgiaj",
                              loaded_by=compliance)
        assert load.rows == 1
        plan = services.rotation_plan_set(pit=None, name="Pit A", minutes=30, tables=[mesa.table], dealers=[relief],
                                          set_by=mesa.supervisor)
        services.rotation_plan_set(pit=plan.pit, minutes=25, tables=[mesa.table], dealers=[relief],
                                   set_by=mesa.supervisor)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")
    assert list(RotationPlan.objects.values_list("version", "minutes")) == [(2, 25), (1, 30)]
