"""The PostgreSQL server the benchmarks make their scratch databases on: ``PGHOST``,
``PGPORT``, ``PGUSER`` (default 127.0.0.1:5432, postgres), reached by the command-line
tools (``createdb``, ``dropdb``, ``pgbench``) and by Django through ``database_url``."""

import os
import subprocess

HOST = os.environ.get("PGHOST", "127.0.0.1")
PORT = os.environ.get("PGPORT", "5432")
USER = os.environ.get("PGUSER", "postgres")
#: The connection options of the command-line tools.
PG = ["-h", HOST, "-p", PORT, "-U", USER]


def run(*command):
    """Run a command; its standard output (raises CalledProcessError if it fails)."""
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def database_url(name, query=""):
    """``DATABASE_URL`` of database ``name`` on the server, with an optional query
    string (``"conn_max_age=600"``)."""
    return f"postgres://{USER}@{HOST}:{PORT}/{name}" + (f"?{query}" if query else "")
