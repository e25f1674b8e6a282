"""The review's sums aggregated in PostgreSQL (``reports.detection.Sums``) against a
straightforward Python computation over the same hands' bets, read one by one
(``detection.bet_rows``) and given to the row-level statistics (``expected_vs_actual``
with each hand's ``hand_variance``, ``pair_analysis``, ``large_losses``, ``funnel``).

The hands: two tables with different rules (two theories), two dealers, two bank holders
(three tenures), voided hands left out, and a random subset of them."""

import random
from collections import defaultdict
from decimal import Decimal

import pytest

from game.edge import bank_edge, hand_variance
from patrons.models import Player
from reports import statistics as S
from reports.detection import EVIDENCE_LIMIT, Sums, Theory, bet_rows, edge_store, review
from tables import services
from tables.models import Hand
from tests.factories import UserFactory
from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

OTHER_RULES = {"profile": "reglamento", "bank_passes_on_natural": False, "commission_rate": "0.05"}


@pytest.fixture
def hands(db, staff):
    """About 300 settled hands at two tables, some voided; the theory of both stored."""
    for rules, seed in ((RULES, 31), (OTHER_RULES, 32)):
        edge_store(rules=rules, seats=SEATS, hands=3000, seed=seed,
                   result=bank_edge(rules, seats=SEATS, hands=3000, seed=seed).as_dict())
    dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    first = simulated_table("Mesa S1", staff, holders=("banca", "otra"))
    play_shift(first, staff["dealer"], staff["supervisor"], records(41, 90))
    services.table_bank_transfer(table=first, holder=Player.objects.get(code="otra"), capital=Decimal("5000.00"),
                                 by=staff["supervisor"])
    play_shift(first, dealer2, staff["supervisor"], records(42, 90))
    services.table_bank_transfer(table=first, holder=Player.objects.get(code="banca"), capital=Decimal("5000.00"),
                                 by=staff["supervisor"])
    play_shift(first, staff["dealer"], staff["supervisor"], records(43, 60))
    second = simulated_table("Mesa S2", staff, holders=("banca",), rules=OTHER_RULES)
    play_shift(second, dealer2, staff["supervisor"], records(44, 70, rules=OTHER_RULES))
    for hand in Hand.objects.filter(status=Hand.Status.SETTLED).order_by("id")[5::37]:
        services.hand_void(hand=hand, reason="test: voided", voided_by=staff["supervisor"])
    rng = random.Random(17)
    ids = list(Hand.objects.values_list("pk", flat=True))
    return Hand.objects.filter(pk__in=rng.sample(ids, k=len(ids) * 4 // 5))


def by_python(hands, theory):
    """The sums read bet by bet, as the review computed them before its SQL."""
    rows = bet_rows(hands)
    per_hand = defaultdict(list)
    for row in rows:
        per_hand[row["hand"]].append(row)

    def group(items):
        stakes, results, means, variances = [], [], [], []
        for bets in items.values():
            edge = theory(bets[0]["rules"], bets[0]["seats"])
            cents = [float(r["stake"]) * 100 for r in bets]
            stakes.append(sum(cents))
            results.append(sum(float(r["bank_result"]) * 100 for r in bets))
            means.append(edge["mean_per_unit"])
            variances.append(hand_variance(cents, edge["sd_per_unit_bet"], edge["within_hand_correlation"]))
        return S.expected_vs_actual(stakes, results, mean=means, variances=variances)

    groups = {("all", None): (group(per_hand), sorted(per_hand))}
    for field in ("tenure", "dealer"):
        found = defaultdict(dict)
        for hand, bets in per_hand.items():
            found[bets[0][field]][hand] = bets
        for name, items in found.items():
            groups[(field, name)] = (group(items), sorted(items))
    first = theory(rows[0]["rules"], rows[0]["seats"])
    pair_rows = [{**row, "mean": theory(row["rules"], row["seats"])["mean_per_unit"],
                  "sd": theory(row["rules"], row["seats"])["sd_per_unit_bet"]} for row in rows]
    pairs = S.pair_analysis(pair_rows, mean=0, sd=0, rho=first["within_hand_correlation"], min_hands=30)
    losses = S.large_losses(rows, p_lose=first["bank_wins_bet"])
    shifts = dict(hands.values_list("pk", "shift_id"))
    funnel_groups = defaultdict(lambda: defaultdict(lambda: [0.0, 0.0]))
    for row in rows:
        totals = funnel_groups[shifts[row["hand"]]][row["hand"]]
        totals[0] += float(row["stake"])
        totals[1] += float(row["bank_result"])
    funnel = S.funnel({g: ([v[0] for v in h.values()], [v[1] for v in h.values()]) for g, h in funnel_groups.items()},
                      mean=first["mean_per_unit"], sd=first["sd_per_unit_hand"])
    return {"rows": rows, "groups": groups, "pairs": pairs, "losses": losses, "funnel": funnel, "first": first}


def close(a, b):
    return a == pytest.approx(b, rel=1e-9, abs=1e-6)


def test_the_sql_sums_are_the_python_sums_over_a_random_set_of_hands(hands):
    theory = Theory(compute=False)
    expected = by_python(hands, theory)
    assert len({(r["rules"]["profile"], r["rules"].get("commission_rate")) for r in expected["rows"]}) == 2
    assert Hand.objects.filter(status=Hand.Status.VOIDED).exists()
    sums = Sums(hands, theory)
    assert sums.counts() == (len(expected["groups"][("all", None)][1]), len(expected["rows"]))

    groups = sums.groups()
    assert set(groups) == set(expected["groups"])
    assert len([key for key in groups if key[0] == "tenure"]) == 4  # three tenures at the first table, one at the second
    for key, (figures, ids) in expected["groups"].items():
        got = S.expected_vs_actual_sums(**{name: groups[key][name] for name in
                                           ("hands", "staked", "actual", "expected", "variance", "stake_squares")})
        for name in ("hands", "staked", "actual", "expected", "sd", "effective_hands", "z", "p_value"):
            assert close(got[name], figures[name]), (key, name)
        assert groups[key]["hand_ids"] == ids[:EVIDENCE_LIMIT] and groups[key]["hand_total"] == len(ids)

    # Each pair's variance holds the theory's uncertainty, (Σ u · stake)² with u the edge's standard
    # error (the honest hands fit the default strategy: no neighbour widens it): taken out, the sampling's.
    sql_pairs = sums.pairs(expected["first"]["within_hand_correlation"])
    columns = {"dealer×bank": ("dealer", "bank"), "dealer×player": ("dealer", "player"),
               "bank×player": ("bank", "player")}
    for pair in sql_pairs:
        first_column, second_column = columns[pair["kind"]]
        theory_sd = sum(theory(r["rules"], r["seats"])["standard_error"] * float(r["stake"])
                        for r in expected["rows"] if (r[first_column], r[second_column]) == (pair["a"], pair["b"]))
        assert theory_sd > 0 and close(pair["theory_sd"], theory_sd)
        pair["variance"] -= pair["theory_sd"] ** 2
    pairs = S.pair_figures(sql_pairs, min_hands=30)
    assert pairs["tested"] == expected["pairs"]["tested"] > 0
    want = {(p["kind"], p["a"], p["b"]): p for p in expected["pairs"]["pairs"]}
    assert {(p["kind"], p["a"], p["b"]) for p in pairs["pairs"]} == set(want)
    for pair in pairs["pairs"]:
        other = want[(pair["kind"], pair["a"], pair["b"])]
        for name in ("hands", "bets", "staked", "actual", "expected", "sd", "z", "p_value", "q_value"):
            assert (pair[name] is None and other[name] is None) or close(pair[name], other[name]), name
        assert pair["evidence"] == other["evidence"][:EVIDENCE_LIMIT] and pair["hand_total"] == len(other["evidence"])

    threshold, large = sums.large_losses()
    losses = S.large_loss_figures(large, p_lose=expected["first"]["bank_wins_bet"], large_stake=threshold)
    assert close(losses["large_stake"], expected["losses"]["large_stake"])
    assert [(p["player"], p["bank"], p["large_bets"], p["lost"], p["evidence"]) for p in losses["pairs"]] == [
        (p["player"], p["bank"], p["large_bets"], p["lost"], p["evidence"]) for p in expected["losses"]["pairs"]]
    for got, want_pair in zip(losses["pairs"], expected["losses"]["pairs"], strict=True):
        for name in ("amount_lost", "share", "p_value", "q_value"):
            assert close(got[name], want_pair[name]), name
    assert any(p["lost"] for p in losses["pairs"])

    funnel = S.funnel_sums(sums.funnel("shift"), mean=expected["first"]["mean_per_unit"],
                           sd=expected["first"]["sd_per_unit_hand"])
    assert len(funnel["points"]) == len(expected["funnel"]["points"]) == 4
    for got, want_point in zip(funnel["points"], expected["funnel"]["points"], strict=True):
        assert got["id"] == want_point["id"]
        for name in ("hands", "effective_hands", "staked", "per_unit", "z", "p_value"):
            assert close(got[name], want_point[name]), name


def test_the_review_of_no_settled_hand_is_its_card_tests_alone(hands):
    nothing = Hand.objects.filter(status=Hand.Status.VOIDED)
    sums = Sums(nothing, Theory(compute=False))
    assert sums.empty and sums.groups() == {} and sums.pairs(0.1) == [] and sums.counts() == (0, 0)
    result = review(nothing, subject="voided", theory=Theory(compute=False), card_observations={})
    assert result == {"tests": [], "untested": [], "findings": []}
