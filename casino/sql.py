"""The apps' PostgreSQL guards, kept as ``.sql`` files in each app's ``sql/`` directory and
run by its migrations (``run_sql_file``), so that a guard is read whole where its app is.

A file is the migration's: ``<app>/sql/<migration name>.sql``. A later change to a guard
is a new file of a new migration (``CREATE OR REPLACE FUNCTION``), whose reverse runs the
file it replaced; a file already applied somewhere is never edited. ``docs/guards.md``
lists the guards as they stand (``tests/test_guards.py`` keeps it true).
"""

import re
from pathlib import Path

from django.db import migrations

ROOT = Path(__file__).resolve().parent.parent

_FUNCTION = re.compile(r"CREATE OR REPLACE FUNCTION (\w+)\(([^)]*)\)", re.I)
_CONSTRAINT = re.compile(r"ALTER TABLE (\w+) ADD CONSTRAINT (\w+)", re.I)
_INDEX = re.compile(r"CREATE UNIQUE INDEX IF NOT EXISTS (\w+)", re.I)


def read(app_label: str, name: str) -> str:
    """The text of ``<app_label>/sql/<name>.sql``."""
    return (ROOT / app_label / "sql" / f"{name}.sql").read_text(encoding="utf-8")


def undo(text: str) -> str:
    """The SQL that removes what ``text`` created: its constraints and indexes, then its
    functions with the triggers that call them (``DROP FUNCTION ... CASCADE``)."""
    statements = [f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name};"
                  for table, name in _CONSTRAINT.findall(text)]
    statements += [f"DROP INDEX IF EXISTS {name};" for name in _INDEX.findall(text)]
    statements += [f"DROP FUNCTION IF EXISTS {name}({args}) CASCADE;"
                   for name, args in reversed(_FUNCTION.findall(text))]
    return "\n".join(statements)


def run_sql_file(app_label: str, name: str, replaces: str | None = None) -> migrations.RunSQL:
    """A migration operation running ``<app_label>/sql/<name>.sql``; its reverse runs the
    file it ``replaces`` (a guard's earlier version), or removes what it created."""
    text = read(app_label, name)
    return migrations.RunSQL(text, read(app_label, replaces) if replaces else undo(text))


def xact_lock(name: str, key: int = 0) -> None:
    """Take PostgreSQL's transaction-level advisory lock ``(hashtext(name), key)`` on the
    default connection, held until the transaction ends: for a service that must not run
    twice at once over rows the app's role may only read and insert (an append-only table,
    ``casino.dbroles.APPEND_ONLY``, whose rows ``SELECT ... FOR UPDATE`` may not lock).
    Call inside ``transaction.atomic()``."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s), %s::integer)", [name, key])
