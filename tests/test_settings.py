"""Settings read from the environment: the database's statement preparation (set in one
place, reaching every statement), persistent connections in production, and the quick
start's embedded PostgreSQL when no ``DATABASE_URL`` is given."""

import json
import os
import subprocess
import sys

import pytest
from django.db import connection

from casino import localdb
from tests.conftest import ROOT

SHOW = ("import django, json; django.setup(); from django.conf import settings; "
        "print(json.dumps({k: v for k, v in settings.DATABASES['default'].items() if k != 'TEST'}))")
URL = "postgres://postgres@127.0.0.1:5432/casino"
PRODUCTION = {"DJANGO_SETTINGS_MODULE": "casino.settings.production", "DJANGO_SECRET_KEY": "test-only-7yJ2kQ9vXw4pL8mN3bR6tZ1cF5hD0gS-aE7uY2iO9",
              "DATABASE_URL": URL, "CELERY_BROKER_URL": "redis://127.0.0.1:6379/1", "CACHE_URL": "locmemcache://",
              "DJANGO_ALLOWED_HOSTS": "casino.example",
              "CHAIN_KEY": "test-only-chain-key-3fK8sW1qZ6xV9bN2mL5pR7tY0uE4hJ"}


def database(**env):
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "casino.settings.local"}
    result = subprocess.run([sys.executable, "-c", SHOW], env={**base, **env}, cwd=ROOT, capture_output=True,
                            text=True, check=True)
    return json.loads(result.stdout)


def test_postgresql_statements_are_bound_on_the_server_and_prepared_unless_turned_off():
    assert database(DATABASE_URL=URL)["OPTIONS"] == {"server_side_binding": True, "prepare_threshold": 2}
    assert database(DATABASE_URL=URL, DATABASE_PREPARE_THRESHOLD="5")["OPTIONS"]["prepare_threshold"] == 5
    assert database(DATABASE_URL=URL, DATABASE_PREPARE_THRESHOLD="none").get("OPTIONS", {}) == {}


def test_production_keeps_its_connections_and_checks_them_before_reuse():
    shipped = database(**PRODUCTION)
    assert (shipped["CONN_MAX_AGE"], shipped["CONN_HEALTH_CHECKS"]) == (600, True)
    assert database(**PRODUCTION, DATABASE_CONN_MAX_AGE="0")["CONN_MAX_AGE"] == 0


def test_production_passes_djangos_deployment_checks():
    done = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                          env={"PATH": "/usr/bin:/bin", **PRODUCTION}, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.django_db(transaction=True)
def test_turned_off_preparing_reaches_the_ledger(settings):
    """DATABASE_PREPARE_THRESHOLD=none: no statement is prepared, the ledger's neither."""
    from decimal import Decimal

    from cage.services.slips import cashier_buy_in
    from tests.factories import PlayerFactory, UserFactory, open_drawer

    connection.close()
    options = settings.DATABASES["default"].get("OPTIONS", {})
    settings.DATABASES["default"]["OPTIONS"] = {key: value for key, value in options.items()
                                                if key not in ("server_side_binding", "prepare_threshold")}
    try:
        cashier = UserFactory(username="caja-none", roles=["cashier"])
        open_drawer(cashier)
        for _ in range(6):  # more than any threshold
            cashier_buy_in(player=PlayerFactory(), amount=Decimal("10.00"), posted_by=cashier)
        assert connection.connection.prepare_threshold is None
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_prepared_statements")
            assert cursor.fetchone()[0] == 0
    finally:
        connection.close()
        settings.DATABASES["default"]["OPTIONS"] = options


def test_without_database_url_the_quick_start_uses_the_embedded_server_and_stops_it_after(embedded_postgresql):
    # A run without DATABASE_URL is on that server: started already (embedded_postgresql), left running.
    was_running = localdb._running_info() is not None
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    done = subprocess.run([sys.executable, "manage.py", "shell", "--no-imports", "-c",
                           "from django.db import connection; connection.ensure_connection(); "
                           "print(connection.settings_dict['NAME'], connection.pg_version >= 150000)"],
                          env={**env, "DJANGO_SETTINGS_MODULE": "casino.settings.local"}, cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["casino", "True"]
    assert (localdb._running_info() is not None) == was_running  # stopped if it started it
