"""The auditor's review page (issue 17): for a table and a period, optionally a shift, a
bank tenure or a dealer — expected against actual with its band, the funnel chart, the
pairs and the card tests with p- and q-values and their hands; in Spanish; bad input is
a clear 400."""

import re

import pytest
from django.urls import reverse
from django.utils import timezone

from reports.detection import edge_store
from tables.models import HandBet
from tests.factories import UserFactory
from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

EDGE = {"mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1, "within_hand_correlation": 0.28,
        "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000, "seed": 17, "strategy_text": "…"}


@pytest.fixture
def session(staff):
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=EDGE)
    table = simulated_table("Mesa R", staff)
    first = play_shift(table, staff["dealer"], staff["supervisor"], records(5, 40))
    second = play_shift(table, UserFactory(username="dealer2", roles=["dealer"]), staff["supervisor"], records(6, 40))
    return table, first, second


def test_the_review_of_a_period_shows_each_part_with_its_evidence(client, staff, session):
    table, first, second = session
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    page = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "funnel": "dealer"})
    assert page.status_code == 200
    html = page.content.decode()
    bets = HandBet.objects.filter(hand__table=table).count()
    assert f"80 manos, 80 de ellas liquidadas con apuestas: {bets} apuestas." in html
    expected = html.split('id="expected"')[1].split("</table>")[0]
    assert "Todas las manos" in expected and "Crupier dealer1" in expected and "Crupier dealer2" in expected
    funnel = html.split('class="chart funnel"')[1].split("</svg>")[0]
    assert len(re.findall("<circle", funnel)) == 2 and "dealer2" in funnel
    pairs = html.split('id="pairs"')[1].split("</table>")[0]
    assert "Crupier × banquero" in pairs and "dealer1 × banca" in pairs and "dealer2 × banca" in pairs
    cards = html.split('id="cards"')[1].split("</table>")[0]
    assert "Primeras cartas · la banca" in cards and "Cartas pedidas · los puestos" in cards
    assert "Resultado esperado" in expected
    dealer2_row = expected.split("Crupier dealer2")[1].split("</tr>")[0]
    assert "40 manos" in dealer2_row and reverse("tables:hand_detail", args=[table.pk, 41]) in dealer2_row
    assert reverse("tables:hand_detail", args=[table.pk, 40]) not in dealer2_row  # dealer1's last hand


def test_one_shift_alone(client, staff, session):
    table, first, second = session
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    html = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "shift": second.pk, "funnel": "tenure"}).content.decode()
    bets = HandBet.objects.filter(hand__shift=second).count()
    assert f"40 manos, 40 de ellas liquidadas con apuestas: {bets} apuestas." in html
    assert "dealer1 × banca" not in html


def test_bad_input_is_a_clear_400_and_the_page_is_for_auditors(client, staff, session):
    table, _first, _second = session
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:review"), {"table": table.pk, "date_from": "2026-11-20",
                                                  "date_to": "2026-11-01", "funnel": "tenure"})
    assert page.status_code == 400 and "El periodo termina antes de empezar." in page.content.decode()
    assert client.get(reverse("reports:review")).status_code == 200  # the empty form
    client.force_login(staff["dealer"])
    assert client.get(reverse("reports:review")).status_code == 403


def test_without_a_stored_theory_the_page_says_how_to_store_it_and_never_simulates(client, staff, session):
    from reports.models import EdgeFigure

    table, _first, _second = session
    EdgeFigure.objects.all().delete()
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    page = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "funnel": "tenure"})
    assert page.status_code == 409
    text = page.content.decode()
    assert "La teoría de reglamento, bank_passes_on_natural False con 4 puestos aún no está guardada" in text
    assert "--store" in text and not EdgeFigure.objects.exists()


def test_a_missing_theory_is_asked_of_the_worker_once_and_the_review_then_answers(
        client, staff, session, django_capture_on_commit_callbacks):
    """The page never simulates: it queues ``reports.review_theory`` (once, however often
    the auditor asks again), whose run stores the edges of the strategy fitted to the
    hands, after which the same review answers."""
    from django.core.cache import cache

    from reports.models import EdgeFigure

    table, _first, _second = session
    EdgeFigure.objects.all().delete()
    cache.clear()
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    query = {"table": table.pk, "date_from": today, "date_to": today, "funnel": "tenure"}
    with django_capture_on_commit_callbacks(execute=False) as queued:
        first = client.get(reverse("reports:review"), query)
        again = client.get(reverse("reports:review"), query)
    assert (first.status_code, again.status_code) == (409, 409) and len(queued) == 1
    assert "se está calculando ahora" in first.content.decode() and not EdgeFigure.objects.exists()
    queued[0]()  # the worker's run (eager in the tests)
    assert EdgeFigure.objects.exists()
    answered = client.get(reverse("reports:review"), query)
    assert answered.status_code == 200 and 'id="summary"' in answered.content.decode()


def test_the_theorys_strategy_is_in_the_readers_language(client, staff):
    """The edge stores its strategy in English; the Spanish page describes it in Spanish
    (points as 4, 3½), the stored words untouched."""
    from dataclasses import asdict

    from game.edge import default_strategy
    from game.profiles import Profile
    from reports.detection import edge_figure

    strategy = asdict(default_strategy(Profile.from_rules(RULES)))
    stored = {**EDGE, "rules": RULES, "strategy": strategy, "strategy_text": "Each seat bets 1 unit per hand…"}
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=stored)
    table = simulated_table("Mesa R", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(5, 10))
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    html = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "funnel": "tenure"}).content.decode()
    assert "Cada puesto apuesta 1 unidad por mano, nunca sube, pide carta por debajo de 4 puntos" in html
    assert "Un 7 solo nunca se fusila." in html
    assert "Each seat" not in html and "is never fusilado" not in html
    assert edge_figure(RULES, SEATS)["strategy_text"] == "Each seat bets 1 unit per hand…"


def test_a_selection_of_fewer_hands_than_a_test_needs_shows_their_figures_not_none(client, staff):
    """21 hands: too few for a p-value, but the expected-against-actual table shows their
    figures (the same hands as the summary's and the funnel's), marked not tested, never
    "no settled hand"."""
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=EDGE)
    table = simulated_table("Mesa P", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(8, 21))
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    html = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "funnel": "tenure"}).content.decode()
    bets = HandBet.objects.filter(hand__table=table).count()
    assert f"21 manos, 21 de ellas liquidadas con apuestas: {bets} apuestas." in html
    expected = html.split('id="expected"')[1].split("</table>")[0]
    assert "Ninguna mano liquidada" not in expected
    whole = expected.split("Todas las manos")[1].split("</tr>")[0]
    assert re.search(r'<td class="num">21</td>', whole) and "sin prueba: menos de 30 manos" in whole
    funnel = html.split('class="chart funnel"')[1].split("</svg>")[0]
    points = len(re.findall("<circle", funnel))
    tenures = HandBet.objects.filter(hand__table=table).values("hand__tenure").distinct().count()
    assert points == tenures


def test_one_hand_is_said_in_the_singular(client, staff):
    """A shift of one hand: "1 mano, 1 de ellas liquidada con apuestas", not "1 manos"."""
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result=EDGE)
    table = simulated_table("Mesa U", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"], records(7, 1))
    client.force_login(staff["auditor"])
    today = timezone.localdate().isoformat()
    html = client.get(reverse("reports:review"), {"table": table.pk, "date_from": today, "date_to": today,
                                                  "shift": shift.pk, "funnel": "tenure"}).content.decode()
    bets = HandBet.objects.filter(hand__shift=shift).count()
    words = f"{bets} apuesta." if bets == 1 else f"{bets} apuestas."
    assert f"1 mano, 1 de ellas liquidada con apuestas: {words}" in html, html
