"""Random legal play with each option of issue 32 on (``game.simulate``): the hand
settles as the engine's own replay of its record says, at the table (a hand record) and
at the console (unknown cards allowed), and each option's rule holds, checked from the
record's events on their own. [rules.md "Cards and points", "Split of equal cards",
"One-card stand", "Calls of la loca"]"""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from game import HandState
from game.cards import CARD_POINTS, FRENCH_SPELLINGS
from game.hand import DOBLA, DOBLA_QUIEN_QUIERA, LOCA_CALLS, SE_PLANTA, parse_amount
from game.payouts import settle
from game.record import play_record, read_header
from game.simulate import random_hand, random_rules

FRENCH_HALF_POINTS = {"A": 2, "2": 4, "3": 6, "4": 8, "5": 10, "6": 12, "7": 14, "J": 1, "Q": 1, "K": 1}
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example])


@st.composite
def hands_with(draw, **options):
    """``(record, state)`` of random legal play under random rules with ``options`` on
    (each a value or a strategy of values)."""
    rng = draw(st.randoms(use_true_random=False))
    rules = random_rules(rng)
    rules = {"profile": rules} if isinstance(rules, str) else dict(rules)
    for option, value in options.items():
        rules[option] = draw(value) if isinstance(value, st.SearchStrategy) else value
    return random_hand(rng, rules=rules)


def check_settles_as_played(record, state):
    """The settlement of the state the hand was played on equals the replay's, from the
    record and from the same events entered at the console; it sums to zero."""
    played = settle(state).as_dict()
    assert settle(play_record(record)).as_dict() == played
    console = HandState(state.profile, state.min_bet, state.max_bet, record["bank"], record["seats"],
                        allow_unknown=True)
    for event in record["events"]:
        console.apply(event)
    assert settle(console).as_dict() == played
    s = settle(state)
    assert sum(s.players.values()) + s.bank_net + s.commission == 0


@SETTINGS
@given(hands_with(deck="french-40"))
def test_french_deck_play_settles_as_replayed_and_every_card_is_french(hand):
    record, state = hand
    check_settles_as_played(record, state)
    cards = [e["card"] for e in record["events"] if "card" in e]
    assert cards and all(card in FRENCH_SPELLINGS for card in cards)
    # The bank's points from its cards as written: the ace 1, the figures halves.
    written = [e["card"].upper() for e in record["events"] if e.get("seat") == "bank" and "card" in e]
    assert sum(FRENCH_HALF_POINTS[card[:-1]] for card in written) == state.bank.points


@SETTINGS
@given(hands_with(split_pairs=True, max_hands=st.sampled_from([None, 2, 3, "by_players"])))
def test_split_pairs_play_settles_as_replayed_and_splits_only_equal_points(hand):
    record, state = hand
    check_settles_as_played(record, state)
    replay = read_header(record)
    for event in record["events"]:
        if event["do"] == "split":
            pair = replay.legal().pair_split
            over = pair is not None and pair[0] == event["seat"]
            cards = (replay.seat(pair[0]).hands[pair[1] - 1] if over else replay.current_hand()).cards
            assert len(cards) == 2 and CARD_POINTS[cards[0]] == CARD_POINTS[cards[1]]
            assert over == (2 * CARD_POINTS[cards[0]] > 15)
        replay.apply(event)
    limit = replay.profile.max_hands_for(len(record["seats"]))
    for seat in replay.seats:
        if seat.hands[0].kind != "muerto-seven":  # (muerto's two bets are no split)
            assert limit is None or len(seat.hands) <= limit
        for h in seat.hands:
            if h.kind == "normal":  # (a fusilado or muerto card stays on the table)
                assert (h.points > 15) == (h.status == "bust")


@SETTINGS
@given(hands_with(one_card_stand_max=st.sampled_from([1, 2, 3])))
def test_one_card_stand_play_settles_as_replayed_within_the_cap(hand):
    record, state = hand
    check_settles_as_played(record, state)
    cap = record["rules"]["one_card_stand_max"] * parse_amount(record["min_bet"])
    replay = read_header(record)
    for event in record["events"]:
        if event["do"] == "stand" and event["seat"] not in ("bank", "loca"):
            hand_ = replay.current_hand()
            if len(hand_.cards) == 1:
                assert hand_.stake <= cap
        replay.apply(event)


@SETTINGS
@given(hands_with(loca=True, loca_calls=True))
def test_loca_calls_play_settles_as_replayed_and_its_stakes_follow_the_calls(hand):
    """La loca's stakes worked out from the events alone: bets until its turn make each
    first stake; then raises only while "dobla quien quiera" is open (from the call to
    its next card or stand), within twice the first stake; "dobla" doubles them all."""
    record, state = hand
    check_settles_as_played(record, state)
    first, total = {}, {}
    begun = window = doubled = False
    responsables = set()
    replay = read_header(record)
    for event in record["events"]:
        do, seat = event["do"], event.get("seat")
        if not begun and replay.loca_turn_begun:
            begun = True
        if do == "bet" and seat == "loca":
            cents = parse_amount(event["amount"])
            player = event["player"]
            if begun:
                assert window and player in first and not doubled
            else:
                first[player] = first.get(player, 0) + cents
            total[player] = total.get(player, 0) + cents
            assert total[player] <= 2 * first[player]
        elif do == "loca_call":
            assert begun and event["call"] in LOCA_CALLS and event["responsable"] in first
            responsables.add(event["responsable"])
            if event["call"] == DOBLA:
                assert not window and not doubled and len(replay.loca.cards) == 1
                total = {p: 2 * f for p, f in first.items()}
                doubled = True
            elif event["call"] == DOBLA_QUIEN_QUIERA:
                window = True
            else:
                assert event["call"] == SE_PLANTA
        elif seat == "loca" and do in ("card", "stand"):
            assert not (doubled and do == "card")
            window = False
        replay.apply(event)
    assert len(responsables) <= 1
    assert {b.player: b.stake for b in settle(state).bets if b.seat == "loca"} == total
