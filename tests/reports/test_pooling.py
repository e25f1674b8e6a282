"""The pooled review (``reports.pooling``): a dealer who feeds one player a few hands at
each of three tables is found when the tables are added up, and never by any single
shift's review; an honest month of several tables stays quiet; a pair seen too few times
is accumulated, never dropped; the nightly run stores its result and raises its alerts
once; the shift reports' card tests and their reviews' tests are raised under the same
correction, never at the shift's close."""

from datetime import timedelta

import pytest
from django.utils import timezone, translation

from casino.periods import gaming_day, gaming_day_bounds
from reports.detection import Theory, edge_store, exception_findings, review
from reports.models import Alert, PooledReview
from reports.pooling import pooled_review, pooled_review_request, pooled_review_run
from reports.tasks import pooled_review_nightly
from tables.models import Hand
from tests.factories import UserFactory
from tests.reports.sessions import RULES, SEATS, cast, play_shift, rigged_records, simulated_table

#: The theory of these sessions: ``bank_edge(RULES, seats=4, hands=20_000, seed=2017)``.
EDGE = {"mean_per_unit": 0.058660782677291384, "sd_per_unit_hand": 0.85, "sd_per_unit_bet": 1.1058346214294499,
        "within_hand_correlation": 0.2874538862076731, "bank_wins_bet": 0.52}
PLAYERS = ("ana", "luis", "marta", "pepe", "rosa", "juan")


@pytest.fixture
def edge(db):
    edge_store(rules=RULES, seats=SEATS, hands=20_000, seed=2017, result=EDGE)


def moments(day, count):
    """``count`` moments a minute apart from 20:00 on gaming day ``day``."""
    start = gaming_day_bounds(day)[0].replace(hour=20, minute=0)
    return [start + timedelta(minutes=i) for i in range(count)]


def shift_of(table, dealer, staff, records, seated, day):
    return play_shift(table, dealer, staff["supervisor"],
                      [cast(record, seated, started_at=at) for record, at in zip(records, moments(day, len(records)),
                                                                                 strict=True)])


def fed_at_three_tables(staff, today):
    """dealer2 dealing to ana (rosa, juan and luis beside her) at Mesa 1, 2 and 3, one
    shift each on the three gaming days before ``today``, 80 % of her 24 hands a shift
    rigged her way: ``(dealer2, [the three tables])``."""
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    tables = []
    for n in range(3):
        tables.append(simulated_table(f"Mesa {n + 1}", staff, players=PLAYERS))
        fed, _ = rigged_records(500 + n, 24, share=0.8)
        shift_of(tables[-1], dealer2, staff, fed, ("ana", "rosa", "juan", "luis"), today - timedelta(days=1 + n))
    return dealer2, tables


def honest_and_fed_at_three_tables(staff, today, *, honest, fed, share, rig="win"):
    """At each of Mesa 1, 2 and 3: an honest shift dealt by the staff's dealer to ana, luis,
    marta and pepe, and a shift of dealer2 feeding ana (rosa, juan and luis beside her) in
    ``share`` of its hands (``rig``: ``rigged_records``'). ``honest`` and ``fed``: ``(first
    seed, hands, days before today)``, the seed and the fed shift's day moving on by one a
    table. Returns how many hands were rigged at each table."""
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    rigged = []
    for n in range(3):
        table = simulated_table(f"Mesa {n + 1}", staff, players=PLAYERS)
        records, _ = rigged_records(honest[0] + n, honest[1])
        shift_of(table, staff["dealer"], staff, records, ("ana", "luis", "marta", "pepe"),
                 today - timedelta(days=honest[2]))
        records, count = rigged_records(fed[0] + n, fed[1], share=share, rig=rig)
        shift_of(table, dealer2, staff, records, ("ana", "rosa", "juan", "luis"), today - timedelta(days=fed[2] + n))
        rigged.append(count)
    return rigged


def named(test):
    """The groups a pooled test names: its own and those of the same bets (``same``)."""
    return [(test["code"], test.get("a"), test.get("b"))] + [(o["code"], o["a"], o["b"]) for o in test.get("same", [])]


def test_a_dealer_feeding_one_player_at_three_tables_is_found_pooled_and_by_no_single_review(staff, edge):
    today = gaming_day(timezone.now())
    rigged = honest_and_fed_at_three_tables(staff, today, honest=(100, 24, 2), fed=(200, 24, 0), share=0.7)
    assert min(rigged) >= 10
    theory = Theory(compute=False)
    for shift_hands in (Hand.objects.filter(shift=s) for s in {h.shift for h in Hand.objects.select_related("shift")}):
        single = review(shift_hands, subject="shift", theory=theory, card_observations={})
        assert not [t for t in single["tests"] if t["kind"] == "pair" and t["a"] == "dealer2" and t["b"] == "ana"]
        assert not single["findings"]
    result = pooled_review(today, theory=theory, card_hands=0)
    found = [t for t in result["tests"] if t["combined_alert"] and t["code"] == "dealer×player"]
    assert {(t["a"], t["b"]) for t in found} == {("dealer2", "ana")}
    week = next(t for t in found if t["window"] == "week")
    assert week["hands"] == 72 and week["tables"] == 3 and week["shifts"] == 3 and week["actual"] < week["expected"]
    assert week["hand_total"] == 72 and len(week["hand_ids"]) == 72
    # The day alone holds one table's 24 hands of the pair: accumulated in the week, not dropped.
    assert not [t for t in result["tests"] if t["code"] == "dealer×player" and t["window"] == "day"
                and t["b"] == "ana"]


def test_an_honest_month_at_two_tables_stays_quiet_and_a_rare_pair_accumulates(staff, edge):
    today = gaming_day(timezone.now())
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    tables = [simulated_table(f"Mesa {n}", staff, players=PLAYERS) for n in range(1, 3)]
    for n, table in enumerate(tables):
        for week in range(4):
            records, _ = rigged_records(300 + 10 * n + week, 20)
            seated = ("ana", "luis", "marta", "pepe") if week % 2 else ("rosa", "juan", "luis", "ana")
            shift_of(table, (staff["dealer"], dealer2)[(n + week) % 2], staff, records, seated,
                     today - timedelta(days=7 * week + n))
    dealer4 = UserFactory(username="dealer4", roles=["dealer"])
    old, _ = rigged_records(400, 24)
    shift_of(tables[0], dealer4, staff, old, ("ana", "luis", "marta", "pepe"), today - timedelta(days=40))
    recent, _ = rigged_records(401, 8)
    shift_of(tables[1], dealer4, staff, recent, ("ana", "luis", "marta", "rosa"), today - timedelta(days=3))
    # Each shift's report stored at its close (all closed today): their reviews' tests join the run's correction.
    from reports.services import report_request, report_run
    from tables.models import Shift

    reports = [report_run(request_id=report_request(kind="shift", table=shift.table, shift=shift,
                                                    requested_by=None).pk).report
               for shift in Shift.objects.order_by("id")]
    result = pooled_review(today, theory=Theory(), card_hands=200)
    assert result["tests"] and not [t for t in result["tests"] if t["combined_alert"]], \
        [t for t in result["tests"] if t["combined_alert"]]
    windows = {t["window"] for t in result["tests"] if t["kind"] == "pooled"}
    assert all(isinstance(t["from"], str) and isinstance(t["to"], str) for t in result["tests"])
    assert {"week", "month"} <= windows  # the day holds 20 hands of each group: too few alone
    # dealer4 dealt 8 hands in the month: too few; with his 24 of 40 days ago, tested to date.
    (to_date,) = [t for t in result["tests"] if ("dealer", "dealer4", None) in named(t)]
    assert to_date["window"] == "to_date" and to_date["hands"] == 32 and to_date["tables"] == 2
    # His hands were all under one holder: the dealer alone and the dealer × bank holder are the same bets, one test.
    assert named(to_date) == [("dealer×bank", "dealer4", "banca"), ("dealer", "dealer4", None)]
    assert {"code": "dealer×player", "a": "dealer4", "b": "rosa", "hands": 8} in result["accumulating"]
    assert any(t["kind"] == "cards" for t in result["tests"])
    of_reports = [t for t in result["tests"] if t.get("report_id") is not None and t["kind"] != "exception"]
    assert {t["report_id"] for t in of_reports} == {r.pk for r in reports}
    assert "cards" in {t["kind"] for t in of_reports}  # 20 hands a shift: its results are too few to test
    assert all(t["subject"] == next(r.key for r in reports if r.pk == t["report_id"]) for t in of_reports)


def test_the_nightly_run_stores_its_result_and_raises_each_alert_once(staff, edge, django_capture_on_commit_callbacks):
    today = gaming_day(timezone.now())
    fed_at_three_tables(staff, today)
    with django_capture_on_commit_callbacks() as callbacks:
        run_id = pooled_review_nightly()
    assert len(callbacks) == 1
    run = PooledReview.objects.get(pk=run_id)
    assert run.day == today - timedelta(days=1) and run.status == "pending"
    run = pooled_review_run(run_id=run_id)
    assert run.status == "done" and run.alerts >= 1 and run.opened == run.alerts
    pooled = Alert.objects.filter(kind="pooled", code="dealer×player")
    assert ("dealer2", "ana") in {(a.evidence["a"], a.evidence["b"]) for a in pooled}
    assert pooled_review_run(run_id=run_id).opened == run.opened  # done: left as it is
    again = pooled_review_request(day=run.day)
    assert pooled_review_run(run_id=again.pk).opened == 0  # the same findings: no new alert
    assert Alert.objects.filter(kind="pooled").count() == run.opened


def test_a_shift_reports_card_test_is_raised_by_the_pooled_run_not_alone(staff, edge):
    from reports.services import report_request, report_run
    from tests.reports.sessions import records
    from tests.reports.test_detection import stack_a_seven_for_the_bank

    table = simulated_table("Mesa S", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"],
                       records(11, 200, rig=stack_a_seven_for_the_bank(1.0)))
    report = report_run(request_id=report_request(kind="shift", table=table, shift=shift,
                                                  requested_by=None).pk).report
    assert [item["code"] for item in report.result["exceptions"]].count("cards_not_uniform") == 1
    assert not [f for f in exception_findings(report) if f.code == "cards_not_uniform"]
    result = pooled_review(gaming_day(shift.closed_at), theory=Theory(compute=False), card_hands=0)
    (skew,) = [t for t in result["tests"] if t["code"] == "cards_not_uniform"]
    assert skew["combined_alert"] and skew["report_id"] == report.pk
    (finding,) = [f for f in result["findings"] if f.code == "cards_not_uniform"]
    assert finding.kind == "exception" and finding.subject == report.key and finding.shift_id == shift.pk


def test_the_review_page_and_the_api_show_the_latest_pooled_review_and_an_auditor_asks_for_one(
        staff, edge, client, django_capture_on_commit_callbacks):
    from tests.api.conftest import Api

    today = gaming_day(timezone.now())
    _dealer2, tables = fed_at_three_tables(staff, today)
    client.force_login(staff["auditor"])
    page = client.get("/reports/review/").content.decode()
    assert 'id="pooled-none"' in page
    bad = client.post("/reports/review/pooled/", {"day": (today + timedelta(days=2)).isoformat()})
    assert bad.status_code == 400 and "no puede ser posterior al de hoy" in bad.content.decode()
    assert not PooledReview.objects.exists()
    with django_capture_on_commit_callbacks() as callbacks:
        asked = client.post("/reports/review/pooled/", {"day": (today - timedelta(days=1)).isoformat()})
    assert asked.status_code == 302 and len(callbacks) == 1
    run = PooledReview.objects.get()
    assert run.requested_by == staff["auditor"] and run.status == "pending"
    assert 'id="pooled-waiting"' in client.get("/reports/review/").content.decode()
    pooled_review_run(run_id=run.pk)
    page = client.get("/reports/review/").content.decode()
    section = page.split('id="pooled"')[1]
    assert "Agregado de todas las mesas" in section and "dealer2 × ana" in section
    assert 'class="alert"' in section and 'id="pooled-waiting"' not in page
    body = Api(staff["auditor"]).get("/api/review/", table=tables[0].pk, date_to=today.isoformat(),
                                     date_from=(today - timedelta(days=3)).isoformat()).json()
    pooled = body["pooled"]["run"]
    assert pooled["id"] == run.pk and pooled["alerts"] >= 1
    line = next(t for t in pooled["lines"] if t["code"] == "dealer×player" and t["b"] == "ana")
    assert line["combined_alert"] and line["a"] == "dealer2" and line["tables"] == 3
    alert = Alert.objects.filter(kind="pooled", code="dealer×player", subject="pooled:dealer×player:dealer2:ana") \
        .first()
    shown = client.get(f"/reports/alerts/{alert.pk}/").content.decode()
    assert "dealer2 × ana (crupier × jugador), en la semana" in shown


def test_postgresql_keeps_a_pooled_runs_request_and_its_result_once_done(db):
    """The guard (reports/sql/0010_pooled_review_guard.sql): a failed or interrupted run may
    be computed again, but what was asked for never changes, a run done never changes, and
    no run is deleted — whatever writes, not only the services."""
    from django.db import IntegrityError, transaction

    run = PooledReview.objects.create(day=gaming_day(timezone.now()))
    rows = PooledReview.objects.filter(pk=run.pk)
    rows.update(status=PooledReview.Status.FAILED, error="worker lost")
    rows.update(status=PooledReview.Status.RUNNING, started_at=timezone.now())  # retried: allowed
    rows.update(status=PooledReview.Status.DONE, result={"tests": []}, alerts=0, finished_at=timezone.now())
    for change in ({"result": {"tests": [{"forged": True}]}}, {"alerts": 3}, {"status": PooledReview.Status.FAILED},
                   {"day": run.day - timedelta(days=1)}):
        with pytest.raises(IntegrityError, match="pooled review"), transaction.atomic():
            rows.update(**change)
    with pytest.raises(IntegrityError, match="never deleted"), transaction.atomic():
        rows.delete()
    assert rows.get().result == {"tests": []}


def test_the_same_hands_found_again_the_next_night_are_the_same_finding(staff, edge):
    today = gaming_day(timezone.now())
    dealer2, (*_, table) = fed_at_three_tables(staff, today)
    theory = Theory(compute=False)
    yesterday = pooled_review(today - timedelta(days=1), theory=theory, card_hands=0)
    tonight = pooled_review(today, theory=theory, card_hands=0)

    def pair(result):
        return {f.fingerprint: f for f in result["findings"] if ("dealer×player", "dealer2", "ana") in named(f.evidence | {"code": f.code})}

    assert pair(yesterday) and set(pair(tonight)) <= set(pair(yesterday))  # the week's 72 hands both nights
    # with a hand more of the pair, the group is a new finding
    table = simulated_table("Mesa 4", staff, players=PLAYERS)
    more, _ = rigged_records(600, 30, share=0.8)
    shift_of(table, dealer2, staff, more, ("ana", "rosa", "juan", "luis"), today)
    after = pooled_review(today, theory=theory, card_hands=0)
    assert set(pair(after)) - set(pair(yesterday))


def test_a_dealer_dealing_one_player_7_and_a_half_or_the_bank_bust_leaves_a_footprint_found_pooled(staff, edge):
    """The issue's rig (the player dealt his 7½ or the bank busted) in half of 40 hands at
    each of three tables: its footprint (the hands won with 7½ or the bank bust) is found
    for dealer2 × ana over the week; the honest groups beside it stay quiet."""
    from reports.texts import alert_test_rows, alert_text

    today = gaming_day(timezone.now())
    rigged = honest_and_fed_at_three_tables(staff, today, honest=(700, 60, 4), fed=(710, 40, 1), share=0.5,
                                            rig="natural")
    assert min(rigged) >= 15
    result = pooled_review(today, theory=Theory(compute=False), card_hands=0)
    footprints = [t for t in result["tests"] if t["code"].startswith("footprint:")]
    assert {"footprint:dealer×player", "footprint:bank×player"} <= {t["code"] for t in footprints}
    alerts = [t for t in result["tests"] if t["combined_alert"]]
    # The bank busted in the rigged hands: its losses under dealer2 (every seat won) alert too; dealer1's
    # hands alone raise nothing.
    assert alerts and all({"dealer2", "ana", "banca"} & {name for _code, *pair in named(t) for name in pair}
                          for t in alerts)
    assert not [t for t in alerts if ("dealer", "dealer1", None) in named(t) or t.get("a") == "dealer1"]
    week = next(t for t in alerts if ("footprint:dealer×player", "dealer2", "ana") in named(t)
                and t["window"] == "week")
    assert week["hands"] == 120 and week["tables"] == 3 and week["observed"] > week["expected_count"] + 15
    assert week["baseline"] == "player" and week["baseline_hands"] == 180  # ana's hands with the other dealer
    assert len(week["hand_ids"]) == week["hand_total"] == week["observed"]
    (finding,) = [f for f in result["findings"] if f.code == "footprint:dealer×player" and f.evidence["a"] == "dealer2"
                  and f.evidence["b"] == "ana" and f.evidence["window"] == "week"]
    assert finding.subject == "pooled:footprint:dealer×player:dealer2:ana"
    with translation.override("es"):
        text = alert_text("pooled", finding.code, finding.evidence)
        rows = dict(alert_test_rows("pooled", finding.code, finding.evidence))
    assert "ganó con 7½ o con la banca pasada" in text and f"{week['observed']} de 120 manos" in text
    assert "Qué se ha probado" in rows


def test_an_honest_week_of_players_standing_at_4_and_at_6_and_a_half_leaves_no_footprint(staff, edge):
    """Honest seats standing at 4 at one table and at 6½ at another, the same players
    under two dealers: the footprint tests are made and none alerts."""
    today = gaming_day(timezone.now())
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    tables = [simulated_table(f"Mesa {n}", staff, players=PLAYERS) for n in range(1, 3)]
    for day in range(4):
        for n, (table, stand_at) in enumerate(zip(tables, (8, 13), strict=True)):
            records, _ = rigged_records(850 + 10 * day + n, 30, stand_at=stand_at)
            seated = ("ana", "luis", "marta", "pepe") if (day + n) % 2 else ("rosa", "juan", "luis", "ana")
            shift_of(table, (staff["dealer"], dealer2)[(day + n) % 2], staff, records, seated,
                     today - timedelta(days=day))
    theory = Theory()
    result = pooled_review(today, theory=theory, card_hands=0)
    footprints = [t for t in result["tests"] if t["code"].startswith("footprint:")]
    assert len(footprints) >= 6
    assert not [t for t in result["tests"] if t["combined_alert"]], [t for t in result["tests"] if t["combined_alert"]]


def test_the_days_reports_are_its_shifts_closed_and_each_bank_reports_latest_version(played):
    """``day_reports``: the shift report stored at its close, and of the bank-rotation
    report computed twice that day only its latest version, by id."""
    from reports.pooling import day_reports
    from reports.services import report_request, report_run

    shift = played.close()
    shift_report = report_run(request_id=report_request(kind="shift", table=played.table, shift=shift,
                                                        requested_by=None).pk).report
    calendar_day = played.table.hands.order_by("-id").first().opened_at.astimezone().date()
    banks = [report_run(request_id=report_request(kind="banks", table=played.table, date_from=calendar_day,
                                                  date_to=calendar_day, requested_by=None).pk).report
             for _ in range(2)]
    assert [b.version for b in banks] == [1, 2]
    found = day_reports(gaming_day(timezone.now()))
    assert [r.pk for r in found] == [shift_report.pk, banks[1].pk]
    assert found[1].table == played.table  # read with its table, no query more
