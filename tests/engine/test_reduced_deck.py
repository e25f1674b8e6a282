"""The engine's one hook for the edge's exact check: a HandState over a reduced deck.

``HandState(..., deck=codes)`` plays from those cards only (``game.edge`` and its
exact enumeration use it); without it every table plays its profile's whole deck.
"""

import pytest

from game import HandState, IllegalEvent, Profile, parse_card

REGLAMENTO = Profile.from_rules("reglamento")


def cards(*names):
    return [parse_card(name) for name in names]


def test_a_reduced_deck_refuses_a_card_it_does_not_hold():
    state = HandState(REGLAMENTO, 100, 1000, "ana", ["luis"], deck=cards("1O", "2O", "3O", "7O"))
    state.apply({"do": "deal", "seat": "luis", "card": "1O"})
    with pytest.raises(IllegalEvent) as refused:
        state.apply({"do": "deal", "seat": "bank", "card": "4O"})
    assert refused.value.rule == "deck"
    state.apply({"do": "deal", "seat": "bank", "card": "2O"})
    assert state.describe()["stock"] == 2


def test_the_stock_of_a_reduced_deck_runs_out_at_its_size():
    state = HandState(REGLAMENTO, 100, 1000, "ana", ["luis"], deck=cards("1O", "2O", "3O"))
    for event in ({"do": "deal", "seat": "luis", "card": "1O"}, {"do": "deal", "seat": "bank", "card": "2O"},
                  {"do": "bet", "seat": "luis", "amount": "1"}, {"do": "card", "seat": "luis", "card": "3O"}):
        state.apply(event)
    assert state.legal().draw is False
    with pytest.raises(IllegalEvent) as refused:
        state.apply({"do": "card", "seat": "luis", "card": "4O"})
    assert refused.value.rule == "stock"


def test_without_a_deck_the_profile_deck_is_played():
    state = HandState(Profile.from_rules({"profile": "reglamento", "deck": "spanish-36"}), 100, 1000, "ana", ["luis"])
    assert state.describe()["stock"] == 36


@pytest.mark.parametrize("deck", [[], cards("10O"), [99]])
def test_a_deck_outside_the_profile_deck_is_a_programming_error(deck):
    profile = Profile.from_rules({"profile": "reglamento", "deck": "spanish-36"})
    with pytest.raises(ValueError, match="deck"):
        HandState(profile, 100, 1000, "ana", ["luis"], deck=deck)
