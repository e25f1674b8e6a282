"""``deck: "french-40"``: the French deck without 8, 9 and 10, written ``AS``, ``7H``,
``QD``; a card of the other deck is an error. [rules.md "Cards and points";
hand-record.md "Cards"; seeds 000, 004]"""

import pytest

from game import HandState, IllegalEvent, Profile, parse_card
from game.cards import CARD_NAME, CARD_POINTS, DECKS, FRENCH_CARDS, SPANISH_CARDS, card_name
from game.entries import fold_record_events
from game.payouts import settle
from game.record import play_record
from tests.hands import event, nets, record, settled

FRENCH = {"profile": "reglamento", "deck": "french-40"}


def refused(*lines, **options):
    with pytest.raises(IllegalEvent) as caught:
        play_record(record(*lines, **options))
    return caught.value


def test_the_french_deck_has_forty_cards_ace_to_seven_and_three_halves_in_four_suits():
    deck = DECKS["french-40"]
    assert len(deck) == 40 and deck.isdisjoint(DECKS["spanish-40"])
    names = sorted(CARD_NAME[c] for c in deck)
    assert {name[:-1] for name in names} == {"A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"}
    assert {name[-1] for name in names} == {"S", "H", "D", "C"}
    points = {CARD_NAME[c][:-1]: CARD_POINTS[c] for c in deck}
    assert points == {"A": 2, "2": 4, "3": 6, "4": 8, "5": 10, "6": 12, "7": 14, "J": 1, "Q": 1, "K": 1}


def test_the_ace_is_one_and_the_figures_are_halves():
    # p17: A + 6 = 7 beats the bank's 5½; Q + 7 = 7½ is a natural.
    s = settled("luis deal AS", "marta deal QD", "bank deal 5C", "luis bet 10", "luis card 6H", "luis stand",
                "marta bet 10", "marta card 7S", "bank card KH", "bank stand", rules=FRENCH, seats=["luis", "marta"])
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("marta", "marta", 1): ("natural", 2, 2000)}
    assert s.bank_points == 11 and s.next_bank == "marta"


def test_a_french_card_is_read_in_either_case_and_written_in_upper_case():
    assert parse_card("qd", "french-40") == parse_card("QD", "french-40") == parse_card("Qd", "french-40")
    assert card_name(parse_card("as", "french-40")) == "AS"
    s = settled("luis deal as", "bank deal 5c", "luis bet 10", "luis card jh", "luis card 6d",
                "bank stand", rules=FRENCH)
    assert s.bets[0].points == 15  # 1 + ½ + 6


@pytest.mark.parametrize("card", ["10S", "1S", "TS", "8H", "9D", "0C", "AX", "A", "S", "QQ", "AS ", 7, None])
def test_no_such_french_card(card):
    rec = record("luis deal 5S", "bank deal 2H", rules=FRENCH)
    rec["events"][0]["card"] = card
    with pytest.raises(IllegalEvent) as caught:
        play_record(rec)
    assert (caught.value.event, caught.value.rule) == (1, "card")
    assert "French deck" in caught.value.message


@pytest.mark.parametrize("card, written", [("12O", "12O"), ("sO", "10O"), ("1E", "1E"), ("11b", "11B")])
def test_a_spanish_card_at_a_french_table_is_an_error_that_names_the_deck(card, written):
    error = refused(f"luis deal {card}", "bank deal 2H", rules=FRENCH)
    assert (error.event, error.rule) == (1, "deck")
    assert error.message.startswith(f"{written} is a card of the Spanish deck; this table plays the French deck")


@pytest.mark.parametrize("card", ["QD", "AS", "KH", "jc", "5H", "7S", "3D"])
def test_a_french_card_at_a_spanish_table_is_an_error_that_names_the_deck(card):
    for rules in ("reglamento", {"profile": "reglamento", "deck": "spanish-36"}):
        error = refused("luis deal 5O", f"bank deal {card}", rules=rules)
        assert (error.event, error.rule) == (2, "deck")
        assert "is a card of the French deck; this table plays the Spanish deck" in error.message


def test_a_card_written_alike_in_both_decks_is_read_in_the_tables_deck():
    spanish, french = parse_card("7C"), parse_card("7C", "french-40")
    assert spanish in SPANISH_CARDS and french in FRENCH_CARDS and CARD_POINTS[spanish] == CARD_POINTS[french]
    assert parse_card("7C", "spanish-36") == spanish
    error = refused("luis deal 7C", "bank deal 7c", rules=FRENCH)
    assert (error.event, error.rule) == (2, "card") and "7C is already on the table" in error.message


def test_a_catalan_deck_is_written_and_played_as_the_spanish_one():
    assert parse_card("12B", "spanish-40") == parse_card("rb") and parse_card("QD", "spanish-40") is None


def test_the_rank_rules_hold_in_the_french_deck():
    """An initial 4 is exchanged, a 7 fusilado with a figure pays four times, two figures
    split: the French ranks mean what the Spanish ones do."""
    s = settled("luis deal 4H", "marta deal 7D", "bank deal 5C", "luis exchange JS", "luis bet 10", "luis card QS",
                "luis split", "luis card 6S", "luis stand", "luis bet 10", "luis card 2C", "luis stand",
                "marta bet 10", "marta fusilar KD", "bank card AD", "bank stand", rules=FRENCH, seats=["luis", "marta"])
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("luis", "luis", 2): ("lose", 1, -1000),
                       ("marta", "marta", 1): ("natural", 4, 4000)}


def test_muerto_and_la_loca_with_french_cards():
    rules = {"profile": "profesional", "deck": "french-40"}
    s = settled("bank deal 5S", "luis deal 7H", "loca deal QC", "loca bet 10 by pepe", "luis bet 10",
                "luis muerto JD 20", "loca card 7C", "bank card AH", "bank stand",
                rules=rules, bank="banca")
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("luis", "luis", 2): ("natural", 2, 4000),
                       ("pepe", "loca", 1): ("natural", 2, 2000)}


def test_a_console_hand_with_unknown_french_cards_folds_into_a_french_record():
    profile = Profile.from_rules(FRENCH)
    lines = ["luis deal ?", "bank deal ?", "luis bet 10", "luis card 6H", "luis stand", "bank reveal 5C",
             "bank card KH", "bank stand", "luis identify 1 as"]

    def new_state():
        return HandState(profile, 500, 10000, "ana", ["luis"], allow_unknown=True)

    folded = fold_record_events(new_state, [event(line) for line in lines])
    assert folded[0] == {"do": "deal", "seat": "luis", "card": "AS"}
    assert folded[1] == {"do": "deal", "seat": "bank", "card": "5C"}
    rec = record(rules=FRENCH)
    rec["events"] = folded
    assert nets(settle(play_record(rec))) == {("luis", "luis", 1): ("win", 1, 1000)}


def test_the_state_describes_french_cards_by_their_french_names():
    state = HandState(Profile.from_rules(FRENCH), 500, 10000, "ana", ["luis"])
    for line in ("luis deal KS", "bank deal 2D", "luis bet 10", "luis card 3h"):
        state.apply(event(line))
    cards = state.describe()["seats"][0]["hands"][0]["cards"]
    assert cards == [{"card": "KS", "down": True}, {"card": "3H", "down": False}]
