"""Alerts an auditor can work through (issue 17): large bets grouped per player × gaming
day × shift, a report's exceptions per code, raised once however often they are found,
old alerts left as they are; the hand history filtered to exactly an alert's hands (page
and CSV), its filters refusing bad input naming the field; old evidence never breaks the
alert's page."""

import csv
import io
from decimal import Decimal
from urllib.parse import parse_qs, urlsplit

import pytest
from django.db import connection
from django.urls import reverse
from hypothesis import given
from hypothesis import strategies as st

from reports import detection
from reports.alerts import Finding, alert_raise
from reports.detection import edge_store, exception_findings, large_bet_findings
from reports.evidence import evidence_hand_links, evidence_hands_url
from reports.models import Alert, AlertChange, AlertKind
from reports.services import report_store
from reports.tasks import raise_alerts
from reports.texts import alert_text
from tables.models import Hand
from tables.views.hands import exception_hand_numbers
from tests.reports.conftest import EDGE, import_shift, stored_report
from tests.reports.test_house import HANDS as LOCA_HANDS


def large_bets(played, threshold):
    played.table.large_bet = Decimal(threshold)
    played.table.save(update_fields=["large_bet"])


def numbers(response):
    return [hand.number for hand in response.context["hands"]]


@pytest.fixture
def auditor(client, staff):
    client.force_login(staff["auditor"])
    return client


# ---------------------------------------------------------------------------------------
# Raising: grouped, once, old alerts untouched


def test_large_bets_are_one_alert_per_player_gaming_day_and_shift_with_their_figures(played, edges):
    large_bets(played, "10.00")
    report = stored_report(played)
    hands = Hand.objects.filter(shift=played.shift)
    found = {f.evidence["player"]: f for f in large_bet_findings(report, hands)}
    # P01: luis 10, marta 20; NATURAL: luis 10, marta 10; LUIS_BANK: ana 10, marta 20; the 4th voided.
    assert sorted(found) == ["ana", "luis", "marta"]
    marta = found["marta"].evidence
    assert (marta["count"], marta["total"], marta["largest"], marta["threshold"]) == (3, "50.00", "20.00", "10.00")
    assert marta["hand_ids"] == sorted(hands.filter(number__in=[1, 2, 3]).values_list("pk", flat=True))
    assert (marta["hand_total"], marta["number_from"], marta["number_to"]) == (3, 1, 3)
    assert marta["shift"] == played.shift.pk and found["marta"].shift_id == played.shift.pk
    assert found["luis"].evidence["count"] == 2 and found["luis"].evidence["number_to"] == 2


def test_raising_again_is_idempotent_and_old_alerts_are_left_as_they_are(played, edges,
                                                                          django_capture_on_commit_callbacks):
    large_bets(played, "20.00")
    report = stored_report(played)
    # An alert raised before the grouping: one per bet (marta's 20.00 in hand 1) and one per exception.
    bet = Hand.objects.get(table=played.table, number=1).bets.get(player__code="marta")
    old, _created = alert_raise(finding=Finding(
        kind=AlertKind.LARGE_BET, code="stake", subject=f"hand:{bet.hand_id}", identity=bet.pk,
        evidence={"bet": bet.pk, "hand": bet.hand_id, "number": 1, "player": "marta", "stake": "20.00",
                  "net": "-20.00", "threshold": "20.00"}, table_id=played.table.pk))
    item = {"code": "hand_replay", "hand": 2, "what": "nets"}
    result = {**report.result, "exceptions": [item, {"code": "hand_replay", "hand": 3, "what": "nets"}]}
    version = report_store(kind=report.kind, table=report.table, shift=report.shift, result=result)
    old_exception, _created = alert_raise(finding=Finding(kind=AlertKind.EXCEPTION, code="hand_replay",
                                                          subject=version.key, identity=item, evidence=item,
                                                          table_id=played.table.pk, report_id=version.pk))
    before = {a.pk: (a.evidence, a.status) for a in Alert.objects.all()}
    changes = AlertChange.objects.count()
    raise_alerts(version.pk)
    grouped = Alert.objects.get(kind="large_bet", code="stakes")
    # marta's other 20.00 (hand 3): the bet already alerted on its own is left out.
    assert (grouped.evidence["count"], grouped.evidence["number_from"], grouped.evidence["number_to"]) == (1, 3, 3)
    exceptions = Alert.objects.filter(kind="exception", code="hand_replay").exclude(pk=old_exception.pk).get()
    assert exceptions.evidence["items"] == [{"code": "hand_replay", "hand": 3, "what": "nets"}]
    assert {a.pk: (a.evidence, a.status) for a in Alert.objects.filter(pk__in=before)} == before
    count = Alert.objects.count()
    assert raise_alerts(version.pk) == 0 and raise_alerts(report.pk) == 0
    assert Alert.objects.count() == count and AlertChange.objects.count() == changes + count - len(before)
    assert old.pk in before


def test_a_report_s_exceptions_are_one_alert_per_code_their_evidence_capped_at_200(played, edges):
    report = stored_report(played)
    items = [{"code": "chain_changed", "hand": n, "sequence": 1} for n in range(1, 206)]
    result = {**report.result, "exceptions": [*items, {"code": "drawer_variance", "drawer": 3, "difference": "-5.00"}]}
    version = report_store(kind=report.kind, table=report.table, shift=report.shift, result=result)
    findings = exception_findings(version)
    assert [(f.code, f.evidence["count"], f.evidence["item_total"], len(f.evidence["items"])) for f in findings] == [
        ("chain_changed", 205, 205, 200), ("drawer_variance", 1, 1, 1)]
    raise_alerts(version.pk)
    alert = Alert.objects.get(kind="exception", code="chain_changed")
    assert alert.report_id == version.pk and alert.subject == version.key
    assert "y 204 excepciones más del mismo tipo" in alert_text(alert.kind, alert.code, alert.evidence)


def test_the_large_bet_evidence_is_capped(played, edges, monkeypatch):
    large_bets(played, "10.00")
    report = stored_report(played)
    monkeypatch.setattr(detection, "EVIDENCE_LIMIT", 2)
    marta = next(f for f in large_bet_findings(report, Hand.objects.filter(shift=played.shift))
                 if f.evidence["player"] == "marta")
    assert len(marta.evidence["hand_ids"]) == 2 and marta.evidence["hand_total"] == 3
    assert detection.EVIDENCE_LIMIT == 2 and (marta.evidence["number_from"], marta.evidence["number_to"]) == (1, 3)


def test_the_gaming_day_in_sql_is_the_cage_s(db, settings):
    from datetime import datetime
    from zoneinfo import ZoneInfo

    from casino.periods import gaming_day

    madrid = ZoneInfo("Europe/Madrid")
    for moment in (datetime(2026, 3, 29, 6, 30, tzinfo=madrid), datetime(2026, 3, 29, 5, 59, tzinfo=madrid),
                   datetime(2026, 10, 25, 0, 30, tzinfo=madrid), datetime(2026, 11, 24, 23, 0, tzinfo=madrid)):
        with connection.cursor() as cursor:
            cursor.execute("SELECT ((%s::timestamptz AT TIME ZONE %s) - make_interval(hours => %s))::date",
                           [moment, settings.TIME_ZONE, settings.AML_GAMING_DAY_START])
            assert cursor.fetchone()[0] == gaming_day(moment), moment


# ---------------------------------------------------------------------------------------
# The links: exactly the alert's hands


def test_a_grouped_large_bet_alert_links_to_exactly_its_hands(played, edges, auditor):
    large_bets(played, "20.00")
    raise_alerts(stored_report(played).pk)
    alert = Alert.objects.get(kind="large_bet")
    url = evidence_hands_url(alert)
    query = parse_qs(urlsplit(url).query)
    assert query["player"] == ["marta"] and query["min_stake"] == ["20.00"] and query["status"] == ["settled"]
    listed = auditor.get(url)
    assert listed.status_code == 200 and numbers(listed) == [3, 1]
    page = auditor.get(reverse("reports:alert", args=[alert.pk])).content.decode()
    assert url.replace("&", "&amp;") in page and 'id="bet-total">40,00 €' in page
    export = auditor.get(url.replace("/?", "/hands.csv?"))
    rows = list(csv.reader(io.StringIO(b"".join(export.streaming_content).decode()), delimiter=";"))
    assert [row[0] for row in rows[2:]] == ["1", "3"]


def test_an_exception_alert_links_to_the_hands_its_exceptions_name(played, edges, auditor):
    report = stored_report(played)
    result = {**report.result, "exceptions": [{"code": "hand_replay", "hand": 2, "what": "nets"},
                                              {"code": "open_hands", "numbers": [4]},
                                              {"code": "gaps", "count": 1, "numbers": [9]}]}
    version = report_store(kind=report.kind, table=report.table, shift=report.shift, result=result)
    raise_alerts(version.pk)
    replay = Alert.objects.get(kind="exception", code="hand_replay")
    assert numbers(auditor.get(evidence_hands_url(replay))) == [2]
    assert numbers(auditor.get(evidence_hands_url(Alert.objects.get(code="open_hands")))) == [4]
    assert evidence_hands_url(Alert.objects.get(code="gaps")) is None  # missing numbers are no hands
    page = auditor.get(reverse("reports:alert", args=[replay.pk])).content.decode()
    assert reverse("tables:hand_detail", args=[played.table.pk, 2]) in page


def test_old_evidence_with_a_hand_number_under_hand_does_not_break_the_page(played, auditor):
    """A report exception stores a hand's *number* under ``hand``; an old large bet its id
    (with ``number``); a hand that is gone, or a value that is no number, is left out."""
    hand = Hand.objects.get(table=played.table, number=2)
    exception, _created = alert_raise(finding=Finding(
        kind=AlertKind.EXCEPTION, code="void_not_reversed", subject="shift:x", identity=1,
        evidence={"code": "void_not_reversed", "hand": 2}, table_id=played.table.pk))
    links, total = evidence_hand_links(exception, 200)
    assert links == [(played.table.pk, 2)] and total == 1  # the number, not the hand whose id is 2
    odd, _created = alert_raise(finding=Finding(kind=AlertKind.LARGE_BET, code="stake", subject="hand:x",
                                                identity=2, evidence={"hand": "seven", "hand_ids": [hand.pk, "x"],
                                                                      "player": "marta", "number": 2,
                                                                      "stake": "20.00", "threshold": "10.00"}))
    missing, _created = alert_raise(finding=Finding(kind=AlertKind.LARGE_BET, code="stake", subject="hand:y",
                                                    identity=3, evidence={"hand": 999_999, "number": 5,
                                                                          "player": "marta", "stake": "20.00",
                                                                          "threshold": "10.00"}))
    for alert in (exception, odd, missing):
        assert auditor.get(reverse("reports:alert", args=[alert.pk])).status_code == 200
    assert evidence_hand_links(missing, 200)[0] == []


def test_a_review_line_with_more_hands_than_it_lists_links_to_exactly_them(staff, auditor, monkeypatch):
    from django.utils import timezone

    from reports.views import review as review_views
    from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=EDGE)
    table = simulated_table("Mesa V", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(7, 35))
    monkeypatch.setattr(review_views, "EVIDENCE_SHOWN", 5)
    today = timezone.localdate().isoformat()
    page = auditor.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                   "funnel": "tenure"})
    assert page.status_code == 200
    lines = [t for t in page.context["expected"] + page.context["pairs"] if t["hands_url"]]
    assert {t["kind"] for t in lines} == {"expected", "pair"}
    for line in lines:
        assert line["hand_count"] > len(line["hand_links"])
        listed = auditor.get(line["hands_url"])
        assert listed.status_code == 200 and listed.context["hands"].paginator.count == line["hand_count"]
        assert set(Hand.objects.filter(pk__in=line["hand_ids"] or []).values_list("number", flat=True)) <= set(
            Hand.objects.filter(pk__in=[h.pk for h in listed.context["hands"].paginator.object_list])
            .values_list("number", flat=True))
    assert 'class="all-hands"' in page.content.decode()


# ---------------------------------------------------------------------------------------
# The hand history's filters


def test_each_filter_of_the_hand_history(played, auditor, staff):
    url = reverse("tables:hand_list", args=[played.table.pk])
    assert numbers(auditor.get(url)) == [4, 3, 2, 1]
    assert numbers(auditor.get(url, {"dealer": staff["dealer"].username})) == [4, 3, 2, 1]
    assert numbers(auditor.get(url, {"bank": "ana"})) == [2, 1]
    assert numbers(auditor.get(url, {"bank": "luis"})) == [4, 3]
    assert numbers(auditor.get(url, {"player": "luis"})) == [2, 1]
    assert numbers(auditor.get(url, {"player": "marta", "min_stake": "20"})) == [4, 3, 1]  # the voided one too
    assert numbers(auditor.get(url, {"player": "luis", "min_stake": "20"})) == []  # his bets, not marta's
    assert numbers(auditor.get(url, {"min_stake": "15,5"})) == [4, 3, 1]  # the reader's decimal comma
    assert numbers(auditor.get(url, {"number_from": "2", "number_to": "3"})) == [3, 2]
    tenure = Hand.objects.get(table=played.table, number=3).tenure_id
    assert numbers(auditor.get(url, {"tenure": tenure})) == [4, 3]


def test_the_bank_filter_finds_a_syndicate_member_s_hands(mesa, client, staff):
    """Mesa 2's bank drawn for by pepe with rosa 40 %: her hands as a bank holder too."""
    from tables import services
    from tests.factories import TableFactory, deposit_bank
    from tests.reports.conftest import P01

    table = TableFactory(name="Mesa 2")
    p = mesa.players
    services.table_bank_draw(table=table, holder=p["pepe"], capital=Decimal("300.00"),
                             shares=[(p["pepe"], Decimal("60")), (p["rosa"], Decimal("40"))], by=mesa.supervisor)
    deposit_bank(table, staff["cashier"])
    mesa.play(services.hand_open(table=table, seats=["luis", "marta"], opened_by=mesa.dealer, require_shift=False),
              *P01)
    client.force_login(staff["auditor"])
    url = reverse("tables:hand_list", args=[table.pk])
    assert numbers(client.get(url, {"bank": "rosa"})) == [1] == numbers(client.get(url, {"bank": "pepe"}))
    assert numbers(client.get(url, {"bank": "luis"})) == []


def test_la_loca_s_player_is_found_by_the_player_filter(staff, client):
    table = import_shift("Mesa L", LOCA_HANDS, staff, rules={"profile": "profesional", "side_bets": True,
                                                             "commission_rate": "0.05",
                                                             "bank_natural_collects": 2})
    client.force_login(staff["auditor"])
    url = reverse("tables:hand_list", args=[table.pk])
    assert numbers(client.get(url, {"player": "rosa"})) == [1]  # her 5 on la loca, no seat of hers
    assert numbers(client.get(url, {"player": "pepe"})) == [1]  # his bet behind luis's seat


@pytest.mark.parametrize(("query", "field", "words"), [
    ({"dealer": "nobody"}, "dealer", "nobody"),
    ({"bank": "nadie"}, "bank", "nadie"),
    ({"player": "x" * 70}, "player", "64"),
    ({"player": "nadie"}, "player", "nadie"),
    ({"min_stake": "mucho"}, "min_stake", "importe"),
    ({"min_stake": "0"}, "min_stake", "0,01"),
    ({"number_from": "-1"}, "number_from", "1"),
    ({"number_from": "5", "number_to": "2"}, "number_to", "anterior"),
    ({"number_to": "99999999999999"}, "number_to", ""),
    ({"report": "abc"}, "report", "número"),
    ({"report": "999999"}, "report", "999999"),
    ({"exception": "gaps"}, "report", "gaps"),
    ({"tenure": "0"}, "tenure", ""),
])
def test_bad_filters_are_refused_naming_the_field(played, auditor, query, field, words):
    response = auditor.get(reverse("tables:hand_list", args=[played.table.pk]), query)
    assert response.status_code == 200 and numbers(response) == []
    errors = response.context["form"].errors
    assert field in errors and words in " ".join(errors[field])
    assert f'id="id_{field}_error"' in response.content.decode()
    export = auditor.get(reverse("tables:hand_list_csv", args=[played.table.pk]), query)
    assert export.status_code == 400 and export.content.decode().startswith(f"{field}:")


def test_an_exception_the_report_does_not_have_is_refused(played, edges, auditor):
    report = stored_report(played)
    response = auditor.get(reverse("tables:hand_list", args=[played.table.pk]),
                           {"report": report.pk, "exception": "chain_changed"})
    assert "exception" in response.context["form"].errors and numbers(response) == []


def test_the_csv_honours_every_filter(played, auditor, staff):
    url = reverse("tables:hand_list_csv", args=[played.table.pk])
    response = auditor.get(url, {"bank": "luis", "player": "marta", "min_stake": "20", "status": "settled",
                                 "dealer": staff["dealer"].username, "number_from": 1, "number_to": 4})
    assert response.status_code == 200
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode()), delimiter=";"))
    assert [row[0] for row in rows[2:]] == ["3"]


_numbers = st.lists(st.integers(min_value=1, max_value=500), max_size=5)
_items = st.lists(st.one_of(
    st.builds(lambda code, hand: {"code": code, "hand": hand}, st.sampled_from(["hand_replay", "chain_link"]),
              st.one_of(st.integers(min_value=1, max_value=500), st.text(max_size=3), st.none(), st.booleans())),
    st.builds(lambda numbers: {"code": "open_hands", "numbers": numbers}, _numbers),
    st.builds(lambda numbers: {"code": "gaps", "count": len(numbers), "numbers": numbers}, _numbers),
    st.just("not a dict")), max_size=12)


@given(items=_items)
def test_the_hands_an_exception_names_are_its_numbers_never_a_gap_s(items):
    """Every code's hands are the union of each code's; a gap's numbers (hands that do not
    exist) and values that are no number never count."""
    every = exception_hand_numbers(items)
    by_code = set().union(*(exception_hand_numbers(items, code) for code in ("hand_replay", "chain_link",
                                                                              "open_hands", "gaps")))
    assert every == by_code and exception_hand_numbers(items, "gaps") == set()
    named = {item["hand"] for item in items if isinstance(item, dict) and type(item.get("hand")) is int}
    opened = {n for item in items if isinstance(item, dict) and item["code"] == "open_hands" for n in item["numbers"]}
    assert every == named | opened
