"""Shared fixtures, the tiers of the suite, and the embedded PostgreSQL of a run without
``DATABASE_URL``. The suite runs on PostgreSQL (casino.settings.test).

Tiers: ``make test`` runs everything, on several processes (pytest-xdist, each on its own
test database); ``make test-fast`` runs the fast tier alone (``-m fast``): the modules of
``FAST``, the engine's and the unit tests, which need no database. A test of the fast
tier that asks for the database (the ``db`` fixture or one built on it, the ``django_db``
marker, a Django ``TransactionTestCase``) fails before it starts, in every run; any other
access raises already (pytest-django blocks it in a test that did not ask for it).
"""
import contextlib
import fcntl
import json
import os
import tempfile
import time
import uuid
from decimal import Decimal
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db.utils import OperationalError
from django.test import TransactionTestCase
from hypothesis import settings as hypothesis_settings

from cage.services.slips import cashier_buy_in
from casino import localdb
from tables import services
from tests import emptying
from tests.factories import PlayerFactory, TableFactory, UserFactory, deposit_bank, open_drawer

# Hypothesis's per-example deadline (200 ms) measures the machine's load as much as the code:
# on two busy cores a PostgreSQL round trip exceeds it now and then. Examples are bounded by
# their strategies' sizes instead.
hypothesis_settings.register_profile("casino", deadline=None)
hypothesis_settings.load_profile("casino")

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"
TESTS = ROOT / "tests"

#: The fast tier (``make test-fast``, ``-m fast``): directories and modules under tests/
#: whose tests need no database. Its tests are marked ``fast``.
FAST = (
    "engine",
    "ledger/test_references.py",
    "ledger/test_shares.py",
    "reports/test_statistics.py",
    "tables/test_console_forms.py",
    "tables/test_stake_parsing.py",
    "test_compose.py",
    "test_image_files.py",
    "test_jinja_env.py",
    "test_jsontext.py",
    "test_layers.py",
)
_FAST_PATHS = tuple(TESTS / entry for entry in FAST)

#: Set by the process that runs pytest (inherited by xdist's workers): names this run in
#: ``EMBEDDED_STARTED`` when one of its processes started the embedded server.
RUN = "CASINO_TEST_RUN"
#: Written by the process of the run that started the embedded server: the run's name.
EMBEDDED_STARTED = localdb.DATA.parent / "postgres.started-by-tests"


def _in_fast_tier(path: Path) -> bool:
    return any(path == fast or fast in path.parents for fast in _FAST_PATHS)


def _controller(config) -> bool:
    """Is this the process that runs pytest (not one of xdist's workers)?"""
    return not hasattr(config, "workerinput")


def pytest_configure(config):
    missing = [entry for entry, path in zip(FAST, _FAST_PATHS, strict=True) if not path.exists()]
    if missing:
        raise pytest.UsageError(f"tests/conftest.py: FAST names what is not there: {missing}")
    if _controller(config):
        os.environ[RUN] = uuid.uuid4().hex
    emptying.install()


def pytest_unconfigure(config):
    """The run's end: the process that ran pytest stops the embedded server if a process
    of this run started it (after xdist's workers have ended and dropped their databases)."""
    if _controller(config) and os.environ.get(RUN):
        _drop_template()
        try:
            started_by = EMBEDDED_STARTED.read_text()
        except FileNotFoundError:
            return
        if started_by == os.environ[RUN]:
            localdb.stop()
            EMBEDDED_STARTED.unlink(missing_ok=True)


def pytest_ignore_collect(collection_path, config):
    """The fast tier run alone (``-m fast``) collects only its own modules."""
    if (config.getoption("markexpr") == "fast" and collection_path.is_file()
            and collection_path.name.startswith("test_") and not _in_fast_tier(collection_path)):
        return True
    return None


def pytest_collection_modifyitems(config, items):
    for item in items:
        if _in_fast_tier(Path(item.path)):
            item.add_marker(pytest.mark.fast)


def asks_for_the_database(item) -> bool:
    cls = getattr(item, "cls", None)
    return ("django_db_setup" in item.fixturenames or item.get_closest_marker("django_db") is not None
            or (cls is not None and issubclass(cls, TransactionTestCase)))


def pytest_runtest_setup(item):
    # Before the runner sets the test's fixtures up (the database's among them), after
    # the xfail marks are read (a strict xfail of tests/engine/test_pure.py checks this).
    if item.get_closest_marker("fast") is not None and asks_for_the_database(item):
        pytest.fail(f"{item.nodeid} asks for the database: the fast tier runs without one "
                    f"(FAST in tests/conftest.py)", pytrace=False)


@pytest.fixture(autouse=True)
def language_reset():
    """Each test starts in the site's language (``LANGUAGE_CODE``): a page requested with the
    language chosen in the top bar leaves that language active in the process's thread
    (``casino.middleware.TableLanguageMiddleware`` activates it per request), which the next
    test on the same worker would otherwise inherit."""
    from django.conf import settings
    from django.utils import translation

    translation.activate(settings.LANGUAGE_CODE)
    yield
    translation.activate(settings.LANGUAGE_CODE)


@pytest.fixture(autouse=True)
def seal_witness(request, tmp_path_factory):
    """A test with the database writes the seals' witness (``reports.witness``) to a
    directory of its own, so that one test's reports are never another's faults."""
    if not asks_for_the_database(request.node):
        yield None
        return
    settings = request.getfixturevalue("settings")
    settings.SEAL_WITNESS_DIR = tmp_path_factory.mktemp("witness")
    yield settings.SEAL_WITNESS_DIR


@pytest.fixture(scope="session")
def embedded_postgresql():
    """Without ``DATABASE_URL`` (the settings name the embedded server): that server,
    started for the run by the first test that needs it, whichever process of the run it
    is in (``localdb.start`` holds a lock: one starts it, the others find it running), and
    stopped at the run's end (``pytest_unconfigure``). True if the run is on it."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    if not localdb.is_embedded(database):
        return False
    if localdb.start():
        EMBEDDED_STARTED.write_text(os.environ.get(RUN, ""))
    database["HOST"] = localdb.ensure_running()  # its socket's directory (var/postgres)
    return True


def template_database() -> str:
    """The run's migrated database (``RUN``): each process's test database is a copy of it
    (``CREATE DATABASE … TEMPLATE``), and so are the benchmarks' scratch databases
    (tests/test_benchmarks.py), so that the run migrates once, not once per process."""
    return f"test_template_{os.environ[RUN][:16]}"


#: Exists once a process of the run has made ``template_database()`` (the process that ran
#: pytest drops it at the run's end: ``pytest_unconfigure``).
def _template_made() -> Path:
    return Path(tempfile.gettempdir()) / f"casino-tests-{os.environ[RUN]}.template"


@contextlib.contextmanager
def _template_lock():
    """One process of the run at a time makes the template or looks for it."""
    with open(_template_made().with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _copy_database(cursor, source: str, target: str) -> None:
    """``target`` made anew as a copy of ``source``; PostgreSQL refuses while a session is on
    ``source`` (its maker's just closed, autovacuum's): tried again for a while."""
    cursor.execute(f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
    for attempt in range(60):
        try:
            cursor.execute(f'CREATE DATABASE "{target}" WITH TEMPLATE "{source}"')
            return
        except OperationalError:
            if attempt == 59:
                raise
            time.sleep(0.5)


@pytest.fixture(scope="session")
def django_db_setup(request, django_test_environment, django_db_blocker, django_db_modify_db_settings):
    """pytest-django's, but this process's test database (``test_<name>``, ``test_<name>_gw<n>``
    on xdist's workers) is copied from the run's migrated template (``template_database``),
    which the first process to need it makes (Django's ``create_test_db``: created and migrated)."""
    from django.conf import settings
    from django.db import connections

    connection = connections["default"]
    creation = connection.creation
    original, test_name, template = connection.settings_dict["NAME"], creation._get_test_db_name(), template_database()
    with django_db_blocker.unblock():
        with _template_lock():
            if not _template_made().exists():
                saved = connection.settings_dict["TEST"].get("NAME")
                connection.settings_dict["TEST"]["NAME"] = template
                creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
                connection.close()
                connection.settings_dict["TEST"]["NAME"] = saved
                connection.settings_dict["NAME"] = settings.DATABASES["default"]["NAME"] = original
                _template_made().touch()
        with creation._nodb_cursor() as cursor:
            _copy_database(cursor, template, test_name)
        connection.close()
        connection.settings_dict["NAME"] = settings.DATABASES["default"]["NAME"] = test_name
        connection.ensure_connection()
    yield
    with django_db_blocker.unblock():
        try:
            creation.destroy_test_db(original, verbosity=0)
        except Exception as exc:  # noqa: BLE001 (pytest-django's: a warning, not an error)
            request.node.warn(pytest.PytestWarning(f"Error when trying to teardown test databases: {exc!r}"))


def _drop_template() -> None:
    """The run's template dropped, if a process of the run made it."""
    if not os.environ.get(RUN) or not _template_made().exists():
        return
    import psycopg
    from django.db import connections

    # psycopg's own connection: pytest-django blocks Django's in the process that ran pytest.
    params = connections["default"].get_connection_params()
    server = {key: params[key] for key in ("host", "port", "user", "password", "sslmode") if params.get(key)}
    try:
        with psycopg.connect(**server, dbname="postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{template_database()}" WITH (FORCE)')
    except Exception as exc:  # noqa: BLE001 (the run's outcome is the tests', not this)
        print(f"tests/conftest.py: the template {template_database()} was not dropped: {exc!r}")
    _template_made().unlink(missing_ok=True)
    _template_made().with_suffix(".lock").unlink(missing_ok=True)


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings_parallel_suffix, embedded_postgresql):
    """pytest-django's, the embedded server started first if the run is on it."""


def database_url(*, dbname, user=None, password=None, host=None, port=None) -> str:
    """A ``DATABASE_URL`` of libpq's parameters (``connection.get_connection_params()``'s):
    a TCP host as ``host:port``, a Unix socket's directory (the embedded server's) as
    ``?host=``."""
    auth = ""
    if user:
        auth = quote(user, safe="") + (":" + quote(password, safe="") if password else "") + "@"
    if host and host.startswith("/"):
        return f"postgresql://{auth}/{dbname}?host={host}" + (f"&port={port}" if port else "")
    return f"postgresql://{auth}{host or '127.0.0.1'}:{port or 5432}/{dbname}"


def redis_test_url() -> str:
    """The Redis database of the tests that use a real broker: ``REDIS_TEST_URL``, else
    db 2 of 127.0.0.1:6379 for a run on one process and db 2 + n for xdist's worker gw<n>
    (each worker its own queue: one's purge or worker never takes another's task)."""
    if os.environ.get("REDIS_TEST_URL"):
        return os.environ["REDIS_TEST_URL"]
    worker = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
    return f"redis://127.0.0.1:6379/{2 + int(worker.removeprefix('gw'))}"


@pytest.fixture
def conformance_cases():
    """(name, record, expected) for every public conformance case."""
    cases = []
    for path in sorted(CONFORMANCE.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        cases.append((path.stem, json.loads(path.read_text()), expected))
    return cases


@pytest.fixture
def staff(db):
    """The staff; the cashier ``caja1`` has his drawer open (``open_drawer``)."""
    users = {"dealer": UserFactory(username="dealer1", roles=["dealer"]),
             "supervisor": UserFactory(username="pit1", roles=["pit_supervisor"]),
             "cashier": UserFactory(username="caja1", roles=["cashier"]),
             "auditor": UserFactory(username="audit1", roles=["auditor"])}
    open_drawer(users["cashier"])
    return users


def mesa_ready(staff):
    """Mesa 1 (reglamento, 5–100): ana holds the bank with 100.00 deposited at the cage (her
    500.00 of chips untouched); luis, marta, pepe and
    rosa have 500.00 of chips each; dealer1's shift is open. Returns ``(table,
    {code: Player})`` for the ``mesa`` fixtures of the tables' and the reports' tests."""
    players = {code: PlayerFactory(code=code) for code in ("ana", "luis", "marta", "pepe", "rosa")}
    for player in players.values():
        cashier_buy_in(player=player, amount=Decimal("500.00"), posted_by=staff["cashier"])
    table = TableFactory(name="Mesa 1")
    services.table_bank_draw(table=table, holder=players["ana"], capital=Decimal("100.00"), by=staff["supervisor"])
    deposit_bank(table, staff["cashier"])  # ana deposits the bank's 100.00 at the cage
    services.shift_open(table=table, dealer=staff["dealer"], opened_by=staff["supervisor"])
    return table, players
