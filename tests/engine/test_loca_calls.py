"""``loca_calls``: la loca's responsable makes its calls, each a ``loca_call`` event —
"dobla quien quiera" (a window for raises up to twice each first stake, again before
each card), "la loca dobla" (first action only: every stake doubled by the call, then a
stand), "la loca se planta". [rules.md "Calls of la loca"; hand-record.md "Events"; 003]"""

import pytest

from game import HandState, IllegalEvent, Profile
from game.hand import DOBLA, DOBLA_QUIEN_QUIERA, LOCA_CALLS, SE_PLANTA
from game.payouts import settle
from game.record import play_record
from tests.hands import event, nets, record

CALLS = {"profile": "profesional", "loca_calls": True}
#: La loca's turn begins after luis stands: pepe has 10 on it, rosa 20.
OPENING = ("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 10 by pepe", "loca bet 20 by rosa",
           "luis bet 10", "luis card 2C", "luis stand")


def talk(line):
    """``loca call CALL by PLAYER`` as a ``loca_call`` event; any other line as
    ``tests.hands.event`` reads it."""
    words = line.split()
    if words[1:2] == ["call"]:
        ev = {"do": "loca_call", "seat": words[0], "call": words[2]}
        if len(words) == 5:
            ev["responsable"] = words[4]
        return ev
    return event(line)


def hand_record(*lines, rules=CALLS):
    rec = record(rules=rules, bank="banca")
    rec["events"] = [talk(line) for line in lines]
    return rec


def settled(*lines, **options):
    return settle(play_record(hand_record(*lines, **options)))


def refused(*lines, **options):
    with pytest.raises(IllegalEvent) as caught:
        play_record(hand_record(*lines, **options))
    return caught.value


def table(*lines, rules=CALLS):
    state = HandState(Profile.from_rules(rules), 500, 10000, "banca", ["luis"])
    for line in lines:
        state.apply(talk(line))
    return state


def test_the_calls_are_those_of_the_seed():
    assert LOCA_CALLS == (DOBLA_QUIEN_QUIERA, DOBLA, SE_PLANTA) == ("dobla_quien_quiera", "dobla", "se_planta")


def test_la_loca_dobla_doubles_every_stake_by_the_call_and_then_stands():
    # p19: pepe 10 -> 20, rosa 20 -> 40; la loca's 7 beats the bank's 6.
    s = settled("bank deal 2O", "luis deal 5O", "loca deal 7B", "loca bet 10 by pepe", "loca bet 20 by rosa",
                "luis bet 10", "luis stand", "loca call dobla by rosa", "loca call se_planta by rosa",
                "bank card 4C", "bank stand")
    assert nets(s) == {("luis", "luis", 1): ("lose", 1, -1000), ("pepe", "loca", 1): ("win", 1, 2000),
                       ("rosa", "loca", 1): ("win", 1, 4000)}
    assert s.bank_net == -5000


def test_after_la_loca_dobla_a_plain_stand_is_its_stand_too():
    s = settled(*OPENING, "loca call dobla by pepe", "loca stand", "bank card 5C", "bank stand")
    assert {b.player: b.stake for b in s.bets if b.seat == "loca"} == {"pepe": 2000, "rosa": 4000}


@pytest.mark.parametrize("after, rule", [
    ("loca card 3C", "loca_calls"),  # its next action is a stand
    ("loca reveal", "loca_calls"),
    ("loca call dobla_quien_quiera by pepe", "loca_calls"),
    ("loca call dobla by pepe", "loca_calls"),
    ("loca bet 1 by pepe", "loca_calls"),  # every stake is already twice the first
])
def test_after_la_loca_dobla_its_next_action_is_a_stand(after, rule):
    error = refused(*OPENING, "loca call dobla by pepe", after)
    assert (error.event, error.rule) == (10, rule)


@pytest.mark.parametrize("before", ["loca card 3C", "loca call dobla_quien_quiera by pepe"])
def test_la_loca_dobla_only_as_its_first_action(before):
    error = refused(*OPENING, before, "loca call dobla by pepe")
    assert (error.event, error.rule) == (10, "loca_calls")
    assert "first action" in error.message


def test_dobla_quien_quiera_opens_raises_up_to_twice_the_first_stake_until_the_next_card():
    s = settled(*OPENING, "loca call dobla_quien_quiera by rosa", "loca bet 10 by pepe", "loca bet 5 by rosa",
                "loca card 7C", "bank card 3C", "bank stand")
    assert nets(s)[("pepe", "loca", 1)] == ("natural", 2, 4000)  # 20 in all, paid twice
    assert nets(s)[("rosa", "loca", 1)] == ("natural", 2, 5000)  # 25
    error = refused(*OPENING, "loca call dobla_quien_quiera by rosa", "loca bet 10.01 by pepe")
    assert (error.event, error.rule) == (10, "loca")  # beyond twice his first stake


def test_a_bet_on_la_loca_outside_the_window_is_an_error():
    error = refused(*OPENING, "loca bet 5 by pepe")  # no call yet
    assert (error.event, error.rule) == (9, "loca_calls")
    assert "dobla quien quiera" in error.message
    error = refused(*OPENING, "loca call dobla_quien_quiera by rosa", "loca card 1C", "loca bet 5 by pepe")
    assert (error.event, error.rule) == (11, "loca_calls")  # the window closed with the card


def test_dobla_quien_quiera_again_before_each_card_and_a_repeat_changes_nothing():
    s = settled(*OPENING, "loca call dobla_quien_quiera by rosa", "loca bet 2 by pepe", "loca card 1C",
                "loca call dobla_quien_quiera by rosa", "loca call dobla_quien_quiera by rosa",
                "loca bet 8 by pepe", "loca card 5C", "loca call dobla_quien_quiera by rosa", "loca bet 20 by rosa",
                "loca call se_planta by rosa", "bank card 4C", "bank stand")
    assert {b.player: (b.stake, b.points, b.result) for b in s.bets if b.seat == "loca"} == {
        "pepe": (2000, 13, "win"), "rosa": (4000, 13, "win")}


def test_bets_before_la_locas_turn_need_no_call_and_nobody_new_bets_after():
    state = table("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 10 by pepe", "luis bet 10",
                  "loca bet 5 by pepe", "luis stand")
    assert state.loca_bets == {"pepe": [1500, 1500]}
    with pytest.raises(IllegalEvent) as caught:
        state.apply(talk("loca call dobla_quien_quiera by pepe"))
        state.apply(talk("loca bet 5 by rosa"))
    assert caught.value.rule == "loca"


def test_se_planta_is_la_locas_stand():
    s = settled(*OPENING, "loca call se_planta by pepe", "bank card 4C", "bank stand")
    assert {b.player: (b.stake, b.points, b.result) for b in s.bets if b.seat == "loca"} == {
        "pepe": (1000, 1, "lose"), "rosa": (2000, 1, "lose")}
    error = refused(*OPENING, "loca call se_planta by pepe", "loca card 3C")
    assert (error.event, error.rule) == (10, "turn")


@pytest.mark.parametrize("line, rule", [
    ("loca call dobla by luis", "loca_calls"),  # luis has no stake on la loca
    ("loca call dobla by banca", "loca_calls"),
    ("loca call dobla", "loca_calls"),  # no responsable
    ("loca call doblar by pepe", "loca_calls"),
    ("luis call dobla by pepe", "loca_calls"),
    ("bank call se_planta by pepe", "loca_calls"),
])
def test_a_call_names_la_loca_a_known_call_and_one_of_its_bettors(line, rule):
    error = refused(*OPENING, line)
    assert (error.event, error.rule) == (9, rule)


def test_the_same_responsable_makes_every_call_of_the_hand():
    error = refused(*OPENING, "loca call dobla_quien_quiera by rosa", "loca card 1C",
                    "loca call dobla_quien_quiera by pepe")
    assert (error.event, error.rule) == (11, "loca_calls")
    assert error.params == {"player": "rosa", "other": "pepe"}


def test_a_call_only_at_la_locas_turn():
    error = refused("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 10 by pepe", "luis bet 10",
                    "loca call dobla by pepe")
    assert (error.event, error.rule) == (6, "turn")
    error = refused(*OPENING, "loca stand", "loca call se_planta by pepe")
    assert (error.event, error.rule) == (10, "turn")


def test_without_the_option_there_are_no_calls_and_raises_need_none():
    error = refused(*OPENING, "loca call dobla by rosa", rules="profesional")
    assert (error.event, error.rule) == (9, "loca_calls")
    s = settled(*OPENING, "loca bet 10 by pepe", "loca card 7C", "bank stand", rules="profesional")
    assert nets(s)[("pepe", "loca", 1)] == ("natural", 2, 4000)


def test_a_call_without_la_loca_is_refused():
    error = refused("bank deal 2O", "luis deal 5O", "luis bet 10", "luis stand", "loca call se_planta by pepe",
                    rules={"profile": "reglamento", "loca_calls": True})
    assert (error.event, error.rule) == (5, "loca")


# --------------------------------------------------------------------------- the console

def test_the_console_is_offered_the_calls_their_responsables_and_the_biggest_bettor():
    state = table(*OPENING)
    legal = state.legal()
    assert legal.actor == "loca" and legal.loca_calls == LOCA_CALLS
    assert legal.loca_responsables == ("pepe", "rosa") and legal.loca_responsable == "rosa"
    assert legal.loca_raises == {"pepe": 0, "rosa": 0} and legal.draw and legal.stand
    state.apply(talk("loca call dobla_quien_quiera by pepe"))  # by consensus, not the biggest
    legal = state.legal()
    assert legal.loca_calls == (DOBLA_QUIEN_QUIERA, SE_PLANTA)
    assert legal.loca_responsables == ("pepe",) and legal.loca_responsable == "pepe"
    assert legal.loca_raises == {"pepe": 1000, "rosa": 2000}
    state.apply(talk("loca card 3C"))
    assert state.legal().loca_raises == {"pepe": 0, "rosa": 0}
    assert state.describe()["loca"]["responsable"] == "pepe"


def test_after_dobla_the_console_offers_only_the_stand():
    state = table(*OPENING, "loca call dobla by rosa")
    legal = state.legal()
    assert legal.loca_calls == (SE_PLANTA,) and legal.stand
    assert not legal.draw and not legal.reveal and legal.loca_raises == {"pepe": 0, "rosa": 0}
    assert state.describe()["loca"]["bets"] == {"pepe": "20.00", "rosa": "40.00"}


def test_no_calls_are_offered_without_bets_on_la_loca_or_before_its_turn():
    state = table("bank deal 2O", "luis deal 5O", "loca deal 12B", "luis bet 10", "luis stand")
    assert state.legal().actor == "loca" and state.legal().loca_calls == ()
    state = table("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 10 by pepe", "luis bet 10")
    assert state.legal().loca_calls == () and state.legal().loca_responsable is None
    state = table(*OPENING, rules="profesional")
    assert state.legal().loca_calls == () and state.legal().loca_raises == {"pepe": 1000, "rosa": 2000}


def test_the_biggest_bettor_counts_every_bet_before_la_locas_turn_the_first_of_equals_on_a_tie():
    state = table("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 20 by pepe", "loca bet 15 by rosa",
                  "luis bet 10", "loca bet 5 by rosa", "luis stand")
    assert state.legal().loca_responsable == "pepe"
    state = table("bank deal 2O", "luis deal 5O", "loca deal 12B", "loca bet 20 by pepe", "loca bet 15 by rosa",
                  "luis bet 10", "loca bet 6 by rosa", "luis stand")
    assert state.legal().loca_responsable == "rosa"
