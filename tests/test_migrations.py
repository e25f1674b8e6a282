"""Every migration reverses on PostgreSQL: every app goes to zero and back up, its guards
(``<app>/sql/``) dropped with it and made again. The models match the migrations."""

import pytest
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
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


def test_the_models_have_no_change_without_its_migration():
    call_command("makemigrations", "--check", "--dry-run", verbosity=0)
