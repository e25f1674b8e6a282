"""Properties of the engine over random legal play under random profiles and options."""

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import IllegalEvent, parse_amount
from game.payouts import settle
from game.record import play_record, read_header
from game.simulate import random_record
from tests.engine.mutations import mutate

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

records = st.randoms(use_true_random=False).map(random_record)


@SETTINGS
@given(records)
def test_random_legal_play_settles_and_sums_to_zero(record):
    s = settle(play_record(record))
    assert sum(s.players.values()) + s.bank_net + s.commission == 0
    assert sum(b.net for b in s.bets) == -s.bank_result
    assert 0 <= s.commission <= max(s.bank_result, 0)
    assert s.next_bank in (record["bank"], *record["seats"])
    for bet in s.bets:
        assert bet.net == (1 if bet.result in ("win", "natural") else -1) * bet.multiplier * bet.stake
        assert bet.stake > 0


@SETTINGS
@given(records)
def test_settling_is_deterministic_and_survives_a_json_round_trip(record):
    first = settle(play_record(record)).as_dict()
    assert settle(play_record(record)).as_dict() == first
    again = json.loads(json.dumps(record))
    assert settle(play_record(again)).as_dict() == first


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False)
    | st.text(max_size=8) | st.sampled_from(["7O", "11c", "rb", "4O", "10E", "luis", "bank", "loca", "5.00", "-1"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=5)


@st.composite
def mutated(draw):
    """A valid record with one to three random changes."""
    record = copy.deepcopy(draw(records))
    events = record["events"]
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["drop", "dup", "swap", "value", "key", "unkey", "header", "rules", "cut"]))
        if not events:
            op = "header"
        i = draw(st.integers(0, max(len(events) - 1, 0)))
        j = draw(st.integers(0, max(len(events) - 1, 0)))
        mutate(record, events, op, i, j, choose=lambda items: draw(st.sampled_from(items)), junk=lambda: draw(json_values),
               header_keys=["format", "rules", "min_bet", "max_bet", "bank", "seats", "number", "y"],
               event_keys=["player", "down", "amount", "card", "hand", "seat", "x"],
               rule_keys=["deck", "loca", "max_hands", "commission_rate", "bank_draws_below", "fixed_stake",
                          "profile", "natural_pays", "zzz"])
    return record


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_a_mutated_record_is_valid_or_refused_by_the_engine_and_never_half_applied(record):
    try:
        state = read_header(record)
    except IllegalEvent as error:
        assert error.event == 0 and error.message
        return
    for number, ev in enumerate(record["events"], 1):
        before = state.describe()
        try:
            state.apply(ev)
        except IllegalEvent as error:
            assert error.event == number and error.message
            assert state.describe() == before, "an illegal event changed the state"
            return
    if not state.complete:
        return
    s = settle(state)
    assert sum(s.players.values()) + s.bank_net + s.commission == 0


@SETTINGS
@given(records)
def test_bets_on_la_loca_follow_its_turn(record):
    """Before la loca's turn a bettor's bets add up to his first stake; from its turn on
    only those bettors add, up to twice their first stake in all; "la loca dobla"
    (``loca_calls``) brings every stake there itself. [rules.md "La loca", "Calls of la
    loca"]"""
    state = read_header(record)
    first, total = {}, {}
    for event in record["events"]:
        if event["do"] == "bet" and event["seat"] == "loca":
            cents = parse_amount(event["amount"])
            player = event["player"]
            if state.loca_turn_begun:
                assert player in first
            else:
                first[player] = first.get(player, 0) + cents
            total[player] = total.get(player, 0) + cents
        elif event["do"] == "loca_call" and event["call"] == "dobla":
            total = {player: 2 * stake for player, stake in first.items()}
        state.apply(event)
    assert all(total[p] <= 2 * first[p] for p in total)
    if state.loca is not None:
        assert state.loca_bets == {p: [first[p], total[p]] for p in first}


def _outcome(state, play):
    """What ``play`` (one way of playing a record's events on ``state``) leaves: the
    refusal's every part, or none, then the state as described and its settlement."""
    try:
        play(state)
        refusal = None
    except IllegalEvent as error:
        refusal = (error.event, error.rule, error.template, error.message, error.params)
    settled = settle(state).as_dict() if refusal is None and state.complete else None
    return refusal, state.describe(), settled


@st.composite
def near_misses(draw):
    """A valid record with one deal, bet or card changed to a near miss: an amount just
    outside the table's limits or many times the stake, a card already out or not of
    the deck, a card face down, a seat out of turn."""
    record = copy.deepcopy(draw(records))
    kind = draw(st.sampled_from(["bet", "card", "deal"]))
    events = [ev for ev in record["events"] if ev.get("do") == kind]
    if not events:
        return record
    ev = draw(st.sampled_from(events))
    cards = [e["card"] for e in record["events"] if "card" in e]
    if ev["do"] == "bet":
        low, high = parse_amount(record["min_bet"]), parse_amount(record["max_bet"])
        cents = draw(st.sampled_from([low - 1, high + 1, high, low, 1, parse_amount(ev["amount"]) * 10, 0]))
        ev["amount"] = f"{cents // 100}.{cents % 100:02d}" if cents >= 0 else "-1.00"
    elif ev["do"] == "card":
        change = draw(st.sampled_from(["card", "down", "seat"]))
        if change == "card":
            ev["card"] = draw(st.sampled_from([*cards, "8O", "9E", "1O"]))
        elif change == "down":
            ev["down"] = not ev.get("down", False)
        else:
            ev["seat"] = draw(st.sampled_from([*record["seats"], "bank", "loca"]))
    else:
        ev["card" if draw(st.booleans()) else "seat"] = draw(st.sampled_from([*cards, *record["seats"], "bank"]))
    return record


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(records, mutated(), near_misses()))
def test_a_records_events_played_in_one_loop_are_applied_one_by_one(record):
    """``HandState.play`` (the record's loop, with the common deal, bet and card inline)
    leaves exactly what ``apply`` event by event leaves, on legal records and on
    mutated ones: the same refusal at the same event, the same state, the same
    settlement."""
    try:
        read_header(record)
    except IllegalEvent:
        return

    def one_by_one(state):
        for event in record["events"]:
            state.apply(event)

    assert _outcome(read_header(record), lambda state: state.play(record["events"])) == _outcome(
        read_header(record), one_by_one)
