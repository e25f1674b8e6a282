"""From the dealer's log of entries to the engine's events and back to a hand record.

The console records entries in order, never deleting one: an engine event, or an undo
that cancels the latest event still in force. A face-down card may be entered unknown
(``"card": None``) and named later (``reveal`` with its card, or ``identify``).
``fold_record_events`` turns such a log into the events of a hand record
(``hand-record.md``), where every card is named where it was dealt.
"""

from game.cards import CARD_NAME
from game.errors import IllegalEvent, gettext_noop
from game.hand import LOCA, NORMAL

EVENT, UNDO, VOID = "event", "undo", "void"


def effective_events(entries):
    """The events in force after the undos.

    Args:
        entries: ``(kind, event)`` pairs in the order they were entered; kind is
            ``"event"``, ``"undo"`` (cancels the latest event in force) or ``"void"``.
    Returns:
        list of event dicts.
    Raises:
        IllegalEvent: (event 0) an undo with nothing left to undo.
    """
    events = []
    for kind, event in entries:
        if kind == EVENT:
            events.append(event)
        elif kind == UNDO:
            if not events:
                raise IllegalEvent(0, "undo", gettext_noop("there is no event left to undo"))
            events.pop()
    return events


def replay(new_state, events):
    """A fresh state from ``new_state()`` with ``events`` applied in order."""
    state = new_state()
    for event in events:
        state.apply(event)
    return state


def fold_record_events(new_state, events):
    """The hand record's events for a console hand whose every card is now named.

    Each card entered unknown is written into the event that dealt it; ``identify``
    events disappear and ``reveal`` carries no card; a ``stand`` entered on a hand whose
    face-down card turned out to make it 7½ disappears too (a 7½ stands by itself).

    Args:
        new_state: makes a fresh ``HandState(..., allow_unknown=True)`` for the hand.
        events: the effective console events.
    Returns:
        list of event dicts that replay as a hand record (no unknown card).
    Raises:
        IllegalEvent: the events do not replay, or a card is still unnamed.
    """
    state = new_state()
    stands_on_unknown = []
    for i, event in enumerate(events):
        if event.get("do") == "stand":
            hand = state.current_hand()
            if hand is not None and hand.unknown:
                stands_on_unknown.append((i, hand))
        state.apply(event)
    folded = [dict(event) for event in events]
    for code, dealt_at, _returned in state.instances:
        if code is None:
            raise IllegalEvent(0, "identify", gettext_noop("a face-down card dealt at event {at} is still unnamed"), at=dealt_at)
        event = folded[dealt_at - 1]
        if event.get("card") is None:
            event["card"] = CARD_NAME[code]
    dropped = {i for i, hand in stands_on_unknown if hand.natural and hand.kind in (NORMAL, LOCA)}
    out = []
    for i, event in enumerate(folded):
        if i in dropped or event.get("do") == "identify":
            continue
        if event.get("do") == "reveal":
            event.pop("card", None)
        out.append(event)
    return out
