"""Every script of benchmarks/ runs, at a tiny size, so that none rots: each in a process
of its own, as its docstring's command runs it, and must exit 0. No figure is checked
(speed is the scripts' business, benchmarks/RESULTS.md); only that they run to the end.

The scripts that need PostgreSQL make their scratch databases on the server the suite
runs on (``PGHOST``/``PGPORT``/``PGUSER`` from the test settings), each a copy of the
run's migrated template (``BENCH_TEMPLATE_DATABASE``: ``tests.conftest.template_database``,
which the test databases are copies of too): a script's own ``migrate`` would cost more
than its tiny run.
"""

import os
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT, template_database

BENCHMARKS = ROOT / "benchmarks"

#: Each script with its tiny arguments; (script, arguments, needs PostgreSQL).
RUNS = {
    "settle": ("settle.py", ["--hands", "40", "--runs", "1", "--file-hands", "40", "--rounds", "1"], False),
    "settle_memory": ("settle_memory.py", ["--hands", "40"], False),
    "ledger": ("ledger.py", ["--hands", "10", "--entries", "2000", "--pgbench-seconds", "1"], True),
    "import": ("import.py", ["--hands", "20", "--pgbench-seconds", "1", "--statements", "10"], True),
    "reports": ("reports.py", ["--hands", "60", "--seed-hands", "20", "--repeat", "1", "--no-warm-up",
                               "--theory-hands", "200"], True),
    "audit_memory": ("audit_memory.py", ["--hands", "60", "--seed-hands", "20"], True),
    "audit_incremental": ("audit_incremental.py", ["--hands", "60", "--day", "20", "--seed-hands", "20"], True),
    "review": ("review.py", ["--shifts", "1", "--hands", "20", "--repeat", "1"], True),
    "detection": ("detection.py", ["--seeds", "1", "--honest-seeds", "1", "--days", "3", "--hands", "6",
                                   "--stand-at", "8", "--pair-shares", "0.5", "--holder-sigmas", "2",
                                   "--holder-tenures", "2", "--theory-hands", "200", "--levels", "0.005,0.02"], True),
    "detection_bound": ("detection.py", ["--bound", "--hands", "6", "--pair-shares", "0.2", "--pair-rig", "natural",
                                         "--theory-hands", "300", "--levels", "0.01"], True),
    "console": ("console.py", ["--seconds", "2", "--trivial-seconds", "1", "--dealers", "2", "--rounds", "1",
                               "--workers", "1"], True),
}
#: The browser's: Chromium, one page, one hand.
BROWSER = ("console_browser.py", ["--pages", "1", "--hands", "1", "--think", "0.05", "--workers", "1"], True)


def test_every_script_is_run_here():
    scripts = {path.name for path in BENCHMARKS.glob("*.py")} - {"postgres.py", "cage.py"}  # (helpers)
    assert scripts == {script for script, _args, _db in [*RUNS.values(), BROWSER]}


def _server():
    """``(PGHOST, PGPORT, PGUSER)`` of the suite's PostgreSQL server."""
    from django.conf import settings

    database = settings.DATABASES["default"]
    return database.get("HOST") or "127.0.0.1", str(database.get("PORT") or 5432), database.get("USER") or "postgres"


@pytest.fixture(scope="session")
def bench_env(django_db_setup):
    """The environment of a benchmark's process: the suite's server, and the run's migrated
    template its scratch databases are copied from (made by ``django_db_setup`` if no
    process of the run has made it yet; dropped at the run's end)."""
    host, port, user = _server()
    if host.startswith("/"):
        pytest.skip("the benchmarks reach PostgreSQL over TCP (DATABASE_URL); the embedded server is on a socket")
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "DATABASE_URL"))}
    env.update(PGHOST=host, PGPORT=port, PGUSER=user)
    return dict(env, BENCH_TEMPLATE_DATABASE=template_database())


def run_benchmark(script, args, env):
    done = subprocess.run([sys.executable, str(BENCHMARKS / script), *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"{script} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{script} printed nothing"
    return done.stdout


@pytest.mark.parametrize("name", [name for name, (_s, _a, db) in RUNS.items() if not db])
def test_a_benchmark_without_a_database_runs(name):
    script, args, _db = RUNS[name]
    env = {key: value for key, value in os.environ.items() if not key.startswith(("DJANGO_", "DATABASE_URL"))}
    run_benchmark(script, args, env)


@pytest.mark.parametrize("name", [name for name, (_s, _a, db) in RUNS.items() if db])
def test_a_benchmark_on_postgresql_runs(name, bench_env):
    script, args, _db = RUNS[name]
    run_benchmark(script, args, bench_env)


@pytest.mark.browser
def test_the_console_benchmark_in_chromium_runs(bench_env):
    if not shutil.which("chromium") and not os.path.exists("/usr/bin/chromium"):
        pytest.fail("/usr/bin/chromium is missing: apt-get install chromium (CI installs it)")
    script, args, _db = BROWSER
    run_benchmark(script, args, bench_env)
