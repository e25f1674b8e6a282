"""The alerts' detection end to end (issue 17): sessions in the database, played by the
simulation and imported; a report, whose close raises no statistical alert; the nightly
pooled review of its day takes its review's tests into its one correction and raises the
alerts with the report's subject. Planted anomalies are found — a bank winning 4σ above expectation with one dealer, a seven stacked for the bank
in 10% of hands, a bank sold back and forth between two players — and 20 honest sessions
raise no false alert beyond what the Benjamini–Hochberg correction allows at 1%."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from casino.periods import gaming_day
from game.cards import CARD_RANK
from game.edge import bank_edge, hand_variance
from patrons.models import Player
from reports.detection import Theory, edge_store, review
from reports.models import Alert
from reports.pooling import pooled_review_request, pooled_review_run
from reports.services import report_request, report_run
from reports.tasks import raise_alerts
from tables import services
from tables.models import Hand
from tests.factories import UserFactory, deposit_bank
from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

STATISTICAL = ("expected", "pair", "cards", "large_losses")


@pytest.fixture(scope="module")
def theory_figures():
    """The theory of these sessions: 40,000 simulated hands with their own seed."""
    return bank_edge(RULES, seats=SEATS, hands=40_000, seed=2017).as_dict()


@pytest.fixture
def edge(db, theory_figures):
    edge_store(rules=RULES, seats=SEATS, hands=40_000, seed=2017, result=theory_figures)
    return theory_figures


def report_of(kind, table, **subject):
    request = report_request(kind=kind, table=table, requested_by=None, **subject)
    return report_run(request_id=request.pk).report


def nightly_run(day):
    """The nightly pooled review of gaming day ``day``, computed now: the run."""
    return pooled_review_run(run_id=pooled_review_request(day=day).pk)


def favouring_the_bank(edge, hands, sigmas, seed):
    """Records in which the bank wins ``sigmas`` standard deviations above its expectation:
    honest hands of which some the bank lost are left out (a dealer who deals for the bank)."""
    kept, excess, variance = [], 0.0, 0.0
    for record_result in records_with_results(seed, hands):
        record, bets = record_result
        stakes = [stake for _p, stake, _r in bets]
        result = sum(r for _p, _s, r in bets)
        expected = edge["mean_per_unit"] * sum(stakes)
        var = hand_variance(stakes, edge["sd_per_unit_bet"], edge["within_hand_correlation"])
        if result < 0 and variance and excess / variance ** 0.5 < sigmas:
            continue
        kept.append(record)
        excess += result - expected
        variance += var
    assert excess / variance ** 0.5 >= sigmas
    return kept


def records_with_results(seed, hands):
    import random

    from game.edge import play_hands

    for result in play_hands(RULES, seats=SEATS, hands=hands, rng=random.Random(f"session-{seed}"), record=True):
        yield result.record, result.bets


def test_a_bank_winning_4_sigma_above_expectation_with_one_dealer_is_found(staff, edge):
    table = simulated_table("Mesa A", staff)
    honest, dealer2 = staff["dealer"], UserFactory(username="dealer2", roles=["dealer"])
    play_shift(table, honest, staff["supervisor"], records(1, 300))
    play_shift(table, dealer2, staff["supervisor"], favouring_the_bank(edge, 420, 4.0, seed=2))
    today = timezone.localdate()
    report = report_of("banks", table, date_from=today, date_to=today)
    raise_alerts(report.pk)
    assert not Alert.objects.filter(kind__in=STATISTICAL).exists()  # the report's close: no statistical alert
    nightly_run(gaming_day(report.computed_at))
    dealer_alerts = Alert.objects.filter(kind="expected", code="dealer", subject=report.key)
    assert [a.evidence["group"] for a in dealer_alerts] == ["dealer2"]
    found = dealer_alerts.get()
    assert found.evidence["z"] >= 4.0 and found.evidence["actual"] > found.evidence["band"][1]
    assert found.evidence["combined_q"] < 0.01
    dealer2_hands = set(Hand.objects.filter(shift__dealer=dealer2).values_list("pk", flat=True))
    assert set(found.evidence["hand_ids"]) <= dealer2_hands and found.evidence["hand_total"] == len(dealer2_hands)
    assert (found.report_id, found.table_id) == (report.pk, table.pk)
    pairs = Alert.objects.filter(kind="pair")
    assert all("dealer1" not in (a.evidence["a"], a.evidence["b"]) for a in pairs)
    assert not Alert.objects.filter(kind="expected", evidence__group="dealer1").exists()


def stack_a_seven_for_the_bank(share):
    """A rig: in ``share`` of hands a 7 is put where the bank's initial card is dealt."""

    def rig(rng, stock, order):
        if rng.random() < share:
            bank_at = len(stock) - len(order)
            seven = next(i for i, code in enumerate(stock) if CARD_RANK[code] == 7)
            stock[bank_at], stock[seven] = stock[seven], stock[bank_at]
    return rig


def test_a_seven_stacked_for_the_bank_in_10_percent_of_hands_is_found(staff, edge, client):
    table = simulated_table("Mesa B", staff)
    shift = play_shift(table, staff["dealer"], staff["supervisor"],
                       records(11, 300, rig=stack_a_seven_for_the_bank(0.10)))
    report = report_of("shift", table, shift=shift)
    raise_alerts(report.pk)
    assert not Alert.objects.filter(kind__in=STATISTICAL).exists()  # the shift's close: no statistical alert
    nightly_run(gaming_day(shift.closed_at))
    cards = Alert.objects.get(kind="cards", code="first:bank", subject=report.key)
    assert cards.evidence["rank"] == 7 and cards.evidence["combined_q"] < 0.01
    sevens = cards.evidence["categories"][[c["rank"] for c in cards.evidence["categories"]].index(7)]
    assert sevens["observed"] > sevens["expected"] + 20
    # The hands in evidence are those where the bank's first card was a seven.
    first = {h.pk: h.cards[len(h.seats)] for h in Hand.objects.filter(pk__in=cards.evidence["hand_ids"])}
    assert first and all(card.startswith("7") for card in first.values())
    assert cards.shift_id == shift.pk and cards.report_id == report.pk
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:alert", args=[cards.pk])).content.decode()
    assert "Primeras cartas de la banca (spanish-40, 300 cartas): el 7 sale demasiado" in page
    table_rows = page.split('id="cards"')[1].split("</table>")[0]
    assert table_rows.count("<tr>") == 11  # the head and the ten ranks
    assert reverse("tables:hand_detail", args=[table.pk, Hand.objects.get(pk=cards.evidence["hand_ids"][0]).number]) \
        in page


def test_a_bank_sold_back_and_forth_between_two_players_is_found(staff, db):
    table = simulated_table("Mesa C", staff, holders=("ana", "luis"))
    ana, luis = Player.objects.get(code="ana"), Player.objects.get(code="luis")
    for buyer, price in ((luis, "4900.00"), (ana, "5000.00"), (luis, "300.00")):
        services.table_bank_sell(table=table, buyer=buyer, price=Decimal(price), capital=Decimal("5000.00"),
                                 by=staff["supervisor"])
        deposit_bank(table)
    today = timezone.localdate()
    report = report_of("banks", table, date_from=today, date_to=today)
    raise_alerts(report.pk)
    repeated = Alert.objects.get(kind="bank_changes", code="repeated_changes")
    assert repeated.evidence["players"] == ["ana", "luis"] and repeated.evidence["count"] == 3
    assert repeated.evidence["reversals"] == 2
    far = Alert.objects.get(kind="bank_changes", code="price_far_from_balance")
    assert (far.evidence["price"], far.evidence["balance"]) == (300.0, 5000.0)
    assert raise_alerts(report.pk) == 0  # found again: the same alerts


def test_twenty_honest_sessions_raise_no_false_alert_beyond_the_correction(staff, edge):
    """Each review alerts with probability at most 1% when all is honest: over 20, more
    than one review with an alert would happen less than 2% of the time."""
    table = simulated_table("Mesa D", staff)
    theory = Theory()
    alerted, tested = [], 0
    for seed in range(100, 120):
        shift = play_shift(table, staff["dealer"], staff["supervisor"], records(seed, 60))
        result = review(Hand.objects.filter(shift=shift), subject=f"shift:{shift.pk}", theory=theory)
        tested += len(result["tests"])
        if result["findings"]:
            alerted.append((seed, [(kind, code) for kind, code, _i, _e in result["findings"]]))
    assert tested >= 20 * 10  # the whole, the pairs, the cards: many tests in each review
    assert len(alerted) <= 1, alerted


def test_a_player_losing_his_large_stakes_to_the_same_bank_is_found(staff, edge):
    """s1 stakes 10.00 (the table's large bet) exactly in the hands he loses, 1.00 in the others."""
    table = simulated_table("Mesa E", staff)
    table.large_bet = Decimal("10.00")
    table.save(update_fields=["large_bet"])
    planted = []
    for record, bets in records_with_results(21, 150):
        if all(result > 0 for position, _stake, result in bets if position == 1):
            record = {**record, "events": [{**e, "amount": 10} if e.get("do") == "bet" and e.get("seat") == "s1"
                                           else e for e in record["events"]]}
        planted.append(record)
    shift = play_shift(table, staff["dealer"], staff["supervisor"], planted)
    report = report_of("shift", table, shift=shift)
    raise_alerts(report.pk)
    assert not Alert.objects.filter(kind__in=STATISTICAL).exists()
    nightly_run(gaming_day(shift.closed_at))
    found = Alert.objects.get(kind="large_losses")
    assert found.subject == report.key and found.shift_id == shift.pk and found.report_id == report.pk
    assert (found.evidence["player"], found.evidence["bank"]) == ("s1", "banca")
    assert found.evidence["lost"] == found.evidence["large_bets"] >= 40 and found.evidence["large_stake"] == 10.0
    lost = set(Hand.objects.filter(shift=shift, bets__player__code="s1", bets__stake=10).values_list("pk", flat=True))
    assert set(found.evidence["hand_ids"]) == lost
    # His large bets: one alert (one player, one gaming day, one shift) counting them all.
    large = Alert.objects.get(kind="large_bet")
    assert large.evidence["count"] == found.evidence["large_bets"] and large.evidence["player"] == "s1"
