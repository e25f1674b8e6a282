"""The auditors' alerts and the review through the API (issue 17): an auditor lists and
reads alerts (filters status and kind), acknowledges one with a note through the page's
service (too short a note is 400 naming ``note``; twice is 409; a dealer cannot); the
review's figures for a table and a period are the page's, read only."""

import pytest
from django.utils import timezone

from reports.alerts import Finding, alert_raise
from reports.detection import edge_store
from reports.models import Alert, AlertChange, AlertKind
from tests.api.conftest import error_of
from tests.factories import UserFactory
from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

EDGE = {"mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1, "within_hand_correlation": 0.28,
        "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000, "seed": 17, "strategy_text": "…"}


def large_bet(number):
    return Finding(kind=AlertKind.LARGE_BET, code="stake", subject=f"hand:{number}", identity=number,
                   evidence={"bet": number, "hand": number, "number": number, "player": "luis", "stake": "80.00",
                             "net": "-80.00", "threshold": "50.00"})


@pytest.fixture
def alerts(db):
    first, _created = alert_raise(finding=large_bet(1))
    second, _created = alert_raise(finding=large_bet(2))
    pattern, _created = alert_raise(finding=Finding(
        kind=AlertKind.BANK_CHANGES, code="repeated_changes", subject="table:1", identity=[["ana", "luis"], [1, 2, 3]],
        evidence={"pattern": "repeated_changes", "players": ["ana", "luis"], "count": 3, "reversals": 2,
                  "evidence": [1, 2, 3]}))
    return first, second, pattern


def test_an_auditor_lists_filters_reads_and_acknowledges_an_alert(api, alerts):
    first, second, pattern = alerts
    auditor = api["auditor"]
    listed = auditor.get("/api/alerts/").json()
    assert listed["count"] == 3 and {a["id"] for a in listed["results"]} == {first.pk, second.pk, pattern.pk}
    assert [a["id"] for a in auditor.get("/api/alerts/", kind="bank_changes").json()["results"]] == [pattern.pk]
    one = auditor.get(f"/api/alerts/{first.pk}/").json()
    assert one["status"] == "open" and one["evidence"]["stake"] == "80.00" and "80" in one["text"]
    assert [c["action"] for c in one["changes"]] == ["opened"]

    done = auditor.post(f"/api/alerts/{first.pk}/acknowledge/", {"note": "  Checked the camera: a regular. "})
    assert done.status_code == 200, done.json()
    assert done.json()["status"] == "acknowledged"
    change = AlertChange.objects.get(alert=first, action="acknowledged")
    assert change.by == auditor.user and change.note == "Checked the camera: a regular."
    assert [c["by"] for c in done.json()["changes"]] == [None, auditor.user.username]
    still_open = auditor.get("/api/alerts/", status="open").json()["results"]
    assert {a["id"] for a in still_open} == {second.pk, pattern.pk}
    assert [a["id"] for a in auditor.get("/api/alerts/", status="acknowledged").json()["results"]] == [first.pk]


def test_refusals_name_the_field_and_write_nothing(api, alerts):
    first, second, _pattern = alerts
    auditor = api["auditor"]
    short = auditor.post(f"/api/alerts/{second.pk}/acknowledge/", {"note": " ok "})
    assert short.status_code == 400 and error_of(short)["field"] == "note"
    missing = auditor.post(f"/api/alerts/{second.pk}/acknowledge/", {})
    assert missing.status_code == 400 and error_of(missing)["field"] == "note"
    assert Alert.objects.get(pk=second.pk).status == "open" and not second.changes.filter(action="acknowledged")

    assert auditor.post(f"/api/alerts/{first.pk}/acknowledge/", {"note": "Looked at it, fine."}).status_code == 200
    twice = auditor.post(f"/api/alerts/{first.pk}/acknowledge/", {"note": "Again, by mistake."})
    assert twice.status_code == 409 and error_of(twice)["rule"] == "already_acknowledged"
    assert "audit1" in error_of(twice)["message"]
    assert first.changes.filter(action="acknowledged").count() == 1

    assert auditor.post("/api/alerts/999999/acknowledge/", {"note": "No such alert."}).status_code == 404
    bad_filter = auditor.get("/api/alerts/", status="closed")
    assert bad_filter.status_code == 400 and error_of(bad_filter)["field"] == "status"


@pytest.mark.parametrize("role", ["dealer", "supervisor", "cashier"])
def test_only_an_auditor_reads_and_acknowledges(api, alerts, role):
    first, _second, _pattern = alerts
    assert api[role].get("/api/alerts/").status_code == 403
    refused = api[role].post(f"/api/alerts/{first.pk}/acknowledge/", {"note": "I should not do this."})
    assert refused.status_code == 403 and error_of(refused)["rule"] == "permission_denied"
    assert Alert.objects.get(pk=first.pk).status == "open"


@pytest.fixture
def session(staff):
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=EDGE)
    table = simulated_table("Mesa R", staff)
    first = play_shift(table, staff["dealer"], staff["supervisor"], records(5, 40))
    second = play_shift(table, UserFactory(username="dealer2", roles=["dealer"]), staff["supervisor"], records(6, 40))
    return table, first, second


def test_the_review_s_figures_are_the_page_s_and_nothing_is_written(api, client, staff, session):
    table, first, second = session
    today = timezone.localdate().isoformat()
    query = {"table": table.pk, "date_from": today, "date_to": today, "funnel": "dealer"}
    answer = api["auditor"].get("/api/review/", **query)
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert body["hands"] == 80 and body["bets"] > 80 and body["edge"]["mean_per_unit"] == 0.06
    kinds = {t["kind"] for t in body["tests"]}
    assert {"expected", "pair", "cards"} <= kinds
    whole = next(t for t in body["tests"] if t["kind"] == "expected" and t["code"] == "all")
    assert whole["hands"] == 80 and whole["p_value"] is not None and "combined_q" in whole
    dealers = sorted(t["group"] for t in body["tests"] if t["kind"] == "expected" and t["code"] == "dealer")
    assert dealers == ["dealer1", "dealer2"]
    assert sorted(p["id"] for p in body["funnel"]["points"]) == ["dealer1", "dealer2"]
    assert Alert.objects.count() == 0
    client.force_login(staff["auditor"])
    page = client.get("/reports/review/", query).content.decode()
    assert f"{body['bets']}" in page

    one = api["auditor"].get("/api/review/", **query, shift=second.pk).json()
    assert one["hands"] == 40 and one["shift"] == second.pk


def test_the_review_s_bad_input_names_the_parameter(api, staff, session):
    table, _first, _second = session
    today = timezone.localdate().isoformat()
    backwards = api["auditor"].get("/api/review/", table=table.pk, date_from=today, date_to="2020-01-01")
    assert backwards.status_code == 400 and error_of(backwards)["field"] == "date_to"
    assert error_of(backwards)["rule"] == "backwards"
    no_table = api["auditor"].get("/api/review/", date_from=today, date_to=today)
    assert no_table.status_code == 400 and error_of(no_table)["field"] == "table"
    assert api["dealer"].get("/api/review/", table=table.pk, date_from=today, date_to=today).status_code == 403
    other = simulated_table("Mesa X", staff, rules={"profile": "profesional"})
    play_shift(other, staff["dealer"], staff["supervisor"], records(7, 5, rules={"profile": "profesional"}))
    missing = api["auditor"].get("/api/review/", table=other.pk, date_from=today, date_to=today)
    assert missing.status_code == 409 and error_of(missing)["rule"] == "theory_missing"


def test_an_alert_s_detail_gives_the_hand_history_of_its_hands(api, alerts, staff):
    """``hands_url``: the hand history filtered to exactly the evidence's hands (absolute),
    null when the evidence names none a filter selects."""
    from urllib.parse import parse_qs, urlsplit

    table = simulated_table("Mesa U", staff)
    grouped, _created = alert_raise(finding=Finding(
        kind=AlertKind.LARGE_BET, code="stakes", subject="player:luis:2026-11-24:shift:7",
        identity=["luis", "2026-11-24", 7], table_id=table.pk,
        evidence={"player": "luis", "gaming_day": "2026-11-24", "shift": 7, "threshold": "50.00", "count": 3,
                  "total": "240.00", "largest": "90.00", "hand_ids": [], "hand_total": 2, "number_from": 4,
                  "number_to": 9}))
    auditor = api["auditor"]
    one = auditor.get(f"/api/alerts/{grouped.pk}/").json()
    url = urlsplit(one["hands_url"])
    assert url.scheme == "http" and url.path == f"/tables/hands/{table.pk}/"
    assert parse_qs(url.query) == {"status": ["settled"], "shift": ["7"], "player": ["luis"], "min_stake": ["50.00"],
                                   "number_from": ["4"], "number_to": ["9"]}
    assert "3 veces" in one["text"] and "240,00" in one["text"]
    _first, _second, pattern = alerts
    assert auditor.get(f"/api/alerts/{pattern.pk}/").json()["hands_url"] is None
    assert "hands_url" not in auditor.get("/api/alerts/").json()["results"][0]
