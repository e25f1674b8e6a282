"""docs/guards.md lists the guards as they stand: every trigger the migrations made, and
each app's guards file names only triggers that exist."""

import re

import pytest
from django.db import connection

from casino.sql import read, undo
from tests.conftest import ROOT

pytestmark = pytest.mark.django_db

GUARDS = ROOT / "docs" / "guards.md"
APPS = ("patrons", "ledger", "tables", "cage", "boxes", "reports")


def triggers():
    with connection.cursor() as cursor:
        cursor.execute("SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1")
        return [name for (name,) in cursor.fetchall()]


def test_every_trigger_of_the_database_is_on_the_guards_page():
    page = GUARDS.read_text(encoding="utf-8")
    found = triggers()
    assert len(found) > 40
    assert [name for name in found if f"`{name}`" not in page] == []


def test_every_trigger_on_the_page_exists():
    """The first column of every table names triggers (or a constraint, an index) that exist."""
    first_cells = [line.split("|")[1] for line in GUARDS.read_text(encoding="utf-8").splitlines()
                   if line.startswith("| `") or line.startswith("| constraint") or line.startswith("| index")]
    named = {name for cell in first_cells for name in re.findall(r"`(\w+)`", cell)}
    constraints_and_indexes = {"tables_event_hand_table_fk", "boxes_tronc_count_once"}
    assert len(named) > 40
    assert sorted(named - set(triggers()) - constraints_and_indexes) == []


@pytest.mark.parametrize("app", APPS)
def test_each_guards_file_can_be_undone(app):
    """The reverse a migration runs drops every function the file creates (and so its triggers)."""
    text = read(app, "0002_guards")
    functions = re.findall(r"CREATE OR REPLACE FUNCTION (\w+)\(", text)
    assert functions and all(f"DROP FUNCTION IF EXISTS {name}(" in undo(text) for name in functions)
