"""Reports through the API: an auditor starts one, follows its progress, reads it and
downloads it as CSV and PDF (the ``reports`` app's services and exports)."""

from reports.models import ReportRequest
from tests.api.conftest import error_of
from tests.api.test_hands import P01, open_hand, post_events


def closed_shift(api, mesa):
    hand_id = open_hand(api, mesa, "luis", "marta")["hand"]["id"]
    post_events(api, hand_id, P01)
    shift_id = mesa.table.shifts.get().pk
    assert api["supervisor"].post(f"/api/shifts/{shift_id}/close/").status_code == 200
    return shift_id


def test_an_auditor_starts_a_shift_report_follows_it_and_downloads_it(api, mesa,
                                                                       django_capture_on_commit_callbacks):
    shift_id = closed_shift(api, mesa)
    with django_capture_on_commit_callbacks(execute=True):
        started = api["auditor"].post("/api/reports/requests/", {"kind": "shift", "shift": shift_id})
    assert started.status_code == 202, started.json()
    assert (started.json()["kind"], started.json()["table"], started.json()["requested_by"]) == (
        "shift", mesa.table.pk, "audit1")
    progress = api["auditor"].get(f"/api/reports/requests/{started.json()['id']}/").json()
    assert (progress["status"], progress["progress"]) == ("done", 100) and progress["report"]
    report = api["auditor"].get(f"/api/reports/{progress['report']}/").json()
    assert report["kind"] == "shift" and report["shift"] == shift_id and "summary" in report["result"]
    listed = api["auditor"].get("/api/reports/", kind="shift").json()
    assert listed["count"] == 1 and "result" not in listed["results"][0]
    csv = api["auditor"].client.get(f"/api/reports/{report['id']}/csv/")
    assert csv.status_code == 200 and csv["Content-Type"].startswith("text/csv")
    assert csv.content.startswith(b"# ") and "attachment" in csv["Content-Disposition"]
    pdf = api["auditor"].client.get(f"/api/reports/{report['id']}/pdf/")
    assert pdf.status_code == 200 and pdf["Content-Type"] == "application/pdf" and pdf.content.startswith(b"%PDF")
    missing = api["auditor"].client.get("/api/reports/999999/pdf/")
    assert missing.status_code == 404 and b'"not_found"' in missing.content


def test_a_pending_request_shows_its_progress(api, mesa):
    shift_id = closed_shift(api, mesa)
    started = api["auditor"].post("/api/reports/requests/", {"kind": "shift", "shift": shift_id}).json()
    ReportRequest.objects.filter(pk=started["id"]).update(status="running", progress=40, stage="ledger")
    progress = api["auditor"].get(f"/api/reports/requests/{started['id']}/").json()
    assert (progress["status"], progress["progress"], progress["stage"], progress["report"]) == (
        "running", 40, "ledger", None)
    again = api["auditor"].post("/api/reports/requests/", {"kind": "shift", "shift": shift_id}).json()
    assert again["id"] == started["id"]  # one computation per subject
    assert api["auditor"].get("/api/reports/requests/", status="running").json()["count"] == 1


def test_a_report_request_that_makes_no_report_names_its_field(api, mesa):
    response = api["auditor"].post("/api/reports/requests/", {"kind": "banks", "table": mesa.table.pk})
    assert response.status_code == 400
    assert (error_of(response)["field"], error_of(response)["rule"]) == ("date_from", "report")
    backwards = api["auditor"].post("/api/reports/requests/", {"kind": "banks", "table": mesa.table.pk,
                                                               "date_from": "2026-05-02", "date_to": "2026-05-01"})
    assert backwards.status_code == 400 and error_of(backwards)["field"] == "date_to"
    nothing = api["auditor"].post("/api/reports/requests/", {"kind": "shift"})
    assert nothing.status_code == 400 and error_of(nothing)["field"] == "table"
    banks = api["auditor"].post("/api/reports/requests/", {"kind": "banks", "table": mesa.table.pk,
                                                           "date_from": "2026-05-01", "date_to": "2026-05-31"})
    assert banks.status_code == 202 and banks.json()["key"] == f"banks:{mesa.table.pk}:2026-05-01:2026-05-31"


def test_reports_are_for_auditors(api, mesa):
    for role in ("dealer", "supervisor", "cashier"):
        assert api[role].get("/api/reports/").status_code == 403, role
        response = api[role].post("/api/reports/requests/", {"kind": "banks", "table": mesa.table.pk,
                                                             "date_from": "2026-05-01", "date_to": "2026-05-31"})
        assert response.status_code == 403, role
