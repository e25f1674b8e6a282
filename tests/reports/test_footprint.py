"""The footprint test of a feeding dealer (``reports.pooling.footprint_tests``) on its own,
without a database: calibrated when the group's hands and the baseline share one rate
(whatever that rate and however small the baseline), and it finds a group fed its way."""

import random

from reports.pooling import footprint_tests


def one_group(hands, hits, base, base_hits):
    """``footprint_tests``' input for one player (id 7) in one group (dealer 1) of one rule set."""
    return {"player": {(0, 7): [hands + base, hits + base_hits]},
            "groups": {("dealer×player", 1, 7): {"by_edge": {0: [hands, hits]}, "hands": hands, "hits": hits}},
            "names": {}}


def p_value(hands, hits, base, base_hits):
    return footprint_tests(one_group(hands, hits, base, base_hits))[("dealer×player", 1, 7)]["p_value"]


def test_a_small_baseline_low_by_chance_is_no_alert():
    """Seen at an honest table (benchmarks/detection.py, seats at 4): 18 of a pair's 50 hands
    against 5 of the player's 50 others. Against the baseline's own rate (0.1) it read z 4.2,
    p 1.5e-5, an alert in a run of 200 tests; both samples together put it at p ≈ 0.002."""
    assert 0.001 < p_value(50, 18, 50, 5) < 0.005


def test_honest_groups_alert_at_most_as_often_as_the_level():
    rng = random.Random(20261129)
    for rate, base in ((0.1, 50), (0.32, 50), (0.32, 400), (0.5, 30)):
        trials = 2000
        low = sum(p_value(50, sum(rng.random() < rate for _ in range(50)), base,
                          sum(rng.random() < rate for _ in range(base))) < 0.01 for _ in range(trials))
        assert low <= 0.01 * trials + 3 * (0.01 * trials) ** 0.5, (rate, base, low)


def test_a_group_fed_in_a_fifth_of_its_hands_stands_out():
    """150 hands, a fifth of them dealt until the player wins with 7½ or the bank bust
    (the issue's rig; honest rate 0.32), against 1,000 of the other players' hands: found at
    1% in most draws."""
    rng = random.Random(7)
    found = 0
    for _ in range(200):
        hits = sum(rng.random() < 0.2 or rng.random() < 0.32 for _ in range(150))
        found += p_value(150, hits, 1000, sum(rng.random() < 0.32 for _ in range(1000))) < 0.01
    assert found > 150
