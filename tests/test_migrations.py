"""Every migration reverses on PostgreSQL: every app goes to zero and back up, and a
trigger migration's reverse puts back the function it replaced. The models match the
migrations."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(*args):
    call_command("migrate", *args, verbosity=0, interactive=False)


def tables():
    with connection.cursor() as cursor:
        cursor.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")
        return [name for (name,) in cursor.fetchall()]


def functions():
    with connection.cursor() as cursor:
        cursor.execute("SELECT p.proname FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                       "WHERE n.nspname = 'public' ORDER BY 1")
        return [name for (name,) in cursor.fetchall()]


@pytest.fixture
def restored():
    """Whatever a test unapplied is migrated again afterwards, on a fresh connection (no
    statement prepared on the tables it dropped)."""
    yield
    connection.close()
    migrate()
    ContentType.objects.clear_cache()
    connection.close()


def test_every_app_migrates_to_zero_and_back_up(restored):
    before_tables, before_functions = tables(), functions()
    apps = sorted(MigrationExecutor(connection).loader.migrated_apps)
    for app in apps:
        migrate(app, "zero")
    assert tables() == ["django_migrations"]
    assert functions() == []  # every trigger function dropped with its migration
    migrate()
    assert (tables(), functions()) == (before_tables, before_functions)


def test_back_at_tables_0004_a_hand_is_guarded_by_0004s_own_function(restored):
    """0006 replaced the hand's update guard with one that reads 0005's counts; reversed to
    0004 (0005's columns dropped), updating a hand works and is still guarded."""
    migrate("tables", "0004")
    apps = MigrationExecutor(connection).loader.project_state(("tables", "0004_postgresql_guards")).apps
    model = apps.get_model
    with transaction.atomic():  # rolled back: the ledger's deferred checks never run
        table = model("tables", "Table").objects.create(name="Mesa 0004", min_bet=5, max_bet=100)
        ana = model("tables", "Player").objects.create(code="ana")
        tenure = model("ledger", "BankTenure").objects.create(table=table, holder=ana, began="draw", capital=100)
        hand = model("tables", "Hand").objects.create(table=table, number=1, seats=["luis"], rules={}, min_bet=5,
                                                      max_bet=100, bank=ana, tenure=tenure)
        hand.version = 1
        hand.save(update_fields=["version"])  # was: record "new" has no field "splits"
        hand.number = 2
        with pytest.raises(DatabaseError, match="cannot change its table, number"), transaction.atomic():
            hand.save(update_fields=["number"])
        transaction.set_rollback(True)


def test_the_models_have_no_change_without_its_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
