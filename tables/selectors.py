"""Reads at the tables: hands as hand records, the state a console shows."""

from game.entries import effective_events, fold_record_events
from game.record import FORMAT
from tables.locking import hand_entries
from tables.models import Hand
from tables.services import new_hand_state


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
    events = effective_events(hand_entries(hand))
    return {
        "format": FORMAT,
        "rules": hand.rules,
        "min_bet": f"{hand.min_bet:.2f}",
        "max_bet": f"{hand.max_bet:.2f}",
        "bank": hand.bank.code,
        "seats": list(hand.seats),
        "events": fold_record_events(new_hand_state(hand), events),
        "table": hand.table.name,
        "number": hand.number,
        "started_at": hand.opened_at.isoformat(),
    }
