"""Reads at the tables: hands as hand records, the state a console shows, a hand as it
stood after any of its entries (the dispute desk)."""

from typing import NamedTuple

from game import HandState
from game.entries import EVENT, UNDO, effective_events, fold_record_events, replay
from game.record import FORMAT, profile_for
from tables.locking import hand_entries
from tables.models import Hand
from tables.services.recording import played_rules_and_state, profile_state_maker


def hand_record(hand: Hand) -> dict:
    """The hand as a hand record (``hand-record.md``): every card named where it was dealt.

    ``manage.py settle`` settles it to the hand's settlement (the audit replay).

    Args:
        hand: a Hand whose every face-down card is named (a settled one, or any hand
            entered with known cards).
    Returns:
        dict, with ``table``, ``number`` and ``started_at`` filled in.
    Raises:
        IllegalEvent: a card is still unnamed.
    """
    entries = hand_entries(hand)
    events = effective_events(entries)
    # The rules it replays under: a hand the profile's change since would refuse carries
    # the earlier value (``replay_as_played``), so that ``manage.py settle`` agrees.
    rules, _state = played_rules_and_state(hand, entries)
    make = profile_state_maker(min_bet=hand.min_bet, max_bet=hand.max_bet, bank_code=hand.bank.code,
                               seats=hand.seats)
    profile = profile_for(rules)
    return {
        "format": FORMAT,
        "rules": rules,
        "min_bet": f"{hand.min_bet:.2f}",
        "max_bet": f"{hand.max_bet:.2f}",
        "bank": hand.bank.code,
        "seats": list(hand.seats),
        "events": fold_record_events(lambda: make(profile), events),
        "table": hand.table.name,
        "number": hand.number,
        "started_at": hand.opened_at.isoformat(),
    }


class HandAtEntry(NamedTuple):
    """A hand as it stood after its first ``step`` entries (``hand_after_entry``)."""

    #: how many entries are applied, 0 (before the first) to ``total``.
    step: int
    #: how many entries the hand has (undos and a void included).
    total: int
    #: the engine's state after them.
    state: HandState
    #: nothing but a void follows: the hand's stored settlement is this state's.
    complete: bool


def hand_after_entry(hand: Hand, step: int) -> HandAtEntry:
    """The hand as it stood after entry number ``step`` (1-based, as the history numbers
    them; 0: before the first): its entries up to that one replayed through the engine
    (an undo among them cancels as at the table), under the rules the whole hand was
    played under (``played_rules_and_state``). A face-down card named only later shows
    unnamed, as it stood.

    Args:
        hand: a Hand (its ``bank`` loaded or loadable); step: any int, clamped to 0..total.
    Returns:
        ``HandAtEntry``.
    Raises:
        IllegalEvent: the hand's entries do not replay (the integrity page says why).
    """
    entries = hand_entries(hand)
    total = len(entries)
    step = max(0, min(step, total))
    rules, _state = played_rules_and_state(hand, entries)
    make = profile_state_maker(min_bet=hand.min_bet, max_bet=hand.max_bet, bank_code=hand.bank.code,
                               seats=hand.seats)
    profile = profile_for(rules)
    state = replay(lambda: make(profile), effective_events(entries[:step]))
    complete = hand.settlement is not None and not any(kind in (EVENT, UNDO) for kind, _event in entries[step:])
    return HandAtEntry(step, total, state, complete)
