"""The database emptied after a test with transactions (``transaction=True``, ``live_server``,
a Django ``TransactionTestCase``) by ``DELETE``, not by ``manage.py flush``'s ``TRUNCATE``.

Django's flush truncates every table of the project's models in one statement: PostgreSQL makes
a new file for each table, index and TOAST table (some 250), most of them for tables the test
left empty (benchmarks/RESULTS.md, "CI time"). Here each of the same tables
(``django_table_names``, what flush truncates) is emptied by ``DELETE`` in one transaction,
``session_replication_role = replica`` set for it so that no trigger fires (the guards that
refuse a ledger row's deletion, the foreign keys' checks: every table is emptied alike, as
TRUNCATE empties them without firing any). Then ``post_migrate`` is sent, as flush sends it.

The state afterwards is flush's: every table empty but the content types and permissions,
which ``post_migrate`` makes. Those two are kept instead of deleted and made again when they
hold exactly what ``post_migrate`` made after the last emptying (the same content types and
permissions, compared by name, not id); a test that changed them has them deleted and made
again, as flush would. When they are kept and ``post_migrate``'s only receivers are Django's
two that make them (which make only what is missing), the signal would make nothing: it is
not sent, and the content types' cache is cleared as it would clear it.

``SET session_replication_role`` needs a superuser (the suite's ``DATABASE_URL`` user on CI,
``postgres``); as another role, and for a test case with ``available_apps`` or
``serialized_rollback``, Django's own flush runs.
"""
import weakref

from django.contrib.auth.management import create_permissions
from django.contrib.contenttypes.management import create_contenttypes
from django.contrib.contenttypes.models import ContentType
from django.core.management.sql import emit_post_migrate_signal
from django.db import connections, transaction
from django.db.models.signals import post_migrate
from django.test import TransactionTestCase

#: Made by ``post_migrate`` (create_contenttypes, create_permissions), kept when unchanged.
MADE_BY_POST_MIGRATE = ("django_content_type", "auth_permission")

FINGERPRINT = """
    SELECT count(*), md5(coalesce(string_agg(concat_ws(':', ct.app_label, ct.model, p.codename, p.name), ','
                                             ORDER BY ct.app_label, ct.model, p.codename), ''))
    FROM django_content_type ct LEFT JOIN auth_permission p ON p.content_type_id = ct.id
"""

_django_fixture_teardown = TransactionTestCase._fixture_teardown
#: Per database alias: what post_migrate made after the last emptying (``FINGERPRINT``).
_made = {}
_superuser = {}


def _is_superuser(connection) -> bool:
    if connection.alias not in _superuser:
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
            _superuser[connection.alias] = bool(cursor.fetchone()[0])
    return _superuser[connection.alias]


def _fingerprint(cursor):
    cursor.execute(FINGERPRINT)
    return tuple(cursor.fetchone())


def empty(alias: str) -> None:
    """Every table of the project's models emptied, as ``flush`` leaves them."""
    connection = connections[alias]
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    quote = connection.ops.quote_name
    with transaction.atomic(using=alias), connection.cursor() as cursor:
        keep = _made.get(alias) is not None and _fingerprint(cursor) == _made[alias]
        cursor.execute("SET LOCAL session_replication_role = replica")
        for table in tables:
            if not (keep and table in MADE_BY_POST_MIGRATE):
                cursor.execute(f"DELETE FROM {quote(table)}")
    if keep and _only_djangos_receivers():
        ContentType.objects.clear_cache()
        return
    emit_post_migrate_signal(0, False, alias)
    with connection.cursor() as cursor:
        _made[alias] = _fingerprint(cursor)


def _only_djangos_receivers() -> bool:
    receivers = {receiver() if isinstance(receiver, weakref.ReferenceType) else receiver
                 for _key, receiver, *_rest in post_migrate.receivers}
    return receivers == {create_permissions, create_contenttypes}


def _fixture_teardown(self):
    if self.available_apps is not None or self.serialized_rollback:
        return _django_fixture_teardown(self)
    for alias in self._databases_names(include_mirrors=False):
        connection = connections[alias]
        if connection.vendor != "postgresql" or not _is_superuser(connection):
            return _django_fixture_teardown(self)
    for alias in self._databases_names(include_mirrors=False):
        empty(alias)
    return None


def install() -> None:
    """Django's ``TransactionTestCase`` (and pytest-django's, built on it) empties by ``empty``."""
    TransactionTestCase._fixture_teardown = _fixture_teardown
