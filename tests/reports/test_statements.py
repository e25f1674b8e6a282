"""The monthly statement (issue 34, point 3): asked for by hand or nightly, computed by
the Celery task with its progress, the month's figures equal the results' for those
days, signed once by an auditor; a signed statement rewritten by the owner is a fault of
``ledger_check``; CSV and PDF in the reader's language."""

from datetime import timedelta
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.utils import IntegrityError
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation

from casino.periods import gaming_day
from reports.models import MonthlyStatement
from reports.results import period_results
from reports.statements import (
    StatementError,
    statement_compute,
    statement_csv,
    statement_faults,
    statement_pdf,
    statement_request,
    statement_request_nightly,
    statement_sign,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def tomorrow():
    """The gaming day after today's, so that today's hands are in the month to date."""
    return gaming_day(timezone.now()) + timedelta(days=1)


def test_the_statement_is_computed_by_the_task_and_matches_the_results(played, staff, tomorrow):
    statement = statement_request(month=tomorrow - timedelta(days=1), requested_by=staff["auditor"], today=tomorrow)
    statement.refresh_from_db()  # the task ran once the request committed (eager in the tests)
    assert (statement.status, statement.progress, statement.version) == ("done", 100, 1)
    today = tomorrow - timedelta(days=1)
    results = period_results(first=today.replace(day=1), last=today)
    casino = statement.figures["month"]["now"]["casino"]
    assert Decimal(casino["handle"]) == results.casino.handle > 0
    assert Decimal(casino["banks_result"]) == results.casino.banks_result
    assert statement.figures["month"]["now"]["tables"]["Mesa 1"]["handle"] == str(results.tables["Mesa 1"].handle)
    again = statement_request(month=today, requested_by=staff["auditor"], today=tomorrow)
    assert again.version == 2


def test_signed_once_by_an_auditor_and_a_rewrite_is_a_fault(played, staff, tomorrow):
    statement = statement_request(month=tomorrow - timedelta(days=1), requested_by=staff["auditor"], today=tomorrow)
    with pytest.raises(StatementError, match="Only an auditor signs"):
        statement_sign(statement=statement, auditor=staff["dealer"])
    signed = statement_sign(statement=statement, auditor=staff["auditor"])
    assert len(signed.signature) == 64 and signed.key_id == "1"
    with pytest.raises(StatementError, match="signed already, by audit1"):
        statement_sign(statement=statement, auditor=staff["auditor"])
    assert statement_faults() == []
    with pytest.raises(IntegrityError, match="its figures never change"):
        with connection.cursor() as cursor:
            cursor.execute("UPDATE reports_monthlystatement SET figures = '{}' WHERE id = %s", [statement.pk])
    with connection.cursor() as cursor:  # the owner, triggers off
        cursor.execute("SET session_replication_role = replica")
        cursor.execute("UPDATE reports_monthlystatement SET figures = jsonb_set(figures, "
                       "'{month,now,casino,handle}', '\"1.00\"') WHERE id = %s", [statement.pk])
        cursor.execute("SET session_replication_role = origin")
    assert [fault["statement"] for fault in statement_faults()] == [statement.pk]
    err = StringIO()
    with pytest.raises(SystemExit):
        call_command("ledger_check", stdout=StringIO(), stderr=err)
    assert f"monthly statement #{statement.pk} ({statement.month:%Y-%m}, version 1) is not what its auditor signed" \
        in err.getvalue()


def test_refusals(staff, tomorrow):
    with pytest.raises(StatementError, match="Only an auditor asks"):
        statement_request(month=tomorrow, requested_by=staff["dealer"], today=tomorrow)
    with pytest.raises(StatementError, match="has no gaming day over yet"):
        statement_request(month=tomorrow.replace(day=1) + timedelta(days=40), requested_by=staff["auditor"],
                          today=tomorrow)
    with pytest.raises(IntegrityError, match="never deleted"):
        statement = MonthlyStatement.objects.create(month=(tomorrow - timedelta(days=400)).replace(day=1),
                                                    last_day=tomorrow, version=1)
        MonthlyStatement.objects.filter(pk=statement.pk).delete()


@pytest.mark.parametrize("month", ["0001-01", "abcd", "2026-13", "", "2026-1-1", "１２３４-01"])
def test_a_bad_month_is_refused_with_a_message_and_nothing_asked(staff, month):
    client = Client()
    client.force_login(staff["auditor"])
    client.cookies["django_language"] = "en"
    response = client.post(reverse("reports:statements"), {"month": month}, follow=True)
    assert response.status_code == 200
    assert "Month: give" in response.content.decode()
    assert not MonthlyStatement.objects.exists()


def test_nightly_asks_once_for_the_month_to_date(played, tomorrow):
    first = statement_request_nightly(today=tomorrow)
    assert first is not None and first.last_day == tomorrow - timedelta(days=1)
    assert statement_request_nightly(today=tomorrow) is None
    first.refresh_from_db()
    assert first.status == "done" and first.requested_by is None
    statement_compute(statement_id=first.pk)  # run twice: nothing changes
    assert MonthlyStatement.objects.get(pk=first.pk).figures == first.figures


def test_csv_and_pdf_and_pages(played, staff, tomorrow):
    statement = statement_request(month=tomorrow - timedelta(days=1), requested_by=staff["auditor"], today=tomorrow)
    statement.refresh_from_db()
    text = statement_csv(statement)
    assert text.startswith("# ") and "Monthly statement" in text and "not signed" in text and "Mesa 1" in text
    assert statement_pdf(statement).startswith(b"%PDF")
    client = Client()
    client.force_login(staff["auditor"])
    client.cookies["django_language"] = "en"
    page = client.get(reverse("reports:statement", args=[statement.pk])).content.decode()
    assert "Sign the statement" in page and "Mesa 1" in page
    response = client.get(reverse("reports:statement", args=[statement.pk]) + "?format=pdf")
    assert response["Content-Type"] == "application/pdf"
    assert client.post(reverse("reports:statement_sign", args=[statement.pk])).status_code == 302
    assert "signed by audit1" in client.get(reverse("reports:statement", args=[statement.pk])).content.decode()
    client.force_login(staff["dealer"])
    assert client.get(reverse("reports:statements")).status_code == 403
