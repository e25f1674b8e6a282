"""``split_pairs``: two cards of equal points split as two halves do, within
``max_hands``; a pair over 7½ is judged only after the choice to split it. [rules.md
"Split of equal cards"; seed 001: "a menos que se haya pactado previamente"]"""

import pytest

from game import HandState, IllegalEvent, Profile
from game.record import play_record
from tests.hands import event, nets, record, settled

PAIRS = {"profile": "reglamento", "split_pairs": True}
TWO = dict(seats=["luis", "marta"])


def refused(*lines, **options):
    with pytest.raises(IllegalEvent) as caught:
        play_record(record(*lines, **options))
    return caught.value


def table(*lines, rules=PAIRS, seats=("luis", "marta"), max_bet=10000):
    state = HandState(Profile.from_rules(rules), 500, max_bet, "ana", list(seats))
    for line in lines:
        state.apply(event(line))
    return state


def test_two_fives_split_like_two_halves():
    # p18: 5 + ½ = 5½ and 5 + 2 = 7 beat the bank's 5; marta's 5 ties it.
    s = settled("luis deal 5O", "marta deal 2C", "bank deal 4E", "luis bet 10", "luis card 5C", "luis split",
                "luis card 10B", "luis stand", "luis bet 20", "luis card 2E", "luis stand", "marta bet 10",
                "marta card 3E", "marta stand", "bank card 1B", "bank stand", rules=PAIRS, **TWO)
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("luis", "luis", 2): ("win", 1, 2000),
                       ("marta", "marta", 1): ("lose", 1, -1000)}


def test_without_the_option_only_halves_split():
    error = refused("luis deal 3O", "bank deal 4E", "luis bet 10", "luis card 3C", "luis split")
    assert (error.event, error.rule) == (5, "split")
    assert "half" in error.message
    s = settled("luis deal 11O", "bank deal 4E", "luis bet 10", "luis card 10C", "luis split", "luis card 6O",
                "luis stand", "luis bet 10", "luis card 3O", "luis stand", "bank card 1B", "bank stand",
                rules=PAIRS)
    assert [b.points for b in s.bets] == [13, 7]  # halves still split with the option on


@pytest.mark.parametrize("lines", [
    ("luis card 2C", "luis split"),  # 3 and 2: not of the same points
    ("luis card 1C", "luis card 1B", "luis split"),  # a 1 onto 3 + 1: not onto a lone card
    ("luis card 3C", "luis card 1C", "luis split"),  # the pair was not split at once
])
def test_a_split_needs_a_card_of_the_same_points_just_drawn_onto_a_lone_card(lines):
    error = refused("luis deal 3O", "bank deal 4E", "luis bet 10", *lines, rules=PAIRS)
    assert (error.event, error.rule) == (3 + len(lines), "split")
    assert "same points" in error.message


def test_every_consecutive_equal_card_may_open_a_hand_within_max_hands():
    rules = {**PAIRS, "max_hands": 3}
    s = settled("luis deal 3O", "bank deal 4E", "luis bet 10", "luis card 3C", "luis split", "luis card 3E",
                "luis split", "luis card 1B", "luis stand", "luis bet 10", "luis stand", "luis bet 10",
                "luis card 2B", "luis stand", "bank card 1O", "bank stand", rules=rules)
    assert [(b.hand, b.points) for b in s.bets] == [(1, 8), (2, 6), (3, 10)]
    error = refused("luis deal 3O", "bank deal 4E", "luis bet 10", "luis card 3C", "luis split",
                    "luis card 3E", "luis split", "luis card 3B", "luis split", rules=rules)
    assert (error.event, error.rule) == (9, "max_hands")


def test_a_pair_over_seven_and_a_half_split_at_once_plays_on_as_two_hands():
    s = settled("luis deal 4O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 4C", "luis split",
                "luis card 2E", "luis stand", "luis bet 10", "luis card 3B", "luis stand", "marta bet 10",
                "marta stand", "bank card 1O", "bank stand", rules=PAIRS, **TWO)
    assert nets(s) == {("luis", "luis", 1): ("lose", 1, -1000), ("luis", "luis", 2): ("win", 1, 1000),
                       ("marta", "marta", 1): ("lose", 1, -1000)}


def test_a_pair_over_seven_and_a_half_not_split_by_the_next_event_is_bust():
    s = settled("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 7C", "marta bet 10",
                "marta stand", "bank card 1O", "bank stand", rules=PAIRS, **TWO)
    assert nets(s)[("luis", "luis", 1)] == ("bust", 1, -1000)
    # Its seat's turn is over: neither a card nor a stand, nor a split after another event.
    for after in ("luis card 1C", "luis stand"):
        error = refused("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 7C", after,
                        rules=PAIRS, **TWO)
        assert (error.event, error.rule) == (6, "turn")
    error = refused("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 7C", "marta bet 10",
                    "luis split", rules=PAIRS, **TWO)
    assert (error.event, error.rule) == (7, "turn")


def test_a_pair_over_seven_and_a_half_may_end_the_record_bust():
    s = settled("luis deal 6O", "bank deal 5E", "luis bet 10", "luis card 6C", rules=PAIRS)
    assert nets(s) == {("luis", "luis", 1): ("bust", 1, -1000)} and s.bank_points == 10


def test_a_pair_over_seven_and_a_half_without_room_to_split_is_bust_at_once():
    rules = {**PAIRS, "max_hands": 1}
    state = table("luis deal 6O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 6C", rules=rules)
    assert state.legal().pair_split is None and state.actor == "marta"
    with pytest.raises(IllegalEvent) as caught:
        state.apply(event("luis split"))
    assert caught.value.rule == "max_hands"


def test_the_split_of_a_pair_over_is_offered_to_the_console_while_the_next_seat_is_in_turn():
    state = table("luis deal 6O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 6C")
    legal = state.legal()
    assert legal.pair_split == ("luis", 1)
    assert legal.actor == "marta" and legal.bet == (500, 10000)  # what comes if it is not split
    assert state.seat("luis").hands[0].status == "bust" and state.complete is False
    state.apply(event("luis split"))
    legal = state.legal()
    assert legal.pair_split is None and (legal.actor, legal.hand) == ("luis", 1)
    assert [h.points for h in state.seat("luis").hands] == [12, 12]
    assert legal.draw and legal.stand


def test_a_refused_event_after_a_pair_over_leaves_its_split_open():
    state = table("luis deal 6O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 6C")
    with pytest.raises(IllegalEvent):
        state.apply(event("marta card 3C"))  # marta has no stake yet
    assert state.legal().pair_split == ("luis", 1)
    state.apply(event("marta bet 10"))
    assert state.legal().pair_split is None and state.seat("luis").hands[0].status == "bust"


def test_the_console_offers_the_split_of_a_pair_only_where_the_table_agreed_it():
    lines = ("luis deal 3O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 3C")
    assert table(*lines).legal().split
    assert not table(*lines, rules="reglamento").legal().split


def test_a_seven_left_by_a_split_is_neither_fusilado_nor_muerto():
    rules = {**PAIRS, "max_hands": None}
    error = refused("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 7C", "luis split",
                    "luis fusilar 10B", rules=rules)
    assert (error.event, error.rule) == (6, "fusilar")
    rules = {"profile": "profesional", "split_pairs": True, "max_hands": 2, "loca": False}
    error = refused("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 7C", "luis split",
                    "luis muerto 10B 10", rules=rules, bank="banca")
    assert (error.event, error.rule) == (6, "muerto")


def test_a_split_pair_settles_hand_by_hand_with_side_bets_on_the_first():
    rules = {**PAIRS, "side_bets": True}
    s = settled("luis deal 2O", "bank deal 5E", "luis bet 10 by pepe", "luis bet 10", "luis card 2C",
                "luis split", "luis card 4B", "luis stand", "luis bet 30", "luis card 5B", "luis stand",
                "bank card 1O", "bank stand", rules=rules)
    assert nets(s) == {("luis", "luis", 1): ("lose", 1, -1000), ("luis", "luis", 2): ("win", 1, 3000),
                       ("pepe", "luis", 1): ("lose", 1, -1000)}
