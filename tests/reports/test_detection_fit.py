"""The expectation fits the table as played (issue 30, items 1 and 6): honest players who
stand at 4, 5, 6 and 6½ points raise no alert at their table, where the default strategy's
theory alerted; a player dealt 7½ in a share of hands is still found; an alert's evidence
says what was expected, for which play, over which hands."""

import html
import random

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from casino import formatting
from casino.periods import gaming_day
from game.cards import CARD_RANK
from game.edge import default_strategy, play_hands
from reports.detection import Theory, expectation, review
from reports.evidence import evidence_hands_url
from reports.models import Alert
from reports.pooling import pooled_review_request, pooled_review_run
from reports.services import report_request, report_run
from reports.tasks import raise_alerts
from tables.models import Hand
from tests.reports.sessions import RULES, SEATS, play_shift, simulated_table

#: The seats' thresholds tried (half-points): 4, 5, 6 and 6½ points.
THRESHOLDS = (8, 10, 12, 13)
HANDS = 300


def records_at(stand_at, hands=HANDS, seed=0, rig=None):
    """Honest hands of seats standing at ``stand_at``, the bank replying to what it sees."""
    return [r.record for r in play_hands(RULES, seats=SEATS, hands=hands, rng=random.Random(f"fit-{stand_at}-{seed}"),
                                         strategy=default_strategy(RULES, stand_at=stand_at), record=True, rig=rig)]


def deal_s1_a_natural(share):
    """A rig: in ``share`` of hands s1 (first to play) is dealt a figure and draws a 7."""

    def rig(rng, stock, order):
        if rng.random() < share:
            first_draw = len(stock) - len(order) - 1
            figure = next(i for i, code in enumerate(stock[:first_draw]) if CARD_RANK[code] >= 10)
            stock[-1], stock[figure] = stock[figure], stock[-1]
            seven = next(i for i, code in enumerate(stock[:first_draw]) if CARD_RANK[code] == 7)
            stock[first_draw], stock[seven] = stock[seven], stock[first_draw]
    return rig


@pytest.mark.parametrize("stand_at", THRESHOLDS)
def test_honest_players_standing_higher_than_the_default_raise_no_alert(staff, stand_at):
    table = simulated_table(f"Mesa {stand_at}", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"], records_at(stand_at))
    result = review(Hand.objects.filter(table=table), subject=f"table:{table.pk}", theory=Theory())
    assert result["findings"] == []
    whole = next(t for t in result["tests"] if t["kind"] == "expected" and t["code"] == "all")
    assert whole["fit"]["stand_at"] == stand_at and whole["fit"]["hands"] == HANDS
    assert shift.pk


def test_a_player_dealt_a_natural_in_a_fifth_of_hands_is_found_among_players_standing_at_6(staff, client):
    """Found, and its alert reads as evidence: what was tested, the figure, the
    expectation with its band for the play observed, the hands (the hand history filtered
    to exactly those), in Spanish; acknowledged, it keeps its note."""
    table = simulated_table("Mesa R", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"],
                       records_at(12, rig=deal_s1_a_natural(0.2), seed=1))
    result = review(Hand.objects.filter(table=table), subject=f"table:{table.pk}", theory=Theory())
    found = {(kind, code) for kind, code, _i, _e in result["findings"]}
    assert ("pair", "bank×player") in found, result["findings"]

    request = report_request(kind="shift", table=table, shift=shift, requested_by=None)
    report = report_run(request_id=request.pk).report
    raise_alerts(report.pk)
    assert not Alert.objects.filter(kind="pair").exists()  # the shift's close leaves it to the nightly run
    pooled_review_run(run_id=pooled_review_request(day=gaming_day(shift.closed_at)).pk)
    alert = Alert.objects.get(kind="pair", code="bank×player")
    assert (alert.subject, alert.shift_id, alert.report_id) == (report.key, shift.pk, report.pk)
    # The day's pooled group of the same bets (one table, one shift) is the same test, made once as the shift's.
    assert {"code": "bank×player", "a": "banca", "b": "s1"} in alert.evidence["same"]
    assert not Alert.objects.filter(kind="pooled", code="bank×player", evidence__b="s1", evidence__window="day")
    evidence = alert.evidence
    assert (evidence["a"], evidence["b"]) == ("banca", "s1") and evidence["z"] < -3 and evidence["fit"]["stand_at"] == 12 and evidence["fit"]["hands"] == HANDS
    assert evidence["fit"]["bank_stand_at"] is None and evidence["per_unit_band"] > 0
    assert evidence["per_unit_expected"] == pytest.approx(evidence["expected"] / evidence["staked"])
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:alert", args=[alert.pk])).content.decode()
    test = page.split('id="test"')[1].split("</section>")[0]
    assert "Qué se ha probado" in test and "El resultado de la banca en las apuestas de un jugador contra un banquero" in test
    with translation.override("es"):  # rounded to 3 places (the reader's format would cut them)
        band = formatting.number(round(evidence["per_unit_band"], 3), 3)
        edge = formatting.number(round(evidence["per_unit_expected"], 3), 3)
    assert (f"se esperaba +{edge} ± {band} por unidad apostada, con los puestos plantándose en 6 como se "
            f"observó en estas {HANDS} manos, y la banca respondiendo a lo que ve") in html.unescape(test)
    assert "z = " in test and "Significación" in test
    # The hands: the hand history filtered to exactly the pair's (s1 bet in every hand of the shift).
    url = evidence_hands_url(alert)
    assert url and f'href="{html.escape(url)}"' in page
    listed = client.get(url)
    assert listed.status_code == 200 and listed.context["hands"].paginator.count == HANDS
    # Acknowledged with a note: closed, and the note kept on its history.
    note = "Revisadas las cámaras: s1 recibió sus 7½ del crupier; se abre expediente."
    answer = client.post(reverse("reports:alert", args=[alert.pk]), {"note": note})
    assert answer.status_code == 302
    alert.refresh_from_db()
    assert alert.status == "acknowledged" and alert.changes.get(action="acknowledged").note == note
    assert note in html.unescape(client.get(reverse("reports:alert", args=[alert.pk])).content.decode())


def test_the_review_page_and_the_api_say_the_expectation_as_played(staff, client):
    table = simulated_table("Mesa E", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records_at(13, hands=60))
    client.force_login(staff["auditor"])
    Theory()(RULES, SEATS, default_strategy(RULES, stand_at=13))  # stored: the page never simulates
    today = timezone.localdate().isoformat()
    query = {"table": table.pk, "date_from": today, "date_to": today, "funnel": "tenure"}
    page = html.unescape(client.get(reverse("reports:review"), query).content.decode())
    expectation = page.split('id="expectation">')[1].split("</p>")[0]
    assert expectation.startswith("Se esperaba +") and "plantándose en 6½ como se observó en estas 60 manos" in expectation
    answer = client.get("/api/review/", query).json()
    assert answer["expectation"]["fit"]["stand_at"] == 13 and answer["expectation"]["fit"]["hands"] == 60
    assert answer["expectation"]["text"] == expectation[0].lower() + expectation[1:-1]
    whole = next(t for t in answer["tests"] if t["kind"] == "expected" and t["code"] == "all")
    assert whole["fit"]["stand_at"] == 13 and whole["per_unit_band"] > 0


def test_the_expectation_of_hands_or_records_is_their_fitted_strategys_edge(staff):
    """``detection.expectation``, for the pooled tests: the same from the stored hands and
    from their records."""
    hand_records = records_at(13, hands=60)
    table = simulated_table("Mesa X", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], hand_records)
    theory = Theory()
    stored = theory(RULES, SEATS, default_strategy(RULES, stand_at=13))
    from_hands = expectation(Hand.objects.filter(table=table), theory=theory)
    assert (from_hands["stand_at"], from_hands["bank_stand_at"], from_hands["hands"]) == (13, None, 60)
    assert from_hands["edge"] == pytest.approx(stored["mean_per_unit"])
    assert from_hands["uncertainty"] == pytest.approx(stored["standard_error"])  # no neighbour: the simulation's
    low, high = from_hands["band"]
    assert low < from_hands["edge"] < high and high - low == pytest.approx(2 * 1.959964 * stored["standard_error"])
    from_records = expectation(hand_records, theory=theory)
    assert from_records["edge"] == from_hands["edge"] and from_records["staked"] == pytest.approx(from_hands["staked"])
    assert from_records["edges"][0]["fit"]["stand_at"] == 13
