"""Alerts (issue 17): raised after a report from its exceptions, its large bets and its
statistical review; one alert per finding however often it is found; open until an
auditor acknowledges it with a note; every change attributed; nothing deleted or edited
(PostgreSQL refuses it too); the auditor's home lists the open ones."""

from decimal import Decimal

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse

from reports.alerts import AlertError, Finding, alert_acknowledge, alert_raise
from reports.models import Alert, AlertChange, AlertKind
from reports.services import report_request, report_run, report_store
from reports.tasks import raise_alerts
from tests.reports.conftest import stored_report


def finding(**changes):
    values = {"kind": AlertKind.LARGE_BET, "code": "stake", "subject": "hand:1", "identity": 1,
              "evidence": {"bet": 1, "hand": 1, "number": 1, "player": "luis", "stake": "80.00", "net": "-80.00",
                           "threshold": "50.00"}}
    values.update(changes)
    return Finding(**values)


def test_the_same_finding_twice_is_one_alert_with_its_opening_attributed_to_the_system(db):
    first, created = alert_raise(finding=finding())
    again, created_again = alert_raise(finding=finding(evidence={"other": "data"}))
    assert (created, created_again) == (True, False)
    assert again.pk == first.pk and Alert.objects.count() == 1
    other, created_other = alert_raise(finding=finding(identity=2))
    assert created_other and other.pk != first.pk
    opening = first.changes.get()
    assert opening.action == "opened" and opening.by is None and first.status == "open"


def test_an_auditor_acknowledges_with_a_note_and_it_is_attributed(staff):
    alert, _created = alert_raise(finding=finding())
    with pytest.raises(AlertError, match="al menos 5"):
        alert_acknowledge(alert_id=alert.pk, note="  ok ", by=staff["auditor"])
    with pytest.raises(AlertError, match="Solo un auditor"):
        alert_acknowledge(alert_id=alert.pk, note="checked the cameras", by=staff["dealer"])
    assert Alert.objects.get().status == "open" and AlertChange.objects.count() == 1
    done = alert_acknowledge(alert_id=alert.pk, note="checked the cameras: a regular high roller", by=staff["auditor"])
    assert done.status == "acknowledged"
    change = done.changes.get(action="acknowledged")
    assert change.by == staff["auditor"] and change.note == "checked the cameras: a regular high roller"
    with pytest.raises(AlertError, match="ya la reconoció audit1"):
        alert_acknowledge(alert_id=alert.pk, note="second look at it", by=staff["auditor"])
    # Found again: still the one, acknowledged alert.
    again, created = alert_raise(finding=finding())
    assert not created and again.status == "acknowledged"


def test_postgresql_refuses_deleting_editing_or_closing_an_alert_without_its_note(db):
    alert, _created = alert_raise(finding=finding())
    for statement in (lambda: Alert.objects.filter(pk=alert.pk).delete(),
                      lambda: Alert.objects.filter(pk=alert.pk).update(evidence={"forged": True}),
                      lambda: Alert.objects.filter(pk=alert.pk).update(status="acknowledged"),
                      lambda: AlertChange.objects.filter(alert=alert).update(note="rewritten"),
                      lambda: AlertChange.objects.filter(alert=alert).delete()):
        with pytest.raises(DatabaseError), transaction.atomic():
            statement()
    assert Alert.objects.get().status == "open" and AlertChange.objects.get().note == ""


def test_a_closed_shift_raises_its_large_bets_once_however_often_it_is_reported(played, edges,
                                                                              django_capture_on_commit_callbacks):
    played.table.large_bet = Decimal("20.00")
    played.table.save(update_fields=["large_bet"])
    with django_capture_on_commit_callbacks(execute=True):
        report = stored_report(played)
    large = Alert.objects.filter(kind="large_bet")
    # marta's 20.00 in P01 and in LUIS_BANK (one alert: one player, one gaming day, one shift);
    # the voided fourth hand's 20.00 is not a bet any more.
    assert [(a.code, a.evidence["player"], a.evidence["count"], a.evidence["total"], a.evidence["largest"])
            for a in large] == [("stakes", "marta", 2, "40.00", "20.00")]
    assert {a.shift_id for a in large} == {played.shift.pk} and {a.report_id for a in large} == {report.pk}
    count = Alert.objects.count()
    assert raise_alerts(report.pk) == 0  # the task again: nothing new
    request = report_request(kind="shift", table=played.table, shift=played.shift, requested_by=None)
    with django_capture_on_commit_callbacks(execute=True):
        report_run(request_id=request.pk)  # the report again, and its alerts again
    assert Alert.objects.count() == count


def test_a_report_exception_becomes_an_alert(played, edges):
    stored = stored_report(played)
    # A later version whose result holds one more exception (stored reports are never changed).
    result = {**stored.result, "exceptions": [*stored.result["exceptions"],
                                              {"code": "drawer_variance", "drawer": 3, "difference": "-5.00"}]}
    report = report_store(kind=stored.kind, table=stored.table, shift=stored.shift, result=result)
    assert raise_alerts(report.pk) >= 1
    alert = Alert.objects.get(kind="exception")
    assert alert.code == "drawer_variance" and alert.evidence["items"][0]["difference"] == "-5.00"
    assert alert.evidence["count"] == alert.evidence["item_total"] == 1
    assert alert.subject == report.key


@pytest.fixture
def auditor(client, staff):
    client.force_login(staff["auditor"])
    return client


def test_the_auditors_home_lists_the_open_alerts_and_the_page_acknowledges_one(auditor, staff):
    alert, _created = alert_raise(finding=finding())
    acknowledged, _created = alert_raise(finding=finding(identity=2, evidence={**finding().evidence, "number": 2}))
    alert_acknowledge(alert_id=acknowledged.pk, note="seen on camera, fine", by=staff["auditor"])
    home = auditor.get(reverse("home")).content.decode()
    assert reverse("reports:alert", args=[alert.pk]) in home
    assert reverse("reports:alert", args=[acknowledged.pk]) not in home
    assert "luis apostó 80,00 €" in home  # in Spanish, with a decimal comma
    page = auditor.get(reverse("reports:alert", args=[alert.pk]))
    assert page.status_code == 200 and "Reconocer" in page.content.decode()
    refused = auditor.post(reverse("reports:alert", args=[alert.pk]), {"note": "ok"})
    assert refused.status_code == 400 and Alert.objects.get(pk=alert.pk).status == "open"
    done = auditor.post(reverse("reports:alert", args=[alert.pk]), {"note": "the player's usual stake"})
    assert done.status_code == 302
    assert Alert.objects.get(pk=alert.pk).status == "acknowledged"
    assert reverse("reports:alert", args=[alert.pk]) not in auditor.get(reverse("home")).content.decode()


def test_alerts_are_for_auditors_only(client, staff):
    alert, _created = alert_raise(finding=finding())
    client.force_login(staff["dealer"])
    assert client.get(reverse("reports:alerts")).status_code == 403
    assert client.post(reverse("reports:alert", args=[alert.pk]), {"note": "nothing to see"}).status_code == 403
    assert "open-alerts" not in client.get(reverse("home")).content.decode()


def test_a_report_s_page_lists_its_alerts_and_links_to_the_review_of_its_hands(played, edges, client, staff,
                                                                            django_capture_on_commit_callbacks):
    played.table.large_bet = Decimal("20.00")
    played.table.save(update_fields=["large_bet"])
    with django_capture_on_commit_callbacks(execute=True):
        report = stored_report(played)
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:report", args=[report.pk])).content.decode()
    section = page.split('id="report-alerts"')[1].split("</section>")[0]
    assert section.count("marta apostó 2 veces al menos la apuesta grande de la mesa, 20,00 €") == 1
    review = reverse("reports:review")
    assert f'{review}?table={played.table.pk}&amp;' in section and f"shift={played.shift.pk}" in section
    link = section.split('href="')[-1].split('"')[0].replace("&amp;", "&")
    assert client.get(link).status_code == 200


def test_the_alerts_page_says_which_run_raises_the_statistical_alerts_and_at_what_level(auditor):
    """The level is the nightly pooled review's (``statistics.NIGHTLY_ALPHA``), in the
    reader's number format."""
    from django.utils import translation

    from reports.statistics import NIGHTLY_ALPHA

    assert NIGHTLY_ALPHA == 0.0025
    auditor.cookies["django_language"] = "es"
    with translation.override("es"):
        page = auditor.get(reverse("reports:alerts"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    level = page.split('id="alerts-level">')[1].split("</p>")[0]
    assert "la revisión agregada de cada noche" in level and "(un nivel del 0,25 %)" in level
