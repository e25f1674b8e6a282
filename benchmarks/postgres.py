"""The PostgreSQL server the benchmarks make their scratch databases on: ``PGHOST``,
``PGPORT``, ``PGUSER`` (default 127.0.0.1:5432, postgres), reached by the command-line
tools (``createdb``, ``dropdb``, ``pgbench``) and by Django through ``database_url``."""

import os
import re
import shutil
import subprocess

HOST = os.environ.get("PGHOST", "127.0.0.1")
PORT = os.environ.get("PGPORT", "5432")
USER = os.environ.get("PGUSER", "postgres")
#: The connection options of the command-line tools.
PG = ["-h", HOST, "-p", PORT, "-U", USER]
#: A migrated database on the same server to copy scratch databases from (``createdb
#: -T``), so that a benchmark does not migrate its own: ``BENCH_TEMPLATE_DATABASE``, set by
#: the benchmarks' smoke test (tests/test_benchmarks.py); unset, each benchmark migrates.
TEMPLATE = os.environ.get("BENCH_TEMPLATE_DATABASE", "")


def run(*command):
    """Run a command; its standard output (raises CalledProcessError if it fails)."""
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def create_scratch(name):
    """Create the scratch database ``name``: a copy of ``TEMPLATE`` when it is set, else an
    empty one. Returns True when it still has to be migrated (no template)."""
    run("createdb", *PG, *(("-T", TEMPLATE) if TEMPLATE else ()), name)
    return not TEMPLATE


def database_url(name, query=""):
    """``DATABASE_URL`` of database ``name`` on the server, with an optional query
    string (``"conn_max_age=600"``)."""
    return f"postgres://{USER}@{HOST}:{PORT}/{name}" + (f"?{query}" if query else "")


def pgbench_tps(seconds, label):
    """pgbench's TPS (TPC-B-like, one client) for ``seconds`` on a scratch database named
    after ``label``, made and dropped here: the baseline a benchmark prints beside its figure."""
    name = f"{label}_pgbench_{os.getpid()}"
    run("createdb", *PG, name)
    try:
        run("pgbench", *PG, "-i", "-q", name)
        out = run("pgbench", *PG, "-c", "1", "-T", str(seconds), name)
    finally:
        run("dropdb", *PG, "--if-exists", name)
    return float(re.search(r"tps = ([\d.]+)", out).group(1))


def drop_scratch(name, static_root=None):
    """Close Django's connections, drop the scratch database ``name`` and remove the
    collected static files, at a benchmark's end."""
    from django.db import connections

    connections.close_all()
    run("dropdb", *PG, "--if-exists", "--force", name)
    if static_root is not None:
        shutil.rmtree(static_root, ignore_errors=True)
