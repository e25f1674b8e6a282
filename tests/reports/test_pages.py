"""The auditors' pages: start a report, watch its progress, read it, download CSV and
PDF; auditors only (a dealer gets 403, a visitor the login page)."""

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from reports.models import Report, ReportRequest
from reports.services import report_request, report_run


@pytest.fixture
def auditor(client, staff):
    client.force_login(staff["auditor"])
    return client


@pytest.fixture
def stored(played):
    shift = played.close()
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)
    return report_run(request_id=request.pk).report


def test_an_auditor_starts_a_shift_report_and_is_sent_to_it(auditor, played, django_capture_on_commit_callbacks):
    shift = played.close()
    with django_capture_on_commit_callbacks(execute=True):
        response = auditor.post(reverse("reports:request_shift"), {"shift": shift.pk})
    request = ReportRequest.objects.get()
    assert request.requested_by.username == "audit1"
    assert response.status_code == 302 and response.url == reverse("reports:request", args=[request.pk])
    state = auditor.get(reverse("reports:request_status", args=[request.pk])).json()
    assert state["status"] == "done" and state["progress"] == 100
    assert state["report_url"] == reverse("reports:report", args=[request.report_id])


def test_the_progress_endpoint_of_a_running_report(auditor, played):
    shift = played.close()
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)
    ReportRequest.objects.filter(pk=request.pk).update(status="running", progress=40, stage="ledger")
    state = auditor.get(reverse("reports:request_status", args=[request.pk])).json()
    assert (state["status"], state["progress"], state["stage"], state["report_url"]) == ("running", 40, "ledger", None)
    assert state["stage_label"]  # in words, translated
    page = auditor.get(reverse("reports:request", args=[request.pk]))
    assert page.status_code == 200
    assert b'<progress id="bar" max="100" value="40"' in page.content
    assert reverse("reports:request_status", args=[request.pk]).encode() in page.content


def test_a_request_waiting_for_the_broker_says_so(auditor, played):
    shift = played.close()
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)  # never sent
    state = auditor.get(reverse("reports:request_status", args=[request.pk])).json()
    assert state["queued"] is False and state["status"] == "pending"


def test_an_auditor_starts_a_bank_rotation_report(auditor, played, django_capture_on_commit_callbacks):
    today = timezone.localdate()
    with django_capture_on_commit_callbacks(execute=True):
        response = auditor.post(reverse("reports:request_banks"),
                                {"table": played.table.pk, "date_from": today.isoformat(),
                                 "date_to": today.isoformat()})
    assert response.status_code == 302
    report = Report.objects.get(kind="banks")
    page = auditor.get(reverse("reports:report", args=[report.pk]))
    assert page.status_code == 200
    assert b"ana" in page.content and b"luis" in page.content and b"<svg" in page.content


def test_a_backwards_period_is_refused_with_the_field_named(auditor, played):
    today = timezone.localdate()
    response = auditor.post(reverse("reports:request_banks"),
                            {"table": played.table.pk, "date_from": today.isoformat(),
                             "date_to": (today - timedelta(days=2)).isoformat()})
    assert response.status_code == 400
    assert response.context["banks_form"].errors["date_to"]
    assert not ReportRequest.objects.exists()


def test_the_shift_report_page(auditor, stored):
    response = auditor.get(reverse("reports:report", args=[stored.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<svg" in html and "polyline" in html  # the bank's running balance
    assert "dealt from the wrong shoe" in html and "the card was the 5 of oros" in html
    assert "ana · carta · 4O" in html and "ana card 4O" not in html  # what was undone, in Spanish
    assert reverse("reports:report_csv", args=[stored.pk]) in html
    assert reverse("reports:report_pdf", args=[stored.pk]) in html


def test_the_shift_reports_contents_lead_to_each_of_its_parts(auditor, stored):
    """A long report (about 11,000 px on a phone): its contents at the top, each link to a
    part that is there."""
    import re

    html = auditor.get(reverse("reports:report", args=[stored.pk]), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    toc = re.search(r'<nav class="toc[^"]*"[^>]*>(.*?)</nav>', html, re.S)
    assert toc and "En este informe" in toc.group(1)
    targets = re.findall(r'href="#([\w-]+)"', toc.group(1))
    assert len(targets) >= 10 and {"summary", "players", "reconciliation", "cards"} <= set(targets)
    assert [t for t in targets if html.count(f'id="{t}"') != 1] == []


def test_the_index_lists_shifts_requests_and_reports(auditor, stored):
    response = auditor.get(reverse("reports:index"))
    assert response.status_code == 200
    html = response.content.decode()
    assert reverse("reports:report", args=[stored.pk]) in html and "Mesa 1" in html


def test_csv_download(auditor, stored):
    response = auditor.get(reverse("reports:report_csv", args=[stored.pk]))
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"] and ".csv" in response["Content-Disposition"]
    assert "-semicolon.csv" in response["Content-Disposition"]  # the separator, in Spanish
    text = response.content.decode()
    rows = list(csv.reader(io.StringIO(text), delimiter=";"))
    assert text.startswith("# ") and "punto y coma" in rows[0][0]  # the first line names the separator
    flat = [cell for row in rows for cell in row]
    assert "80,00" in flat and "-10,00" in flat  # the handle, the players' net, decimal comma
    assert ["2×", "1", "10,00", "20,00", "0", "0,00", "0,00"] in rows
    assert not any("T" in cell and "+00:00" in cell for cell in flat)  # no stored UTC instant


def test_csv_download_in_english(auditor, stored):
    auditor.cookies["django_language"] = "en"
    response = auditor.get(reverse("reports:report_csv", args=[stored.pk]))
    assert "-comma.csv" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0][0].startswith("# Fields separated by commas")
    assert ["2×", "1", "10.00", "20.00", "0", "0.00", "0.00"] in rows


def test_pdf_download(auditor, stored):
    response = auditor.get(reverse("reports:report_pdf", args=[stored.pk]))
    assert response.status_code == 200 and response["Content-Type"] == "application/pdf"
    assert response.content.startswith(b"%PDF")
    assert len(response.content) > 3000


def test_the_pages_speak_spanish_by_default(client, staff, stored):
    client.force_login(staff["auditor"])
    response = client.get(reverse("reports:report", args=[stored.pk]))
    assert response.status_code == 200
    assert "Informe" in response.content.decode() or "informe" in response.content.decode()


@pytest.mark.parametrize("name", ["reports:index", "reports:report", "reports:report_csv", "reports:report_pdf",
                                  "reports:request", "reports:request_status"])
def test_a_dealer_may_not_read_reports(client, staff, stored, name):
    client.force_login(staff["dealer"])
    args = [] if name == "reports:index" else [stored.pk if name.startswith("reports:report") else
                                              ReportRequest.objects.get().pk]
    assert client.get(reverse(name, args=args)).status_code == 403


def test_a_dealer_or_cashier_may_not_start_one(client, staff, played):
    shift = played.close()
    for role in ("dealer", "cashier", "supervisor"):
        client.force_login(staff[role])
        assert client.post(reverse("reports:request_shift"), {"shift": shift.pk}).status_code == 403
    assert not ReportRequest.objects.exists()


def test_a_visitor_is_sent_to_log_in(client, stored):
    response = client.get(reverse("reports:report", args=[stored.pk]))
    assert response.status_code == 302 and "login" in response.url


def test_the_navigation_shows_reports_to_auditors_only(client, staff):
    client.force_login(staff["auditor"])
    assert reverse("reports:index") in client.get(reverse("home")).content.decode()
    client.force_login(staff["dealer"])
    assert reverse("reports:index") not in client.get(reverse("home")).content.decode()


def test_the_admin_lists_requests_and_reports_read_only(client, stored):
    from django.contrib.auth.models import User

    client.force_login(User.objects.create_superuser("root", password="root-secret-1"))
    assert client.get("/admin/reports/reportrequest/").status_code == 200
    assert client.get("/admin/reports/report/").status_code == 200
    assert client.get("/admin/reports/report/add/").status_code == 403
