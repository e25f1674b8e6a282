"""Reads at the tables: hands as hand records, the state a console shows."""

from game.entries import effective_events, fold_record_events
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
