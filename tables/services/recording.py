"""Deciding a hand apart from writing it: what an opening, an entry and a settlement are,
as values, checked by the rules engine (``game``) and the table's rules, with nothing
written.

Two writers use it: the console's services (``tables.services.hands``), which write each
value at once, and the import (``tables.importing``), which keeps them for its batch. The
caller holds the table's row lock (``tables.locking``) and brings what it has read: the
players already known, the bank's balance where a limited bank's cover is checked.

Values: a hand's opening is an unsaved ``Hand`` and the engine's fresh state; an entry is
an ``EntryRow`` (a ``tables_handevent`` row, chained to the table's last entry); a
settlement is the engine's ``Settlement`` and the hand's bets as ``BetRow``s.
[rules.md for the rules; hand-record.md for the events]
"""

from collections import Counter
from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from django.utils import timezone
from django.utils.translation import gettext as _

from casino.bulk import json_text
from game import HandState, IllegalEvent
from game.cards import CARD_NAME
from game.entries import EVENT, UNDO, effective_events
from game.hand import DOBLA
from game.payouts import settle
from game.record import profile_for, replay_as_played
from ledger.money import cents, euros
from patrons.models import Player
from tables.bank.tenures import tenure_check_cover
from tables.chain import GENESIS, current_key_id, entry_hash, sign_opening
from tables.errors import HandNotOpen, NoShift, RuleBroken, StaleHand, TableError
from tables.locking import Opening, hand_entries
from tables.models import Hand

# ---------------------------------------------------------------------------------------
# A hand's state


def state_maker(*, rules: dict, min_bet: Decimal, max_bet: Decimal, bank_code: str, seats: list):
    """``new_hand_state`` from a hand's columns read as a tuple (``rules``; ``min_bet`` and
    ``max_bet`` in euros; the bank's player code; the seats' codes): a function making
    its fresh engine state. Raises ``InvalidRules`` as ``profile_for``."""
    profile = profile_for(rules)
    make = profile_state_maker(min_bet=min_bet, max_bet=max_bet, bank_code=bank_code, seats=seats)
    return lambda: make(profile)


def profile_state_maker(*, min_bet: Decimal, max_bet: Decimal, bank_code: str, seats: list):
    """A function ``Profile -> fresh HandState`` of a hand's limits (euros), bank and seats
    (``game.record.replay_as_played`` tries the rules a stored hand was played under)."""
    low, high = cents(min_bet), cents(max_bet)
    seats = list(seats)
    return lambda profile: HandState(profile, low, high, bank_code, seats, allow_unknown=True)


def played_rules_and_state(hand, entries=None):
    """``(rules, HandState)`` of a hand's events in force replayed as they were played: its
    stored rules, or those with a profile's earlier values pinned when the profile has
    changed since it was entered (``game.record.replay_as_played``)."""
    make = profile_state_maker(min_bet=hand.min_bet, max_bet=hand.max_bet, bank_code=hand.bank.code,
                               seats=hand.seats)
    events = effective_events(hand_entries(hand) if entries is None else entries)
    return replay_as_played(hand.rules, make, events)


def new_hand_state(hand):
    """A function making the hand's fresh engine state (before its first event)."""
    return state_maker(rules=hand.rules, min_bet=hand.min_bet, max_bet=hand.max_bet, bank_code=hand.bank.code,
                       seats=hand.seats)


def hand_state(hand, entries=None) -> HandState:
    """The engine's ``HandState`` of a hand: its effective events replayed.

    Args:
        hand: a Hand; entries: its ``(kind, event)`` entries if already read.
    Returns:
        HandState (``allow_unknown``: face-down cards may still be unnamed).
    """
    return played_rules_and_state(hand, entries)[1]


def stakes(state) -> int:
    """Every cent staked on the hand so far: seats' hands, side bets, la loca's bets."""
    total = sum(h.stake for h in state.hands())
    total += sum(sum(seat.side_bets.values()) for seat in state.seats)
    return total + sum(s[1] for s in state.loca_bets.values())


def raises_stakes(event) -> bool:
    """Does ``event`` add to what is staked on the hand: a bet, a muerto, or la loca's
    call "dobla", which doubles every stake on la loca without bet events (the chips at
    risk and a limited bank's cover are checked after it as after a bet).
    [rules.md "Calls of la loca"]"""
    if type(event) is not dict:
        return False
    do = event.get("do")
    return do in ("bet", "muerto") or (do == "loca_call" and event.get("call") == DOBLA)


def stakers(state, event) -> list[str]:
    """Who ``event`` (a ``raises_stakes`` one) stakes for: the bettor, or every bettor
    on la loca for its "dobla"."""
    if event.get("do") == "loca_call":
        return list(state.loca_bets)
    return [event.get("player") or event.get("seat")]


def finished(state) -> bool:
    """May the hand be settled now: nothing left to play, every face-down card named."""
    return state.complete and not state.identities_owed()


def sequences_in_force(entries) -> list[int]:
    """The sequence numbers of the events in force, oldest first (``(kind, event)``
    entries in order; an undo cancels the latest event in force)."""
    stack = []
    for sequence, (kind, _event) in enumerate(entries, 1):
        if kind == EVENT:
            stack.append(sequence)
        elif kind == UNDO:
            stack.pop()
    return stack


# ---------------------------------------------------------------------------------------
# Rows


class EntryRow(NamedTuple):
    """A hand's entry as written: a ``tables_handevent`` row, without a model instance
    (an import writes tens of thousands of them; ``values`` is the row as ``COPY`` takes
    it, ``tables.services.hands`` inserts one at a time)."""

    table_id: int
    hand: Hand  # its id may be set after the row is made (an import's hands are written first)
    sequence: int
    kind: str
    event: dict
    entered_by_id: int | None
    entered_at: datetime
    form_token: object  # uuid.UUID or None
    previous_hash: str
    hash: str
    key_id: str

    #: The columns of ``tables_handevent`` that ``values`` fills, in its order.
    COLUMNS = ["table_id", "hand_id", "sequence", "kind", "event", "entered_by_id", "entered_at", "form_token",
               "previous_hash", "hash", "key_id"]

    def values(self):
        """The row as ``casino.bulk.rows_copy`` takes it (the event as JSON text)."""
        return (self.table_id, self.hand.pk, self.sequence, self.kind, json_text(self.event), self.entered_by_id,
                self.entered_at, self.form_token, self.previous_hash, self.hash, self.key_id)


class BetRow(NamedTuple):
    """A hand's settled bet as written: a ``tables_handbet`` row, without a model instance.
    ``stake`` and ``net``: Decimal euros; ``points``: half-points."""

    hand: Hand  # its id may be set after the row is made, as EntryRow's
    player_id: int
    seat: str
    seat_hand: int
    stake: Decimal
    points: int
    result: str
    multiplier: int
    net: Decimal

    #: The columns of ``tables_handbet`` that ``values`` fills, in its order.
    COLUMNS = ["hand_id", "player_id", "seat", "seat_hand", "stake", "points", "result", "multiplier", "net"]

    def values(self):
        """The row as ``casino.bulk.rows_copy`` takes it."""
        return (self.hand.pk, *self[1:])


def entry_row(*, table, hand, kind: str, event: dict, by, form_token) -> EntryRow:
    """The hand's next entry, chained to the table's last (its HMAC: ``tables.chain``);
    the hand's ``version`` and the table's ``last_event_hash`` advance in memory.

    Args:
        table, hand: the Table (locked) and its Hand; kind: ``event``, ``undo`` or ``void``;
        event: the entry's content; by: the user (None for an import by the system);
        form_token: the entry form's one-time token, or None.
    """
    sequence = hand.version + 1
    entered_at = timezone.now()
    previous = table.last_event_hash or GENESIS
    by_id = by.pk if by else None
    key_id = current_key_id()
    digest = entry_hash(previous=previous, key_id=key_id, table_id=table.pk, hand_number=hand.number,
                        sequence=sequence, kind=kind, event=event, entered_by_id=by_id, entered_at=entered_at)
    hand.version = sequence
    table.last_event_hash = digest
    return EntryRow(table.pk, hand, sequence, kind, event, by_id, entered_at, form_token, previous, digest, key_id)


# ---------------------------------------------------------------------------------------
# Deciding


def seat_players(codes, *, bank, field: str = "seats", seated: bool = True, known: dict | None = None) -> list:
    """The Players for ``codes``, checked: registered, distinct, not the bank's holder.

    Args:
        codes: player ids; bank: the bank's holder (a Player); field: the form field a
        refusal names; seated: the seats of a hand (1 to 9, the holder not among them), or
        a bettor; known: ``{code: Player}`` already read (only the others are read).
    Raises:
        TableError: naming ``field``.
    """
    if seated and not 1 <= len(codes) <= 9:
        raise TableError(_("seat 1 to 9 players"), field=field)
    if len(set(codes)) != len(codes):
        raise TableError(_("a player is seated twice"), field=field)
    known = known or {}
    found = {c: known[c] for c in codes if c in known}
    if len(found) < len(codes):
        found.update((p.code, p) for p in Player.objects.filter(code__in=[c for c in codes if c not in found]))
    missing = [c for c in codes if c not in found]
    if missing:
        raise TableError(_("not registered players: %(codes)s (the cashier registers them)"),
                         params={"codes": ", ".join(map(str, missing))}, field=field)
    if bank.code in found and seated:
        raise TableError(_("%(player)s holds the bank and cannot sit"), params={"player": bank.code}, field=field)
    return [found[c] for c in codes]


def opening_checks(opening: Opening, *, shift, require_shift: bool):
    """Before an opening: no hand open at the table, and its shift. Returns the shift (the
    one given, else the table's open one; None for an import without one).

    Raises:
        HandNotOpen: a hand is still open. NoShift: none open and one is required.
    """
    table, last = opening.table, opening.last_hand
    if last is not None and last.status == Hand.Status.OPEN:
        raise HandNotOpen(_("hand #%(number)s is still open at %(table)s"),
                          params={"number": last.number, "table": table.name})
    shift = opening.shift if shift is None else shift
    if shift is None and require_shift:
        raise NoShift(_("%(table)s has no open shift: a pit supervisor opens one"), params={"table": table.name})
    return shift


def new_hand(*, table, tenure, seats: list[str], shift, opened_by, imported: bool, opened_at=None,
             known: dict | None = None) -> tuple[Hand, HandState]:
    """The table's next hand with ``tenure``'s holder as its bank, unsaved, its own fields
    signed (``tables.chain.sign_opening``), and the engine's fresh state; the table's
    ``last_hand_number`` advances in memory.

    Args:
        table: the Table (locked); tenure: its open BankTenure after any takeover;
        seats: player ids in order of play; shift: the Shift or None; opened_by: the user
        or None; imported: an import's hand; opened_at: when it began (default: now);
        known: ``{code: Player}`` already read.
    Raises:
        TableError: bad seats (field ``seats``). RuleBroken: the table's rules or limits
        do not make a valid hand.
    """
    players = seat_players(seats, bank=tenure.holder, known=known)
    number = table.last_hand_number + 1
    # Who deals it: the shift's current dealer now (a relief moves it between hands).
    hand = Hand(table=table, number=number, shift=shift, tenure=tenure, bank=tenure.holder,
                dealer_id=shift.current_dealer_id if shift is not None else None,
                seats=[p.code for p in players], rules=table.rules, min_bet=table.min_bet,
                max_bet=table.max_bet, opened_by=opened_by, imported=imported)
    if opened_at is not None:
        hand.opened_at = opened_at
    sign_opening(hand)
    try:
        state = new_hand_state(hand)()
    except IllegalEvent as error:
        raise RuleBroken(error, field="seats") from None
    table.last_hand_number = number
    return hand, state


def enter(hand, state, *, event: dict, by, form_token, known: dict | None = None,
          bank_holds: int | None = None) -> EntryRow:
    """Check ``event`` on the open ``hand`` and make its entry (nothing written).

    ``state`` is the engine's state before the event; the event is applied to it, and the
    hand's version and its table's chain advance in memory. A bet's player covering it
    with his chips is the writer's check (``tables.stakes``), since what he holds is read
    under his account's lock.

    Args:
        known: ``{code: Player}`` already read; bank_holds: cents a limited bank
        (``bank_cover``) holds, if the caller keeps it (else read).
    Returns:
        the EntryRow.
    Raises:
        RuleBroken: the engine refused the event (the message names the rule).
        CoverExceeded: a limited bank does not cover the hand's stakes. TableError: a
        bettor who is not a registered player (field ``player``).
    """
    try:
        state.apply(event)
    except IllegalEvent as error:
        raise RuleBroken(error) from None
    if hand.table.bank_cover and raises_stakes(event):
        tenure_check_cover(tenure=hand.tenure, stakes=euros(stakes(state)),
                           holds=None if bank_holds is None else euros(bank_holds))
    if event.get("do") == "bet" and event.get("player") is not None:
        seat_players([event["player"]], bank=hand.bank, field="player", seated=False, known=known)
    return entry_row(table=hand.table, hand=hand, kind=EVENT, event=event, by=by, form_token=form_token)


def settled(*, hand, state, events, known: dict | None = None):
    """The finished hand settled (``game.payouts.settle``): its settlement, counts, cards
    and status set on ``hand`` (its ledger posting is the writer's: ``hand.transaction``).

    Args:
        events: the hand's events in force; known: ``{code: Player}`` already read.
    Returns:
        ``(Settlement, [BetRow])``.
    """
    settlement = settle(state)
    plays = Counter(event.get("do") for event in events)
    hand.status = Hand.Status.SETTLED
    hand.settlement = settlement.as_dict()
    hand.next_bank = settlement.next_bank
    hand.settled_at = timezone.now()
    hand.splits, hand.exchanges = plays["split"], plays["exchange"]
    hand.fusilados, hand.muertos = plays["fusilar"], plays["muerto"]
    hand.cards = [CARD_NAME[code] for code, _dealt, _returned in state.instances]
    players = known or {}
    if not players.keys() >= settlement.players.keys():
        players = {p.code: p for p in Player.objects.filter(code__in=settlement.players)}
    bets = [BetRow(hand, players[bet.player].pk, bet.seat, bet.hand, euros(bet.stake), bet.points, bet.result,
                   bet.multiplier, euros(bet.net)) for bet in settlement.bets]
    return settlement, bets


def check_entry(hand, expected_version: int | None) -> None:
    """An entry goes only to an open hand at the version the screen showed.

    Raises:
        HandNotOpen: the hand is settled or voided. StaleHand: another entry came first.
    """
    if hand.status != Hand.Status.OPEN:
        raise HandNotOpen(_("hand #%(number)s is %(status)s: nothing more is entered on it"),
                          params={"number": hand.number, "status": hand.get_status_display()})
    if expected_version is not None and hand.version != expected_version:
        raise StaleHand()
