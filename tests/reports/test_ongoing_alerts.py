"""One ongoing alert per group (issue 30): a pooled group found again on a later night over
the same kind of window, with more hands, joins its open alert as attributed evidence (the
first finding's figures kept, nothing edited or deleted); once the alert is acknowledged,
the group's next finding opens a new alert; other groups and windows stay separate; the
alerts' pages and ``GET /api/alerts/`` say the alert is ongoing, in Spanish too."""

from datetime import timedelta

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse
from django.utils import timezone

from casino.periods import gaming_day
from reports.alerts import Finding, alert_acknowledge, alert_raise, alert_raise_joined
from reports.detection import Theory
from reports.models import Alert, AlertEvidence, AlertKind
from reports.pooling import pooled_review_request, pooled_review_run
from tests.api.conftest import Api
from tests.reports.test_pooling import edge, fed_at_three_tables  # noqa: F401  (the fixture)


def pooled(window, hands, *, a="p5", to="2026-11-20", z=4.3):
    """A pooled finding of player ``a`` over ``window`` with ``hands`` hands (as
    ``reports.pooling._finding`` makes it)."""
    from reports.pooling import _finding

    test = {"kind": AlertKind.POOLED, "code": "player", "identity": [a, None, hands, 1, hands, hands * (hands + 1) // 2],
            "window": window, "from": "2026-11-14", "to": to, "a": a, "b": None, "hands": hands, "bets": hands,
            "staked": float(hands), "actual": 12.0, "expected": 3.0, "sd": 2.0, "z": z, "p_value": 1e-5,
            "hand_ids": list(range(1, hands + 1)), "hand_total": hands, "combined_q": 0.004, "tables": 3,
            "shifts": 5}
    return _finding(test, None)


def test_a_group_found_again_with_more_hands_joins_its_open_alert_and_nothing_is_edited(db):
    first, created = alert_raise(finding=pooled("week", 50))
    again, outcome = alert_raise_joined(finding=pooled("week", 100, z=4.4))
    assert created and outcome == "joined" and again.pk == first.pk
    assert Alert.objects.count() == 1
    (update,) = AlertEvidence.objects.all()
    assert update.alert_id == first.pk and update.evidence["hands"] == 100 and update.evidence["z"] == 4.4
    assert Alert.objects.get().evidence["hands"] == 50  # the first figure stays readable
    # The same finding again: nothing written.
    assert alert_raise_joined(finding=pooled("week", 100, z=4.4)) == (first, "known")
    assert AlertEvidence.objects.count() == 1
    # PostgreSQL keeps the evidence and the alert's group as written.
    for statement in (lambda: AlertEvidence.objects.filter(pk=update.pk).delete(),
                      lambda: AlertEvidence.objects.filter(pk=update.pk).update(evidence={"forged": True}),
                      lambda: Alert.objects.filter(pk=first.pk).update(group="")):
        with pytest.raises(DatabaseError), transaction.atomic():
            statement()


def test_after_an_acknowledgement_the_group_opens_a_new_alert(staff):
    first, _created = alert_raise(finding=pooled("week", 50))
    alert_acknowledge(alert_id=first.pk, note="a regular: checked the cameras", by=staff["auditor"])
    second, outcome = alert_raise_joined(finding=pooled("week", 100))
    assert outcome == "opened" and second.pk != first.pk and second.status == "open"
    assert not AlertEvidence.objects.exists()
    third, outcome = alert_raise_joined(finding=pooled("week", 150))
    assert (third.pk, outcome) == (second.pk, "joined")


def test_other_groups_and_windows_stay_separate(db):
    week, _created = alert_raise(finding=pooled("week", 50))
    month, created_month = alert_raise(finding=pooled("month", 60))
    other, created_other = alert_raise(finding=pooled("week", 50, a="p6"))
    day, created_day = alert_raise(finding=pooled("day", 20, to="2026-11-20"))
    next_day, created_next_day = alert_raise(finding=pooled("day", 25, to="2026-11-21"))  # another day's hands
    assert created_month and created_other and created_day and created_next_day
    assert len({week.pk, month.pk, other.pk, day.pk, next_day.pk}) == 5
    # A finding without a group (a report's test) never joins anything.
    plain = Finding(kind=AlertKind.PAIR, code="dealer×player", subject="shift:1", identity=["d1", "p5"])
    again = Finding(kind=AlertKind.PAIR, code="dealer×player", subject="shift:1", identity=["d1", "p5", "more"])
    assert alert_raise_joined(finding=plain)[1] == "opened" and alert_raise_joined(finding=again)[1] == "opened"
    assert not AlertEvidence.objects.exists()


def week_alerts():
    return [a for a in Alert.objects.filter(kind="pooled", code="dealer×player").order_by("id")
            if (a.evidence["a"], a.evidence["b"], a.evidence["window"]) == ("dealer2", "ana", "week")]


def test_planted_a_group_alerting_two_nights_in_a_row_is_one_alert_with_two_evidences(staff, edge):  # noqa: F811
    today = gaming_day(timezone.now())
    fed_at_three_tables(staff, today)  # dealer2 feeding ana on each of the three days before today
    theory = Theory(compute=False)
    night1 = pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=2)).pk, theory=theory)
    (alert,) = week_alerts()
    assert alert.evidence["hands"] == 48 and night1.opened >= 1
    night2 = pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=1)).pk, theory=theory)
    assert week_alerts() == [alert]
    (update,) = alert.updates.all()
    assert update.evidence["hands"] == 72 and update.run_id == night2.pk
    assert alert.pk in night2.result["joined"]
    assert Alert.objects.get(pk=alert.pk).evidence["hands"] == 48  # its own evidence: the first night's
    # The day's windows are separate groups: each night's day is its own alert, never joined.
    days = [a for a in Alert.objects.filter(kind="pooled") if a.evidence.get("window") == "day"]
    assert not any(AlertEvidence.objects.filter(alert__in=days))


def test_planted_acknowledged_then_alerting_again_makes_two_alerts(staff, edge):  # noqa: F811
    today = gaming_day(timezone.now())
    fed_at_three_tables(staff, today)
    theory = Theory(compute=False)
    pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=2)).pk, theory=theory)
    (first,) = week_alerts()
    alert_acknowledge(alert_id=first.pk, note="looked at: to be watched", by=staff["auditor"])
    pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=1)).pk, theory=theory)
    old, new = week_alerts()
    assert old.pk == first.pk and old.status == "acknowledged" and old.evidence["hands"] == 48
    assert new.status == "open" and new.evidence["hands"] == 72
    assert not old.updates.exists() and not new.updates.exists()


def test_the_pages_and_the_api_show_an_ongoing_alert_in_spanish(client, staff):
    first, _created = alert_raise(finding=pooled("week", 50))
    alert_raise(finding=pooled("week", 100, z=4.4))
    client.force_login(staff["auditor"])
    listing = client.get(reverse("reports:alerts")).content.decode()
    assert "Sigue: encontrada de nuevo 1 vez" in listing
    detail = client.get(reverse("reports:alert", args=[first.pk])).content.decode()
    assert 'id="alert-ongoing"' in detail and "Encontrada de nuevo" in detail
    assert "encontrada de nuevo 1 vez desde que se abrió" in detail
    home = client.get(reverse("home")).content.decode()
    assert "Sigue: encontrada de nuevo 1 vez" in home
    auditor = Api(staff["auditor"])
    (listed,) = auditor.get("/api/alerts/").json()["results"]
    assert listed["ongoing"]["count"] == 1 and listed["ongoing"]["latest_evidence"]["hands"] == 100
    assert listed["evidence"]["hands"] == 50
    one = auditor.get(f"/api/alerts/{first.pk}/").json()
    assert [u["evidence"]["hands"] for u in one["updates"]] == [100] and one["updates"][0]["text"]
    assert "100" in listed["ongoing"]["latest_text"]


def test_an_alert_never_found_again_is_not_ongoing(staff):
    alert_raise(finding=pooled("week", 50))
    (listed,) = Api(staff["auditor"]).get("/api/alerts/").json()["results"]
    assert listed["ongoing"] is None


def report_pair(hands, *, b="p5", actual=12.0, shift=9):
    """Shift ``shift``'s report's holder × player pair over hands 1 … ``hands`` (as
    ``reports.pooling._finding`` raises a report's review test, without the report)."""
    from reports.pooling import bets_digest

    test = {"kind": AlertKind.PAIR, "code": "bank×player", "identity": ["h4", b], "a": "h4", "b": b,
            "hands": hands, "bets": hands, "staked": float(hands), "actual": actual, "expected": 3.0, "sd": 2.0,
            "z": -4.7, "p_value": 2.5e-6, "hand_ids": list(range(1, hands + 1)), "hand_total": hands,
            "combined_q": 0.0003}
    return Finding(kind=AlertKind.PAIR, code="bank×player", subject=f"shift:{shift}", identity=["h4", b],
                   evidence=test, bets=bets_digest(test))


def test_the_same_bets_under_another_name_or_window_are_the_alert_raised_before(staff):
    # A shift's holder × player pair one night; the next, the week's player p5 over the same hands and bets.
    first, outcome = alert_raise_joined(finding=report_pair(50))
    assert outcome == "opened" and first.bets
    again, outcome = alert_raise_joined(finding=pooled("week", 50))
    assert (again.pk, outcome) == (first.pk, "known")
    assert Alert.objects.count() == 1 and not AlertEvidence.objects.exists()
    # Another player's bets in the same hands, another result, or more hands: other bets, another finding.
    assert alert_raise_joined(finding=pooled("week", 50, a="p6"))[1] == "opened"
    assert alert_raise_joined(finding=report_pair(50, actual=13.0, shift=10))[1] == "opened"
    assert alert_raise_joined(finding=pooled("month", 51))[1] == "opened"
    # Acknowledged, the same bets are still that alert's; PostgreSQL keeps its bets as written.
    alert_acknowledge(alert_id=first.pk, note="a regular: checked the cameras", by=staff["auditor"])
    assert alert_raise_joined(finding=pooled("day", 50)) == (Alert.objects.get(pk=first.pk), "known")
    with pytest.raises(DatabaseError), transaction.atomic():
        Alert.objects.filter(pk=first.pk).update(bets="")
    # A finding joined to an open alert keeps its bets: found again under another name, it is that alert's.
    week, _created = alert_raise(finding=pooled("week", 60, a="p7"))
    joined, outcome = alert_raise_joined(finding=pooled("week", 70, a="p7"))
    assert (joined.pk, outcome) == (week.pk, "joined")
    from reports.pooling import _finding

    player = {**pooled("week", 70, a="p7").evidence, "kind": AlertKind.POOLED, "code": "bank×player", "a": "h2",
              "b": "p7", "identity": ["h2", "p7", 70, 1, 70, 70 * 71 // 2]}
    assert alert_raise_joined(finding=_finding(player, None)) == (week, "known")


def test_planted_the_same_bets_found_again_the_next_night_under_another_name_are_one_alert(staff, edge):  # noqa: F811
    from reports.alerts import alerts_raise_counted
    from reports.models import Report, ReportKind
    from reports.pooling import pooled_review
    from tests.factories import UserFactory
    from tests.reports.sessions import rigged_records, simulated_table
    from tests.reports.test_pooling import PLAYERS, shift_of

    today = gaming_day(timezone.now())
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    table = simulated_table("Mesa 1", staff, players=PLAYERS)
    fed, rigged = rigged_records(700, 40, share=0.8)
    assert rigged >= 25
    shift = shift_of(table, dealer2, staff, fed, ("ana", "rosa", "juan", "luis"), today - timedelta(days=2))
    report = Report.objects.create(kind=ReportKind.SHIFT, key=f"shift:{shift.pk}", at_close=True, table=table,
                                   shift=shift, result={"shift": {"open": False}})
    theory = Theory(compute=False)
    night1 = pooled_review(today - timedelta(days=2), theory=theory, card_hands=0, reports=[report])
    raised = alerts_raise_counted(findings=night1["findings"])
    # The shift's own review names the holder × ana (dealer2 × ana, the same bets, beside it).
    (shift_pair,) = [a for a in raised["opened"] if a.kind == "pair" and a.subject == report.key]
    assert (shift_pair.code, shift_pair.evidence["b"], shift_pair.evidence["hands"]) == ("bank×player", "ana", 40)
    assert {"kind": "pair", "code": "dealer×player", "a": "dealer2", "b": "ana"} in shift_pair.evidence["same"]
    # The next night: the shift's 40 hands of the pair are the week's; tested again, they alert again.
    night2 = pooled_review(today - timedelta(days=1), theory=theory, card_hands=0, reports=[])
    (week,) = [t for t in night2["tests"] if t["combined_alert"] and t["code"] == "dealer×player"]
    assert (week["window"], week["a"], week["b"], week["hands"]) == ("week", "dealer2", "ana", 40)
    again = alerts_raise_counted(findings=night2["findings"])
    assert shift_pair in again["known"]
    ana = [alert for alert in Alert.objects.all()
           if "ana" in (alert.evidence.get("b"), *(o.get("b") for o in alert.evidence.get("same") or []))]
    assert ana == [shift_pair] and not AlertEvidence.objects.exists()


def test_planted_bets_tested_on_an_earlier_night_are_not_tested_again_and_new_bets_are(staff, edge):  # noqa: F811
    """The walk's two nights through the stored runs (``pooled_review_run``): night one's
    shift report tests dealer2's 40 hands with ana; night two's run leaves the week's
    groups of the same bets out (``repeated``), opens nothing, and reads them from night
    one's stored run (``tested_before``). A shift more of the pair on night two makes the
    week's group new bets: tested, and alerting."""
    from reports.models import PooledReview, Report, ReportKind
    from reports.pooling import bets_digest, tested_before
    from tests.factories import UserFactory
    from tests.reports.sessions import rigged_records, simulated_table
    from tests.reports.test_pooling import PLAYERS, shift_of

    today = gaming_day(timezone.now())
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    table = simulated_table("Mesa 1", staff, players=PLAYERS)
    fed, _rigged = rigged_records(700, 40, share=0.8)
    shift = shift_of(table, dealer2, staff, fed, ("ana", "rosa", "juan", "luis"), today - timedelta(days=2))
    report = Report.objects.create(kind=ReportKind.SHIFT, key=f"shift:{shift.pk}", at_close=True, table=table,
                                   shift=shift, result={"shift": {"open": False}})
    theory = Theory(compute=False)
    night1 = pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=2)).pk, theory=theory)
    assert night1.status == PooledReview.Status.DONE and night1.opened >= 1
    made = {bets_digest(test) for test in night1.result["tests"]} - {""}
    assert made and tested_before(today - timedelta(days=1)) == made
    assert tested_before(today - timedelta(days=2)) == frozenset()  # a night does not skip its own run's tests

    night2 = pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=1)).pk, theory=theory)
    assert night2.status == PooledReview.Status.DONE and night2.result["repeated"] >= 1
    assert night2.opened == 0 and night2.alerts == 0
    assert not [t for t in night2.result["tests"] if t.get("b") == "ana" or t.get("a") == "ana"]
    assert Alert.objects.count() == night1.opened
    body = Api(staff["auditor"]).get("/api/review/", table=table.pk, date_to=today.isoformat(),
                                     date_from=(today - timedelta(days=3)).isoformat()).json()
    assert (body["pooled"]["run"]["id"], body["pooled"]["run"]["repeated"]) == (night2.pk, night2.result["repeated"])

    # The shift closed today: tonight's run takes its report's tests. Its whole ("expected, all": every bet of
    # the 40 hands, which it lists nowhere) is night one's dealer2 × banca, and its pairs are night one's: left out.
    tonight = pooled_review_run(run_id=pooled_review_request(day=today).pk, theory=theory)
    assert tonight.status == PooledReview.Status.DONE and tonight.alerts == 0 and tonight.opened == 0
    assert not [t for t in tonight.result["tests"] if t.get("report_id") == report.pk and t["kind"] in ("expected", "pair")]
    assert tonight.result["repeated"] >= 1

    # Night two again, the pair dealt 40 more hands that day: the week's dealer2 × ana is new bets.
    more, _rigged = rigged_records(701, 40, share=0.8)
    shift_of(simulated_table("Mesa 2", staff, players=PLAYERS), dealer2, staff, more, ("ana", "rosa", "juan", "luis"),
             today - timedelta(days=1))
    again = pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=1)).pk, theory=theory)
    week = [t for t in again.result["tests"] if (t["code"], t.get("a"), t.get("b"), t.get("window"))
            == ("dealer×player", "dealer2", "ana", "week")]
    assert [t["hands"] for t in week] == [80] and week[0]["combined_alert"]
    assert again.opened >= 1
