"""One command runs every check: ``manage.py ledger_check`` runs the ledger's balances
and sums, the replay of every hand, each table's chain of entries and every stored
report's seal; a table's integrity page shows the same faults, seals included. A forged
entry and a broken seal are found; honest books stay quiet."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import translation

from reports.models import Report
from tables.models import Hand, HandEvent
from tests.reports.test_versions_and_seal import store


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def ledger_check():
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue(), err.getvalue()


def integrity_page(table, user):
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    response = client.get(reverse("tables:hand_integrity", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


def as_the_owner(sql, params):
    """A statement with the triggers off (``session_replication_role = replica``): what
    only the database's owner (or a superuser) can do."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


@pytest.fixture
def sealed(played):
    """The played shift closed and its report stored (its chain head sealed)."""
    shift = played.close()
    report = store(played, shift)
    assert report.result["seal"]["entry"]
    return played, shift, report


def test_honest_books_stay_quiet(sealed, staff):
    played, _shift, _report = sealed
    code, out, err = ledger_check()
    assert (code, err) == (0, "")
    assert "OK" in out and "stored report" in out and "chain of entries" in out
    page = integrity_page(played.table, staff["auditor"])
    assert "errorlist" not in page and "No fault" in page


def test_a_broken_seal_is_a_fault_of_ledger_check_and_of_the_integrity_page(sealed, staff):
    played, shift, report = sealed
    as_the_owner("UPDATE reports_report SET result = jsonb_set(result, '{seal,hash}', to_jsonb(%s::text)) "
                 "WHERE id = %s", ["0" * 64, report.pk])
    assert Report.objects.get(pk=report.pk).result["seal"]["hash"] == "0" * 64
    code, _out, err = ledger_check()
    assert code == 1
    assert f"Mesa 1: the chain head sealed in the report of shift #{shift.pk} (version 1) is no longer" in err
    page = integrity_page(played.table, staff["auditor"])
    assert f"the chain head sealed in the report of shift #{shift.pk} (version 1) is no longer" in page


def test_a_forged_entry_is_a_fault_of_ledger_check_and_of_the_integrity_page(sealed, staff):
    """An entry's author changed behind the triggers' back (nothing a replay of the money
    would notice): its HMAC no longer matches, and the seal of the report it is under
    breaks too once it is the sealed head."""
    played, _shift, _report = sealed
    entry = HandEvent.objects.filter(table=played.table).order_by("id").first()
    as_the_owner("UPDATE tables_handevent SET entered_by_id = %s WHERE id = %s", [staff["auditor"].pk, entry.pk])
    code, _out, err = ledger_check()
    assert code == 1
    assert f"Mesa 1: entry {entry.sequence} of hand #{entry.hand.number} was changed after it was entered" in err
    page = integrity_page(played.table, staff["auditor"])
    assert f"entry {entry.sequence} of hand #{entry.hand.number} was changed after it was entered" in page


def test_a_hand_whose_posting_disagrees_shows_on_the_integrity_page_too(sealed, staff):
    played, _shift, _report = sealed
    hand = played.table.hands.get(number=1)
    as_the_owner("UPDATE tables_hand SET settlement = jsonb_set(settlement, '{players,luis}', '\"99.00\"') "
                 "WHERE id = %s", [hand.pk])
    code, _out, err = ledger_check()
    assert code == 1 and "hand Mesa 1 #1" in err
    assert "hand #1" in integrity_page(played.table, staff["auditor"])


def test_the_engines_refusal_on_the_integrity_page_is_in_the_readers_words(played, staff):
    """A hand whose entries no longer replay (its seats changed: luis is gone) is named with
    the engine's refusal in the reader's language on the integrity page, in English for the
    operators of ``ledger_check``; honest hands name none."""
    from reports.texts import exception_text
    from tables.replay import hand_faults

    as_the_owner("UPDATE tables_hand SET seats = '[\"marta\", \"pepe\"]' WHERE number = 1", [])
    client = Client()
    client.force_login(staff["auditor"])
    client.cookies["django_language"] = "es"
    page = client.get(reverse("tables:hand_integrity", args=[played.table.pk])).content.decode()
    assert "mano n.º 1: sus anotaciones no llevan a una mano liquidada (luis no está sentado en esta mesa)" in page
    assert "is not seated" not in page
    english = integrity_page(played.table, staff["auditor"])
    assert "hand #1: its entries do not replay to a settled hand (luis is not seated at this table)" in english
    [fault] = [fault for fault in hand_faults(Hand.objects.filter(table=played.table))
               if fault["code"] == "hand_unplayable"]
    assert fault["reason"] == "luis is not seated at this table"
    with translation.override("es"):  # a fault stored before the engine's words were kept: its English
        del fault["engine"]
        assert exception_text(fault).endswith("(luis is not seated at this table)")
