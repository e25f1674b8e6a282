"""``one_card_stand_max``: a seat's hand standing on a single card carries at most
k × ``min_bet`` (profesional: 2); side bets, fusilado and muerto hands and la loca are
outside it. Stored hands played before profesional had the cap keep their meaning
(``profiles.pin_earlier_values``). [rules.md "One-card stand"; seed 003]"""

import pytest

from game import HandState, IllegalEvent, Profile
from game.payouts import settle
from game.profiles import EARLIER_VALUES, PROFILES, pin_earlier_values
from game.record import play_record
from tests.hands import event, nets, record, settled

PRO = dict(rules="profesional", bank="banca")
#: profesional without la loca, for short records.
PRO_NO_LOCA = {"profile": "profesional", "loca": False}


def refused(*lines, **options):
    with pytest.raises(IllegalEvent) as caught:
        play_record(record(*lines, **options))
    return caught.value


def test_profesional_caps_a_one_card_stand_at_twice_the_minimum_and_the_others_do_not():
    assert PROFILES["profesional"].one_card_stand_max == 2
    assert {name: p.one_card_stand_max for name, p in PROFILES.items() if name != "profesional"} == {
        "tradicional": None, "reglamento": None, "americana": None}


def test_a_stand_on_the_initial_card_within_the_cap():
    # 003: "Si la carta es un seis o un siete, se permite al jugador doblar la apuesta mínima
    # sin pedir carta": 10 on a 6 at a table of 5.
    s = settled("luis deal 6O", "bank deal 5E", "luis bet 10", "luis stand", "bank card 1E", "bank stand",
                rules=PRO_NO_LOCA)
    assert nets(s) == {("luis", "luis", 1): ("lose", 1, -1000)}


def test_a_stand_on_one_card_above_the_cap_is_refused_naming_the_rule_and_the_figures():
    error = refused("luis deal 6O", "bank deal 5E", "luis bet 10.01", "luis stand", rules=PRO_NO_LOCA)
    assert (error.event, error.rule) == (4, "one_card_stand_max")
    assert error.message == ("a hand that stands on one card carries at most 10.00 (2 × the minimum bet of "
                             "5.00); luis has 10.01 on it: a card first")
    assert error.params == {"limit": "10.00", "times": 2, "min_bet": "5.00", "who": "luis", "stake": "10.01"}


def test_a_bigger_stake_draws_first_and_then_stands_as_it_likes():
    s = settled("luis deal 2O", "bank deal 5E", "luis bet 50", "luis card 4C", "luis stand", "bank stand",
                rules=PRO_NO_LOCA)
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 5000)}


@pytest.mark.parametrize("k, stake, ok", [(1, "5", True), (1, "5.01", False), (3, "15", True), (3, "16", False),
                                           (None, "100", True)])
def test_the_cap_is_k_times_the_minimum_or_none(k, stake, ok):
    rules = {"profile": "reglamento", "one_card_stand_max": k}
    lines = ("luis deal 6O", "bank deal 5E", f"luis bet {stake}", "luis stand", "bank stand")
    if ok:
        assert settled(*lines, rules=rules).bets[0].stake == int(float(stake) * 100)
    else:
        assert refused(*lines, rules=rules).rule == "one_card_stand_max"


def test_profesional_overridden_with_null_has_no_cap():
    s = settled("luis deal 6O", "bank deal 5E", "luis bet 100", "luis stand", "bank stand",
                rules={**PRO_NO_LOCA, "one_card_stand_max": None})
    assert s.bets[0].stake == 10000


@pytest.mark.parametrize("value", [0, -1, True, 2.0, "2", [2]])
def test_the_option_is_a_whole_number_from_one_or_null(value):
    error = refused("luis deal 6O", rules={"profile": "reglamento", "one_card_stand_max": value})
    assert (error.event, error.rule) == (0, "option") and "one_card_stand_max" in error.message


def test_a_raise_before_standing_counts_at_the_stand():
    rules = {"profile": "reglamento", "one_card_stand_max": 2}
    error = refused("luis deal 6O", "bank deal 5E", "luis bet 10", "luis bet 1", "luis stand", rules=rules)
    assert (error.event, error.rule) == (5, "one_card_stand_max") and "11.00" in error.message


def test_the_card_that_opened_a_split_hand_is_a_single_card_too():
    rules = {"profile": "reglamento", "one_card_stand_max": 1}
    opening = ("luis deal 11O", "bank deal 5E", "luis bet 5", "luis card 10C", "luis split", "luis card 6B",
               "luis stand", "luis bet 10")
    error = refused(*opening, "luis stand", rules=rules)
    assert (error.event, error.rule) == (9, "one_card_stand_max")
    # Split again onto a lone half, hand 1 holds one card again: its stake of 5 may stand.
    s = settled("luis deal 11O", "bank deal 5E", "luis bet 5", "luis card 10C", "luis split", "luis stand",
                "luis bet 5", "luis card 6B", "luis stand", "bank stand", rules={**rules, "max_hands": None})
    assert [(b.hand, b.points, b.stake) for b in s.bets] == [(1, 1, 500), (2, 13, 500)]


def test_side_bets_on_a_one_card_hand_are_not_capped():
    rules = {"profile": "reglamento", "one_card_stand_max": 1, "side_bets": True}
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 100 by pepe", "luis bet 5", "luis stand", "bank stand",
                rules=rules)
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 500), ("pepe", "luis", 1): ("win", 1, 10000)}


def test_fusilado_and_muerto_are_outside_the_cap():
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 50", "luis fusilar 11E", "bank stand",
                rules={"profile": "reglamento", "one_card_stand_max": 1})
    assert nets(s) == {("luis", "luis", 1): ("natural", 4, 20000)}
    # muerto's 7 alone stakes exactly 2 × min_bet whatever k is.
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 10", "luis muerto 11E 50", "bank stand",
                rules={**PRO_NO_LOCA, "one_card_stand_max": 1})
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("luis", "luis", 2): ("natural", 2, 10000)}


def test_la_loca_is_outside_the_cap():
    s = settled("bank deal 5O", "luis deal 2C", "loca deal 6O", "loca bet 100 by pepe", "luis bet 5", "luis card 5C",
                "luis stand", "loca stand", "bank stand", rules={"profile": "profesional", "one_card_stand_max": 1},
                bank="banca")
    assert nets(s)[("pepe", "loca", 1)] == ("win", 1, 10000)


def test_the_console_is_told_the_cap_and_offers_no_stand_above_it():
    state = HandState(Profile.from_rules(PRO_NO_LOCA), 500, 10000, "ana", ["luis"])
    for line in ("luis deal 6O", "bank deal 5E", "luis bet 15"):
        state.apply(event(line))
    legal = state.legal()
    assert legal.one_card_cap == 1000 and not legal.stand and legal.draw
    state.apply(event("luis card 1C"))
    legal = state.legal()
    assert legal.one_card_cap is None and legal.stand


# --------------------------------------------------------------------------- stored hands

STORED = record("luis deal 6O", "bank deal 5E", "luis bet 50", "luis stand", "bank card 1E", "bank stand",
                rules=PRO_NO_LOCA)


def test_a_stored_profesional_hand_above_the_cap_replays_as_recorded_with_its_rules_pinned():
    """A profesional hand entered before the cap (50 on a lone 6 at a table of 5) is
    refused by today's profesional; its rules pinned to the earlier value settle it as it
    was settled."""
    with pytest.raises(IllegalEvent) as caught:
        play_record(STORED)
    assert caught.value.rule == "one_card_stand_max"
    pinned = {**STORED, "rules": pin_earlier_values(STORED["rules"])}
    assert pinned["rules"] == {"profile": "profesional", "loca": False, "one_card_stand_max": None}
    assert nets(settle(play_record(pinned))) == {("luis", "luis", 1): ("lose", 1, -5000)}


@pytest.mark.parametrize("rules, pinned", [
    ("profesional", {"profile": "profesional", "one_card_stand_max": None}),
    ({"profile": "profesional"}, {"profile": "profesional", "one_card_stand_max": None}),
    ({"profile": "profesional", "side_bets": True}, {"profile": "profesional", "side_bets": True,
                                                     "one_card_stand_max": None}),
    ({"profile": "profesional", "one_card_stand_max": 3}, {"profile": "profesional", "one_card_stand_max": 3}),
    ("reglamento", "reglamento"),
    ({"profile": "tradicional", "deck": "spanish-36"}, {"profile": "tradicional", "deck": "spanish-36"}),
    ({"deck": "spanish-36"}, {"deck": "spanish-36"}),
    ("blackjack", "blackjack"),
])
def test_pinning_writes_only_the_earlier_values_a_profile_does_not_override(rules, pinned):
    assert pin_earlier_values(rules) == pinned


def test_pinned_profesional_is_profesional_as_it_was_before_the_cap():
    before = Profile.from_rules(pin_earlier_values("profesional"))
    assert before.one_card_stand_max is None
    assert before.replace(one_card_stand_max=2) == PROFILES["profesional"]


def test_every_earlier_value_is_an_option_of_its_profile_that_changed():
    for name, options in EARLIER_VALUES.items():
        for option, value in options.items():
            assert getattr(PROFILES[name], option) != value
            assert getattr(Profile.from_rules({"profile": name, option: value}), option) == value
