"""The bank's edge (game/edge.py, ``manage.py edge``) under issue 32's options: a French
deck, the one-card cap with a strategy that stakes more on a card it stands on, and
splits of pairs. Every simulated hand goes through the engine, so a stake the cap
forbids would be refused there."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from game import Profile
from game.cards import FRENCH_SPELLINGS
from game.edge import (
    UNIT_CENTS,
    Strategy,
    bank_edge,
    default_strategy,
    describe_strategy,
    one_card_units,
    play_hands,
)
from game.payouts import settle
from game.record import play_record, read_header

#: The figures of an edge, without the rules and strategy that name how they were made.
FIGURES = ("hands", "abandoned", "bets", "units_staked", "mean_per_unit", "standard_error", "ci95",
           "sd_per_unit_hand", "sd_per_unit_bet", "within_hand_correlation", "bank_wins_bet")


def figures(edge):
    data = edge.as_dict()
    return {key: data[key] for key in FIGURES}


def records(rules, strategy, hands=300, seats=4, seed=1):
    import random

    return [hand.record for hand in play_hands(rules, seats=seats, hands=hands, rng=random.Random(seed),
                                               strategy=strategy, record=True)]


def test_a_french_table_has_the_spanish_tables_edge_card_for_card():
    """french-40 deals the same ranks in the same order of codes as spanish-40: the same
    seed plays the same hands, only the cards' names differ."""
    french = {"profile": "reglamento", "deck": "french-40"}
    assert figures(bank_edge(french, seats=3, hands=2000, seed=5)) == figures(
        bank_edge("reglamento", seats=3, hands=2000, seed=5))
    for record in records(french, default_strategy(french), hands=100):
        assert all(e["card"] in FRENCH_SPELLINGS for e in record["events"] if "card" in e)
        settle(play_record(record))


def test_a_stake_on_a_card_it_stands_on_is_held_to_the_one_card_cap():
    """profesional caps a one-card stand at 2 × min_bet: a strategy of 5 units plays 2,
    exactly as 2 units at a table without the cap; with the cap at 1 it plays 1, the
    default strategy's edge."""
    five = default_strategy("profesional", one_card_units=5)
    uncapped = {"profile": "profesional", "one_card_stand_max": None}
    assert one_card_units(Profile.from_rules("profesional"), five) == 2
    assert figures(bank_edge("profesional", seats=4, hands=2000, seed=5, strategy=five)) == figures(
        bank_edge(uncapped, seats=4, hands=2000, seed=5, strategy=default_strategy("profesional", one_card_units=2)))
    capped_at_one = {"profile": "profesional", "one_card_stand_max": 1}
    assert figures(bank_edge(capped_at_one, seats=4, hands=2000, seed=5, strategy=five)) == figures(
        bank_edge(capped_at_one, seats=4, hands=2000, seed=5))
    assert (bank_edge("profesional", seats=4, hands=2000, seed=5, strategy=five).units_staked
            > bank_edge("profesional", seats=4, hands=2000, seed=5).units_staked)


def test_every_simulated_one_card_stand_is_within_the_cap_and_some_are_at_it():
    at_cap = 0
    for record in records("profesional", default_strategy("profesional", one_card_units=5)):
        state = read_header(record)
        for event in record["events"]:
            if event["do"] == "stand" and event["seat"].startswith("s"):
                hand = state.current_hand()
                if len(hand.cards) == 1:
                    assert hand.stake <= 2 * UNIT_CENTS
                    at_cap += hand.stake == 2 * UNIT_CENTS
            state.apply(event)
        settle(state)
    assert at_cap > 50


def test_the_strategy_says_how_much_it_stakes_on_one_card():
    profesional = Profile.from_rules("profesional")
    text = describe_strategy(profesional, default_strategy(profesional, one_card_units=5))
    assert "A hand whose one card reaches the threshold stands on it with 2 units." in text
    assert "one card" not in describe_strategy(profesional, default_strategy(profesional))
    assert default_strategy(profesional, one_card_units=3).as_dict()["one_card_units"] == 3
    assert "one_card_units" not in default_strategy(profesional).as_dict()
    for units in (0, 11, 1.5, True):
        with pytest.raises(ValueError, match="one_card_units"):
            Strategy(one_card_units=units)


def test_the_edge_splits_pairs_where_the_table_agreed_it_a_pair_over_seven_and_a_half_too():
    rules = {"profile": "reglamento", "split_pairs": True, "max_hands": None}
    text = describe_strategy(Profile.from_rules(rules), default_strategy(rules))
    assert "Halves and pairs are split whenever allowed, a pair over 7½ too." in text
    pairs = over = 0
    for record in records(rules, default_strategy(rules, stand_at=12), hands=400):  # draws below 6: on a 4 too
        state = read_header(record)
        for event in record["events"]:
            if event["do"] == "split":
                over += state.pair_split is not None
                hand = state.current_hand() if state.pair_split is None else state.seat(
                    state.pair_split[0]).hands[state.pair_split[1] - 1]
                pairs += hand.points != 2
            state.apply(event)
        settle(state)
    assert pairs > 20 and over > 5
    edge = bank_edge(rules, seats=4, hands=2000, seed=3)
    assert edge.ci95[0] < edge.mean_per_unit < edge.ci95[1]


def test_the_command_knows_the_deck_and_the_one_card_strategy():
    out, err = StringIO(), StringIO()
    call_command("edge", "--rules", '{"profile": "profesional", "deck": "french-40"}', "--seats", "2",
                 "--hands", "300", "--seed", "4", "--strategy", '{"one_card_units": 3}', stdout=out, stderr=err)
    printed = json.loads(out.getvalue())
    rules = {"profile": "profesional", "deck": "french-40"}
    assert printed == bank_edge(rules, seats=2, hands=300, seed=4,
                                strategy=default_strategy(rules, one_card_units=3)).as_dict()
    assert printed["strategy"]["one_card_units"] == 3 and "with 2 units" in printed["strategy_text"]
