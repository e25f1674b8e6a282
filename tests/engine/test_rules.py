"""Each rule of rules.md on its own, through the engine (no database).

Every refusal is asserted by its event number and its rule code, the way ``manage.py
settle`` reports it.
"""

import pytest

from game.errors import IllegalEvent
from game.record import play_record
from tests.hands import nets, record, settled


def refused(*lines, **options):
    """The IllegalEvent a record written as table talk raises."""
    with pytest.raises(IllegalEvent) as caught:
        play_record(record(*lines, **options))
    return caught.value


# --------------------------------------------------------------------------- deal

def test_every_initial_card_is_dealt_before_play():
    error = refused("luis deal 5O", "luis bet 10", "bank deal 2E")
    assert (error.event, error.rule) == (2, "deal")
    assert "bank" in error.message


def test_a_seat_gets_one_initial_card():
    error = refused("luis deal 5O", "luis deal 6O")
    assert (error.event, error.rule) == (2, "deal")


def test_la_loca_is_dealt_only_where_it_is_played():
    error = refused("luis deal 5O", "loca deal 6O", "bank deal 2E")
    assert (error.event, error.rule) == (2, "loca")


def test_la_loca_must_be_dealt_where_it_is_played():
    error = refused("luis deal 5O", "bank deal 2E", "luis bet 10", rules="profesional")
    assert (error.event, error.rule) == (3, "deal")
    assert "loca" in error.message


def test_a_deal_to_a_stranger_is_refused():
    error = refused("pepe deal 5O")
    assert (error.event, error.rule) == (1, "seat")


# --------------------------------------------------------------------------- cards

@pytest.mark.parametrize("card", ["8O", "9B", "13C", "0E", "7X", "", "O7", "7 O", "77O", " 7O", 7, None])
def test_no_such_card(card):
    rec = record("luis deal 5O", "bank deal 2E")
    rec["events"][0]["card"] = card
    with pytest.raises(IllegalEvent) as caught:
        play_record(rec)
    assert (caught.value.event, caught.value.rule) == (1, "card")


def test_letter_and_lower_case_forms_are_read():
    s = settled("luis deal sO", "bank deal 2e", "luis bet 10", "luis card cc", "luis card rb",
                "luis card 6B", "bank card 4E", "bank stand")
    # sota + caballo + rey = 1½, + 6 = 7½ -> natural, and the bank stood on 6.
    assert nets(s)[("luis", "luis", 1)] == ("natural", 2, 2000)


def test_a_card_is_not_dealt_twice():
    error = refused("luis deal 5O", "bank deal 5O")
    assert (error.event, error.rule) == (2, "card")


def test_spanish_36_has_no_sotas():
    error = refused("luis deal 5O", "bank deal 10E", rules={"profile": "reglamento", "deck": "spanish-36"})
    assert (error.event, error.rule) == (2, "deck")


def test_spanish_36_keeps_caballo_and_rey_as_halves():
    s = settled("luis deal 11O", "bank deal 5E", "luis bet 10", "luis card 12O", "luis card 6O",
                "luis stand", "bank stand", rules={"profile": "reglamento", "deck": "spanish-36"})
    assert s.bets[0].points == 14 and s.bets[0].result == "win"


# --------------------------------------------------------------------------- turns

def test_seats_play_in_order():
    error = refused("luis deal 3O", "marta deal 4C", "bank deal 2C", "marta bet 5", seats=["luis", "marta"])
    assert (error.event, error.rule) == (4, "turn")


def test_a_seat_cannot_come_back_after_its_turn():
    error = refused("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 5", "luis stand",
                    "marta bet 5", "luis card 5O", seats=["luis", "marta"])
    assert (error.event, error.rule) == (7, "turn")
    assert "over" in error.message


def test_the_bank_plays_last():
    error = refused("luis deal 3O", "bank deal 2C", "bank card 5O")
    assert (error.event, error.rule) == (3, "turn")


def test_nothing_after_the_hand_is_over():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand", "bank card 5O")
    assert (error.event, error.rule) == (6, "over")


def test_a_record_that_stops_early_is_a_fault_outside_the_events():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand")
    assert (error.event, error.rule) == (0, "unfinished")
    assert "bank" in error.message


# --------------------------------------------------------------------------- stakes

def test_a_hand_carries_a_stake_before_its_first_card():
    assert refused("luis deal 3O", "bank deal 2C", "luis card 5O").rule == "stake"


def test_a_hand_carries_a_stake_before_it_stands():
    assert refused("luis deal 3O", "bank deal 2C", "luis stand").rule == "stake"


@pytest.mark.parametrize("amount, rule", [("4.99", "min_bet"), ("100.01", "max_bet"), ("0", "amount"),
                                          ("5.001", "amount"), ("-5", "amount"), ("5.", "amount"),
                                          ("abc", "amount")])
def test_the_first_bet_is_within_the_limits(amount, rule):
    error = refused("luis deal 3O", "bank deal 2C", f"luis bet {amount}")
    assert (error.event, error.rule) == (3, rule)


@pytest.mark.parametrize("amount", [5.5, True, None, [5]])
def test_an_amount_is_a_string_or_a_whole_number(amount):
    rec = record("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand")
    rec["events"][2]["amount"] = amount
    with pytest.raises(IllegalEvent) as caught:
        play_record(rec)
    assert (caught.value.event, caught.value.rule) == (3, "amount")


def test_whole_number_amounts_are_read():
    rec = record("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand")
    rec["events"][2]["amount"] = 12
    assert play_record(rec).seats[0].hands[0].stake == 1200


def test_fixed_stake_is_exactly_the_minimum():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 20", rules="tradicional",
                    min_bet="10", max_bet="10")
    assert (error.event, error.rule) == (3, "fixed_stake")


def test_fixed_stake_has_no_raises():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 10", "luis bet 10", rules="tradicional",
                    min_bet="10", max_bet="50")
    assert (error.event, error.rule) == (4, "fixed_stake")


def test_a_raise_never_takes_the_stake_above_the_maximum():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 60", "luis card 1O", "luis bet 41")
    assert (error.event, error.rule) == (5, "max_bet")


def test_without_raise_on_stand_a_raise_must_be_followed_by_a_card():
    rules = {"profile": "reglamento", "raise_on_stand": False}
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 10", "luis card 1O", "luis bet 10",
                    "luis stand", rules=rules)
    assert (error.event, error.rule) == (6, "raise_on_stand")
    s = settled("luis deal 3O", "bank deal 2C", "luis bet 10", "luis card 1O", "luis bet 10",
                "luis card 2O", "luis stand", "bank stand", rules=rules)
    assert s.bets[0].stake == 2000


def test_with_raise_on_stand_a_raise_may_come_just_before_standing():
    s = settled("luis deal 3O", "bank deal 2C", "luis bet 10", "luis card 3C", "luis bet 15",
                "luis stand", "bank card 4C", "bank stand")
    assert nets(s)[("luis", "luis", 1)] == ("lose", 1, -2500)  # 6 against the bank's 6


# --------------------------------------------------------------------------- drawing

def test_a_hand_holds_at_most_one_face_down_card():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 10", "luis card 1O down")
    assert (error.event, error.rule) == (4, "face_down")


def test_after_turning_its_card_up_a_hand_may_get_the_next_face_down():
    s = settled("luis deal 3O", "bank deal 2C", "luis bet 10", "luis reveal", "luis card 1O down",
                "luis stand", "bank stand")
    assert s.bets[0].result == "win"


def test_with_face_up_no_card_is_face_down():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 10", "luis reveal", "luis card 1O down",
                    rules={"profile": "reglamento", "face_up": True})
    assert error.rule in ("reveal", "face_up")


def test_the_banks_cards_are_face_up():
    error = refused("luis deal 3O", "bank deal 2C", "luis bet 10", "luis stand", "bank card 1O down")
    assert (error.event, error.rule) == (5, "face_down")


def test_seven_and_a_half_stands_by_itself():
    error = refused("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 11B",
                    "luis stand", seats=["luis", "marta"])
    assert (error.event, error.rule) == (6, "turn")


def test_a_bust_hand_is_finished():
    s = settled("luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 1B",
                "marta bet 10", "marta stand", "bank stand", seats=["luis", "marta"])
    assert nets(s)[("luis", "luis", 1)] == ("bust", 1, -1000)


# --------------------------------------------------------------------------- splits

def test_a_half_on_a_lone_half_may_open_a_new_hand_with_its_own_stake():
    error = refused("luis deal 11O", "bank deal 3E", "luis bet 10", "luis card 10C", "luis split",
                    "luis card 6B", "luis stand", "luis card 5O")
    assert (error.event, error.rule) == (8, "stake")


def test_a_split_hand_may_split_again():
    s = settled("luis deal 11O", "bank deal 3E", "luis bet 10", "luis card 10C", "luis split",
                "luis card 6B", "luis stand", "luis bet 10", "luis card 12C", "luis split",
                "luis card 5O", "luis stand", "luis bet 5", "luis card 4O", "luis stand", "bank stand",
                rules={"profile": "reglamento", "max_hands": None})
    assert [(b.hand, b.points, b.result) for b in s.bets] == [(1, 13, "win"), (2, 11, "win"), (3, 9, "win")]


@pytest.mark.parametrize("lines", [
    ("luis deal 2O", "bank deal 3E", "luis bet 10", "luis card 10C", "luis split"),  # first card not a half
    ("luis deal 11O", "bank deal 3E", "luis bet 10", "luis card 2C", "luis split"),  # second card not a half
    ("luis deal 11O", "bank deal 3E", "luis bet 10", "luis card 10C", "luis bet 5", "luis split"),  # not at once
])
def test_a_split_needs_a_half_just_drawn_onto_a_lone_half(lines):
    error = refused(*lines)
    assert (error.event, error.rule) == (len(lines), "split")


def test_max_hands_limits_the_splits():
    error = refused("luis deal 11O", "bank deal 3E", "luis bet 10", "luis card 10C", "luis split",
                    rules={"profile": "reglamento", "max_hands": 1})
    assert (error.event, error.rule) == (5, "max_hands")


@pytest.mark.parametrize("seats, hands", [(3, 3), (4, 2), (5, 2), (6, 1)])
def test_max_hands_by_players(seats, hands):
    from game.profiles import PROFILES
    assert PROFILES["reglamento"].max_hands_for(seats) == hands


def test_by_players_with_four_seats_allows_one_split():
    names = ["luis", "marta", "pepe", "rosa"]
    lines = ["luis deal 11O", "marta deal 1C", "pepe deal 2C", "rosa deal 3C", "bank deal 3E",
             "luis bet 10", "luis card 10C", "luis split", "luis card 12C"]
    error = refused(*lines, "luis split", seats=names)
    assert (error.event, error.rule) == (10, "max_hands")


# --------------------------------------------------------------------------- exchange of fours

def test_an_initial_four_is_exchanged_before_betting():
    s = settled("luis deal 4O", "bank deal 6C", "luis exchange 4C", "luis exchange 7E", "luis bet 10",
                "luis stand", "bank stand")
    assert s.bets[0].points == 14


def test_the_returned_four_goes_back_into_the_stock():
    s = settled("luis deal 4O", "marta deal 2C", "bank deal 6C", "luis exchange 5E", "luis bet 10",
                "luis stand", "marta bet 10", "marta card 4O", "marta stand", "bank stand",
                seats=["luis", "marta"])
    assert nets(s)[("marta", "marta", 1)][0] == "lose"  # 6 against 6


@pytest.mark.parametrize("lines, event", [
    (("luis deal 4O", "bank deal 6C", "luis bet 10", "luis exchange 7E"), 4),  # after betting
    (("luis deal 5O", "bank deal 6C", "luis exchange 7E"), 3),  # not a 4
    (("luis deal 3O", "bank deal 6C", "luis bet 10", "luis card 4O", "luis exchange 7E"), 5),  # not initial
])
def test_only_an_initial_four_is_exchanged_before_betting(lines, event):
    error = refused(*lines)
    assert (error.event, error.rule) == (event, "exchange_fours")


def test_a_four_is_exchanged_at_most_four_times_in_a_row():
    lines = ["luis deal 4O", "marta deal 1C", "bank deal 6C", "luis exchange 4C", "luis exchange 4E",
             "luis exchange 4B", "luis exchange 4O"]
    error = refused(*lines, "luis exchange 4C", seats=["luis", "marta"])
    assert (error.event, error.rule) == (8, "exchange_fours")


def test_no_exchange_where_fours_are_not_exchanged():
    error = refused("luis deal 4O", "bank deal 6C", "luis exchange 7E",
                    rules={"profile": "reglamento", "exchange_fours": "off"})
    assert (error.event, error.rule) == (3, "exchange_fours")


def test_mandatory_exchange_forbids_keeping_an_initial_four():
    rules = {"profile": "reglamento", "exchange_fours": "mandatory"}
    error = refused("luis deal 4O", "bank deal 6C", "luis bet 10", rules=rules)
    assert (error.event, error.rule) == (3, "exchange_fours")
    s = settled("luis deal 4O", "bank deal 6C", "luis exchange 3E", "luis bet 10", "luis stand",
                "bank stand", rules=rules)
    assert s.bets[0].points == 6


# --------------------------------------------------------------------------- fusilar

def test_fusilar_with_a_half_pays_four_times():
    s = settled("luis deal 7O", "bank deal 4E", "luis bet 10", "luis fusilar 11E", "bank card 3O",
                "bank stand")
    assert nets(s)[("luis", "luis", 1)] == ("natural", 4, 4000)
    assert s.next_bank == "luis"


def test_fusilar_with_anything_else_is_bust():
    s = settled("luis deal 7O", "bank deal 4E", "luis bet 10", "luis fusilar 1E", "bank card 3O",
                "bank stand")
    assert nets(s)[("luis", "luis", 1)] == ("bust", 1, -1000)
    assert s.next_bank == "ana"


@pytest.mark.parametrize("lines, rule", [
    (("luis deal 7O", "bank deal 4E", "luis fusilar 11E"), "stake"),
    (("luis deal 6O", "bank deal 4E", "luis bet 10", "luis fusilar 11E"), "fusilar"),
    (("luis deal 1O", "bank deal 4E", "luis bet 10", "luis card 6O", "luis fusilar 11E"), "fusilar"),
])
def test_fusilar_is_a_bet_lone_seven(lines, rule):
    error = refused(*lines)
    assert (error.event, error.rule) == (len(lines), rule)


def test_no_fusilar_where_it_is_not_played():
    error = refused("luis deal 7O", "bank deal 4E", "luis bet 10", "luis fusilar 11E",
                    rules={"profile": "reglamento", "fusilar": False})
    assert (error.event, error.rule) == (4, "fusilar")


def test_a_fusilado_against_the_banks_natural_pays_the_natural_against_natural_multiplier():
    s = settled("luis deal 7O", "bank deal 7E", "luis bet 10", "luis fusilar 11E", "bank card 12O",
                rules={"profile": "reglamento", "bank_natural_vs_natural": 3})
    assert nets(s)[("luis", "luis", 1)] == ("lose", 3, -3000)


# --------------------------------------------------------------------------- muerto

def test_muerto_settles_the_seven_and_the_seven_plus_its_card_on_their_own():
    s = settled("bank deal 2O", "luis deal 7O", "loca deal 3B", "luis bet 10", "luis muerto 11E 30",
                "loca stand", "bank card 4C", "bank stand", rules="profesional")
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000),
                       ("luis", "luis", 2): ("natural", 2, 6000)}


def test_muerto_with_a_card_that_is_not_a_half_is_bust():
    s = settled("bank deal 2O", "luis deal 7O", "loca deal 3B", "luis bet 10", "luis muerto 1E 30",
                "loca stand", "bank card 4C", "bank stand", rules="profesional")
    assert nets(s)[("luis", "luis", 2)] == ("bust", 1, -3000)


def test_muerto_needs_exactly_twice_the_minimum_on_the_seven():
    error = refused("bank deal 2O", "luis deal 7O", "loca deal 3B", "luis bet 15", "luis muerto 11E 30",
                    rules="profesional")
    assert (error.event, error.rule) == (5, "muerto")


def test_muertos_stake_is_within_the_limits():
    error = refused("bank deal 2O", "luis deal 7O", "loca deal 3B", "luis bet 10", "luis muerto 11E 101",
                    rules="profesional")
    assert (error.event, error.rule) == (5, "muerto")


def test_no_muerto_where_it_is_not_played():
    error = refused("luis deal 7O", "bank deal 4E", "luis bet 10", "luis muerto 11E 10")
    assert (error.event, error.rule) == (4, "muerto")


# --------------------------------------------------------------------------- la loca

LOCA = dict(rules="profesional", bank="banca")


def test_la_loca_has_no_minimum_and_doubles_up_to_twice_the_first_stake():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 0.50 by pepe",
                    "luis bet 5", "luis stand", "loca card 1B", "loca bet 0.51 by pepe", **LOCA)
    assert (error.event, error.rule) == (8, "loca")


def test_bets_on_la_loca_close_when_its_card_is_seen():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "luis bet 5", "luis stand",
                    "loca card 1B", "loca bet 5 by rosa", **LOCA)
    assert (error.event, error.rule) == (7, "loca")


def test_a_bettors_bets_on_la_loca_before_its_turn_add_up_to_his_first_stake():
    # 5 + 5 before its turn make a first stake of 10, so pepe may bring it to 20 at its turn
    # (a first stake of 5 would allow 10 in all).
    s = settled("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 5 by pepe", "luis bet 5",
                "loca bet 5 by pepe", "luis stand", "loca bet 10 by pepe", "loca card 7B", "bank stand",
                **LOCA)
    assert nets(s)[("pepe", "loca", 1)] == ("natural", 2, 4000)
    assert s.players["pepe"] == 4000


def test_at_la_locas_turn_a_bettor_may_raise_up_to_twice_his_first_stake_in_all():
    opening = ("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 10 by pepe", "luis bet 5",
               "luis stand")
    s = settled(*opening, "loca bet 4 by pepe", "loca bet 6 by pepe", "loca card 7B", "bank stand", **LOCA)
    assert nets(s)[("pepe", "loca", 1)] == ("natural", 2, 4000)  # 20 in all, paid twice
    # Before its turn the old rule let a bettor of 10 add 15 until la loca drew; no longer.
    error = refused(*opening, "loca bet 15 by pepe", **LOCA)
    assert (error.event, error.rule) == (7, "loca")
    assert "twice his first stake" in error.message and "20.00" in error.message
    error = refused(*opening, "loca bet 10 by pepe", "loca bet 0.01 by pepe", **LOCA)
    assert (error.event, error.rule) == (8, "loca")


def test_nobody_new_bets_on_la_loca_once_its_turn_has_begun():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 10 by pepe", "luis bet 5",
                    "luis stand", "loca bet 5 by rosa", **LOCA)
    assert (error.event, error.rule) == (7, "loca")
    assert "va la loca" in error.message and "rosa" in error.message


def test_the_bank_never_bets_on_la_loca():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 5 by banca", **LOCA)
    assert (error.event, error.rule) == (4, "bank")


def test_a_bet_on_la_loca_names_its_player():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 5", **LOCA)
    assert (error.event, error.rule) == (4, "loca")


def test_la_loca_plays_before_the_bank_even_without_bets():
    error = refused("bank deal 5O", "luis deal 2C", "loca deal 12O", "luis bet 5", "luis stand",
                    "bank stand", **LOCA)
    assert (error.event, error.rule) == (6, "turn")


def test_la_loca_bust_loses_and_never_takes_the_bank():
    rules = {"profile": "profesional", "bank_passes_on_natural": True}
    s = settled("bank deal 5O", "luis deal 2C", "loca deal 12O", "loca bet 10 by pepe", "luis bet 5",
                "luis stand", "loca card 7B", "bank stand", rules=rules, bank="banca")
    assert nets(s)[("pepe", "loca", 1)] == ("natural", 2, 2000)
    assert s.next_bank == "banca"
    s = settled("bank deal 5O", "luis deal 2C", "loca deal 6O", "loca bet 10 by pepe", "luis bet 5",
                "luis stand", "loca card 7B", "bank stand", **LOCA)
    assert nets(s)[("pepe", "loca", 1)] == ("bust", 1, -1000)


# --------------------------------------------------------------------------- side bets

SIDE = {"profile": "reglamento", "side_bets": True}


def test_a_side_bet_settles_as_the_seats_first_hand():
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 10 by pepe", "luis bet 10", "luis card 11B",
                "bank stand", rules=SIDE)
    assert nets(s)[("pepe", "luis", 1)] == ("natural", 2, 2000)
    assert s.players == {"luis": 2000, "pepe": 2000}


def test_side_bets_follow_the_first_hand_of_a_split_seat():
    s = settled("luis deal 11O", "bank deal 5E", "luis bet 10 by pepe", "luis bet 10", "luis card 10C",
                "luis split", "luis card 7B", "luis bet 10", "luis card 6B", "luis stand", "bank stand",
                rules=SIDE)
    assert nets(s)[("pepe", "luis", 1)] == ("natural", 2, 2000)
    assert nets(s)[("luis", "luis", 2)] == ("win", 1, 1000)


@pytest.mark.parametrize("lines, rule", [
    (("luis deal 7O", "bank deal 5E", "luis bet 4 by pepe"), "min_bet"),
    (("luis deal 7O", "bank deal 5E", "luis bet 60 by pepe", "luis bet 41 by pepe"), "max_bet"),
    (("luis deal 7O", "bank deal 5E", "luis bet 10 by ana"), "bank"),
    (("luis deal 7O", "bank deal 5E", "luis bet 10 by luis"), "side_bets"),
    (("luis deal 7O", "bank deal 5E", "luis bet 10 by b@d"), "player"),
])
def test_side_bets_within_the_limits_and_never_by_the_bank(lines, rule):
    error = refused(*lines, rules=SIDE)
    assert (error.event, error.rule) == (len(lines), rule)


def test_side_bets_close_when_the_seats_first_hand_is_finished():
    error = refused("luis deal 7O", "marta deal 1C", "bank deal 5E", "luis bet 10", "luis card 11B",
                    "luis bet 10 by pepe", seats=["luis", "marta"], rules=SIDE)
    assert (error.event, error.rule) == (6, "side_bets")


def test_no_side_bets_where_they_are_not_allowed():
    error = refused("luis deal 7O", "bank deal 5E", "luis bet 10 by pepe")
    assert (error.event, error.rule) == (3, "side_bets")


# --------------------------------------------------------------------------- the bank

def test_bank_draws_below_six_and_stands_on_six():
    error = refused("luis deal 5O", "bank deal 6C", "luis bet 10", "luis stand", "bank card 1E",
                    rules="americana")
    assert (error.event, error.rule) == (5, "bank_draws_below")
    s = settled("luis deal 5O", "bank deal 6C", "luis bet 10", "luis stand", "bank stand", rules="americana")
    assert s.bank_points == 12


def test_bank_chases_natural_after_a_seat_announced_it():
    rules = {"profile": "reglamento", "bank_chases_natural": True}
    error = refused("luis deal 7O", "marta deal 1C", "bank deal 7E", "luis bet 10", "luis card 11B",
                    "marta bet 10", "marta stand", "bank stand", seats=["luis", "marta"], rules=rules)
    assert (error.event, error.rule) == (8, "bank_chases_natural")


def test_bank_chases_a_fusilado_as_if_it_were_seven_and_a_half():
    rules = {"profile": "reglamento", "bank_chases_natural": True}
    error = refused("luis deal 7O", "bank deal 7E", "luis bet 10", "luis fusilar 1O", "bank stand",
                    rules=rules)
    assert (error.event, error.rule) == (5, "bank_chases_natural")


def test_the_bank_need_not_play_when_nothing_is_left_standing():
    s = settled("luis deal 7O", "bank deal 6E", "luis bet 10", "luis card 1B")
    assert nets(s)[("luis", "luis", 1)] == ("bust", 1, -1000)
    assert s.bank_points == 12


def test_the_bank_may_still_play_when_nothing_is_left_standing():
    s = settled("luis deal 7O", "bank deal 6E", "luis bet 10", "luis card 1B", "bank card 2B")
    assert s.bank_points == 16 and s.bank_net == 1000


# --------------------------------------------------------------------------- shuffle

def test_shuffle_only_when_the_stock_ran_out():
    error = refused("luis deal 7O", "marta deal 1C", "bank deal 6E", "luis bet 10", "luis card 1B",
                    "shuffle", seats=["luis", "marta"])
    assert (error.event, error.rule) == (6, "shuffle")


def _one_seat_splits_through_the_whole_deck():
    """luis splits every half into its own hand and plays each hand up from the lowest
    card until it stands on 7½ or busts; the bank holds the last card, a 7. The stock
    runs out exactly when the bank's turn comes."""
    from game.cards import CARD_NAME, CARD_POINTS, DECKS

    deck = sorted(DECKS["spanish-40"], key=lambda c: (CARD_POINTS[c], c))
    halves = [c for c in deck if CARD_POINTS[c] == 1]
    others = [c for c in deck if CARD_POINTS[c] > 1]
    lines = [f"luis deal {CARD_NAME[halves[0]]}", f"bank deal {CARD_NAME[others[-1]]}"]
    stock = halves[1:] + others[:-1]
    hands, bust = [[halves[0]]], []
    for hand in hands:
        lines.append("luis bet 5")
        while sum(CARD_POINTS[c] for c in hand) < 15:
            card = stock.pop(0)
            lines.append(f"luis card {CARD_NAME[card]}")
            if len(hand) == 1 and CARD_POINTS[hand[0]] == 1 and CARD_POINTS[card] == 1:
                lines.append("luis split")
                hands.append([card])
            else:
                hand.append(card)
        if sum(CARD_POINTS[c] for c in hand) > 15:
            bust += [CARD_NAME[c] for c in hand]
    assert not stock
    return lines, bust, hands


def test_after_a_shuffle_the_cards_of_bust_hands_are_dealt_again():
    lines, bust, hands = _one_seat_splits_through_the_whole_deck()
    rules = {"profile": "reglamento", "max_hands": None}
    assert "10O" in bust  # hand 1 (sota, four aces, two 2s) went bust
    error = refused(*lines, "bank card 10O", rules=rules)
    assert (error.event, error.rule) == (len(lines) + 1, "stock")
    s = settled(*lines, "shuffle", "bank card 10O", rules=rules)
    assert s.bank_points == 15  # the bank's 7 and the sota from the bust hand
    assert len(s.bets) == len(hands) == 12
    assert all(b.result in ("bust", "lose") for b in s.bets) and s.bank_net == 12 * 500


def test_a_shuffle_brings_back_only_the_cards_of_bust_hands():
    lines, bust, _ = _one_seat_splits_through_the_whole_deck()
    rules = {"profile": "reglamento", "max_hands": None}
    assert "11O" not in bust  # hand 2 stood on 7½
    error = refused(*lines, "shuffle", "bank card 11O", rules=rules)
    assert (error.event, error.rule) == (len(lines) + 2, "card")


# --------------------------------------------------------------------------- the record's header

@pytest.mark.parametrize("change", [
    {"format": "siete-y-media/hand-2"}, {"rules": "europea"}, {"rules": {"profile": "reglamento", "color": 1}},
    {"rules": {"profile": "reglamento", "loca": "yes"}}, {"rules": 7}, {"min_bet": "ten"},
    {"max_bet": 5.0}, {"min_bet": "150"}, {"bank": "bank"}, {"bank": ""}, {"seats": []},
    {"seats": ["luis", "luis"]}, {"seats": ["ana"]}, {"seats": ["a"] * 10}, {"seats": ["lo ca"]},
    {"extra": 1}, {"number": 0}, {"number": "3"}, {"started_at": "2026-11-21 10:00"}, {"table": ""},
    {"events": {}},
])
def test_a_bad_header_is_a_fault_outside_the_events(change):
    rec = record("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand")
    rec.update(change)
    with pytest.raises(IllegalEvent) as caught:
        play_record(rec)
    assert caught.value.event == 0


def test_optional_header_fields_are_accepted():
    rec = record("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand",
                 table="Mesa 1", number=42, started_at="2026-11-21T22:15:00+01:00")
    assert play_record(rec).complete


@pytest.mark.parametrize("bad", [
    {"do": "bet", "seat": "luis", "amount": "5", "colour": "red"}, {"do": "jump", "seat": "luis"},
    {"seat": "luis"}, {"do": "stand"}, {"do": "stand", "seat": 3}, "stand", None,
    {"do": "card", "seat": "luis", "card": "1O", "down": "yes"},
])
def test_a_malformed_event_is_refused_with_its_number(bad):
    rec = record("luis deal 3O", "bank deal 2C", "luis bet 5", "luis stand", "bank stand")
    rec["events"][2] = bad
    with pytest.raises(IllegalEvent) as caught:
        play_record(rec)
    assert caught.value.event == 3
