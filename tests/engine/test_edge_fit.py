"""The strategy fitted to a table's hands (issue 30, item 1): the seats' threshold and
options, the bank's play where free, the thresholds the choices cannot tell apart, and
the edge of a bank that stands at a fixed threshold. Pure Python, no database."""

import random

import pytest

from game import Profile
from game.edge import (
    MINORITY,
    Strategy,
    bank_edge,
    default_strategy,
    describe_strategy,
    fit_strategy,
    observed_bank_stand_at,
    observed_options,
    plausible_thresholds,
    play_hands,
)
from game.simulate import random_record

RULES = {"profile": "reglamento", "bank_passes_on_natural": False}


def played(strategy, hands=150, seed=1, rules=RULES):
    return [h.record for h in play_hands(rules, seats=4, hands=hands, rng=random.Random(seed), strategy=strategy,
                                         record=True)]


@pytest.mark.parametrize("stand_at", [8, 10, 12, 13])
def test_the_fit_of_honest_play_is_the_strategy_it_was_played_with(stand_at):
    """Seats standing at 4, 5, 6 and 6½ points, the bank replying to what it sees."""
    strategy = default_strategy(RULES, stand_at=stand_at)
    fit = fit_strategy(played(strategy, seed=stand_at))
    assert fit["strategy"] == strategy and fit["hands"] == 150
    assert fit["seats"]["agreement"] == 1.0 and fit["seats"]["plausible"] == [stand_at]
    assert fit["neighbours"] == []  # every choice agrees: nothing else is plausible
    assert fit["bank"]["reply_agreement"] == 1.0 and fit["bank"]["choices"] > 50


def test_a_bank_that_stands_at_a_fixed_threshold_is_fitted_as_one():
    strategy = default_strategy(RULES, stand_at=11, bank_stand_at=10)
    fit = fit_strategy(played(strategy, hands=200))
    assert fit["strategy"].bank_stand_at == 10 and fit["strategy"].stand_at == 11
    assert fit["bank"]["agreement"] == 1.0 and fit["bank"]["reply_agreement"] < 0.95
    assert "draws below 5 points and stands at 5 or more" in describe_strategy(Profile.from_rules(RULES),
                                                                                fit["strategy"])


def test_the_options_used_are_counted_against_those_offered():
    never = default_strategy(RULES, split=False, exchange_fours="mandatory")
    options = observed_options(played(never))
    assert options["split"][0] > 10 and options["split"][1] == 0
    assert options["exchange"][0] > 10 and options["exchange"][1] == 0
    fit = fit_strategy(played(never))
    assert not fit["strategy"].split and fit["strategy"].exchange_fours == "mandatory"
    fusilar = fit_strategy(played(default_strategy(RULES, fusilar=True)))
    assert fusilar["strategy"].fusilar and fusilar["options"]["fusilar"][1] == fusilar["options"]["fusilar"][0]


def test_mixed_choices_make_the_neighbouring_thresholds_plausible():
    draws, stands = [0] * 16, [0] * 16
    for p in range(10):
        draws[p] = 40
    for p in range(10, 15):
        stands[p] = 40
    assert plausible_thresholds(10, draws, stands) == [10]
    draws[10], stands[10] = 15, 25  # at 5 points 37% draw: 5½ is plausible
    assert plausible_thresholds(10, draws, stands) == [10, 11]
    draws[9], stands[9] = 31, 9  # at 4½ points 22% stand (under MINORITY): 4½ is not
    assert 9 / 40 < MINORITY and plausible_thresholds(10, draws, stands) == [10, 11]
    draws[11], stands[11] = 20, 20  # at 5½ half draw: 6 is plausible too
    draws[12], stands[12] = 20, 20  # and at 6, but the range stops 2 half-points away
    assert plausible_thresholds(10, draws, stands) == [10, 11, 12]
    draws[10], stands[10] = 1, 2  # at 5 three choices only: nothing to tell them apart
    assert plausible_thresholds(10, draws, stands) == [10]


def test_random_players_fit_with_a_plausible_range_and_the_bank_is_counted():
    rng = random.Random(8)
    records = [random_record(rng, rules="reglamento") for _ in range(200)]
    fit = fit_strategy(records)
    assert fit["seats"]["agreement"] < 0.95 and len(fit["seats"]["plausible"]) >= 2
    assert {n.stand_at for n in fit["neighbours"]} | {fit["strategy"].stand_at} >= set(fit["seats"]["plausible"])
    bank = observed_bank_stand_at(records)
    assert bank["choices"] > 20 and bank["reply_agreement"] is not None


def test_a_bank_standing_higher_wins_more_and_its_strategy_reads_back():
    low = bank_edge(RULES, seats=4, hands=3000, seed=3, strategy=default_strategy(RULES, bank_stand_at=8))
    best = bank_edge(RULES, seats=4, hands=3000, seed=3)
    assert low.mean_per_unit < best.mean_per_unit  # a bank standing at 4 points whatever it sees does worse
    assert low.strategy["bank_stand_at"] == 8 and "bank_stand_at" not in best.strategy
    assert Strategy(**low.strategy) == default_strategy(RULES, bank_stand_at=8)
    with pytest.raises(ValueError, match="bank_stand_at"):
        Strategy(bank_stand_at=16)
    with pytest.raises(ValueError, match="exchange_fours"):
        Strategy(exchange_fours="sometimes")
