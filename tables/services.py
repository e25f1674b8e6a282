"""Writes at the tables: shifts, hands and every entry at the table, the bank's changes.

Every public service runs in ONE database transaction and first locks the table's row
(``SELECT ... FOR UPDATE``): a table's entries are serialized, so two dealers' screens on
the same table cannot both apply an entry, and hand numbers and the hash chain advance
one at a time. Entries go through the rules engine before anything is written; a refusal
raises a ``tables.errors.TableError`` (the engine's as ``RuleBroken``) and writes nothing.

A hand that finishes is settled and posted to the ledger in the same transaction as its
last entry. [issue 4; rules.md for the rules; hand-record.md for the events]
"""

import json
from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import NamedTuple

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection
from django.db import transaction as db
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.bulk import IdPool, instances_copy, json_text, rows_copy, send_all
from casino.write_behind import WriteBehind
from game import HandState, IllegalEvent, parse_amount
from game.cards import CARD_NAME
from game.entries import EVENT, UNDO, VOID, effective_events
from game.payouts import at_risk, settle
from game.record import check_complete, profile_for, read_header
from ledger import posting
from ledger.chips import chips_opening
from ledger.errors import InsufficientChips
from ledger.models import Account, Transaction
from ledger.money import cents, euros, show
from ledger.posting import refusals_recorded
from ledger.selectors import player_balance
from patrons.models import Player
from tables.bank.deposits import awaiting_deposit
from tables.bank.life import auction_sessions_played, bank_floor, bank_rebuild_order, bank_withdraw
from tables.bank.tenures import (
    bank_sell,
    bank_transfer,
    tenure_check_cover,
    tenure_close,
    tenure_open,
    through_distribution,
)
from tables.chain import GENESIS, current_key_id, entry_hash
from tables.errors import (
    BankNotReady,
    ChipsNotCovered,
    HandNotOpen,
    NoShift,
    NotTheDealer,
    RecordRefused,
    RuleBroken,
    StaleHand,
    TableError,
    engine_message,
)
from tables.hand_lock import (
    LockedHand,
    Opening,
    hand_entries,
    last_hand,
    lock_hand,
    lock_table_for_opening,
    open_tenure,
)
from tables.import_ledger import SettlementBatch
from tables.models import BankRebuild, BankTenure, Hand, HandBet, HandEvent, Shift, Table
from tables.settlement import ledger_post_settlement
from tables.stakes import lock_chips, open_hands_at_risk

#: Sent on commit when a shift closes (the reports queue the shift's report).
shift_closed = Signal()



class AtTable(NamedTuple):
    """A hand as the console redraws it after an entry or an opening: read under the
    table's lock, with what the entry changed (``console_record_event``,
    ``console_open_hand``)."""

    #: the Hand, with ``table``, ``bank``, ``tenure``, ``shift`` and its ``dealer``.
    hand: Hand
    #: every ``(kind, event)`` entry of the hand, in order.
    entries: list
    #: the engine's state after them.
    state: HandState


# ---------------------------------------------------------------------------------------
# Reading a hand back (no writes)

def new_hand_state(hand):
    """A function making the hand's fresh engine state (before its first event)."""
    return state_maker(rules=hand.rules, min_bet=hand.min_bet, max_bet=hand.max_bet, bank_code=hand.bank.code,
                       seats=hand.seats)


def state_maker(*, rules: dict, min_bet: Decimal, max_bet: Decimal, bank_code: str, seats: list):
    """``new_hand_state`` from a hand's columns read as a tuple (``rules``; ``min_bet`` and
    ``max_bet`` in euros; the bank's player code; the seats' codes): a function making
    its fresh engine state. Raises ``InvalidRules`` as ``profile_for``."""
    profile = profile_for(rules)
    low, high = cents(min_bet), cents(max_bet)
    seats = list(seats)
    return lambda: HandState(profile, low, high, bank_code, seats, allow_unknown=True)


def hand_state(hand, entries=None):
    """The engine's ``HandState`` of a hand: its effective events replayed.

    Args:
        hand: a Hand; entries: its ``(kind, event)`` entries if already read.
    Returns:
        HandState (``allow_unknown``: face-down cards may still be unnamed).
    """
    state = new_hand_state(hand)()
    for event in effective_events(hand_entries(hand) if entries is None else entries):
        state.apply(event)
    return state


# ---------------------------------------------------------------------------------------
# Shifts

def shift_open(*, table: Table, dealer, opened_by) -> Shift:
    """Open a dealer's shift at a table (pit supervisor).

    Raises:
        NoShift: the table already has an open shift.
    """
    with db.atomic():
        table = _lock_table(table.pk)
        current = table.shifts.filter(closed_at__isnull=True).first()
        if current is not None:
            raise NoShift(_("%(table)s already has an open shift (dealer %(dealer)s): close it first"),
                          params={"table": table.name, "dealer": current.dealer.get_username()})
        return Shift.objects.create(table=table, dealer=dealer, opened_by=opened_by)


def shift_close(*, shift: Shift, closed_by) -> Shift:
    """Close a shift (pit supervisor); its report is queued once this commits.

    Raises:
        NoShift: already closed. HandNotOpen: a hand is still open at the table.
    """
    with db.atomic():
        table = _lock_table(shift.table_id)
        shift = Shift.objects.select_for_update().get(pk=shift.pk)
        if not shift.is_open:
            raise NoShift(_("this shift is already closed"))
        open_hand = table.hands.filter(status=Hand.Status.OPEN).first()
        if open_hand is not None:
            raise HandNotOpen(_("hand #%(number)s is still open: finish or void it before closing the shift"),
                              params={"number": open_hand.number})
        shift.closed_at = timezone.now()
        shift.closed_by = closed_by
        shift.save(update_fields=["closed_at", "closed_by"])
        _end_awarded_term(table, closed_by)
        db.on_commit(lambda: shift_closed.send(sender=Shift, shift_id=shift.pk))
        return shift


def _end_awarded_term(table, closed_by):
    """At the close of a table session: a bank won at auction for N sessions whose N-th
    session this was ends with it (``ended="term"``, its balance back to its syndicate by
    shares); the table has no bank until the pit draws for it or auctions it again.

    The session counted is the table's shift (opened and closed by the pit); the session
    during which the bank was awarded is its first. [France, arrêté of 14 May 2007 art.
    61: the bank is awarded "per taille or per session"; Melilla casino rules 2014 art.
    52: without a banker the bank is auctioned]
    """
    tenure = open_tenure(table)
    if tenure is None or tenure.began != BankTenure.Began.AUCTION:
        return None
    played = auction_sessions_played(tenure)
    if played is None or played[0] < played[1]:
        return None
    return tenure_close(tenure=tenure, ended=BankTenure.Ended.TERM, posted_by=closed_by, source="pit")


def dealer_shift(*, table: Table, user):
    """The open shift at ``table`` whose dealer is ``user``, or None."""
    return table.shifts.filter(closed_at__isnull=True, dealer=user).first()


# ---------------------------------------------------------------------------------------
# Hands

def hand_open(*, table: Table, seats: list[str], opened_by, shift: Shift | None = None,
              require_shift: bool = True, imported: bool = False) -> Hand:
    """Open the next hand at a table, with the bank's current holder.

    If the last hand's 7½ passed the bank (``next_bank``), the new holder takes it first
    (a ``natural`` tenure whose capital is the table's takeover capital, at most his
    chips). [rules.md "The bank passes"]

    Args:
        table: the Table; seats: player ids in order of play (1 to 9, registered players,
            not the bank's holder); opened_by: the dealer (None for an import);
        shift: the shift the hand belongs to (default: the table's open shift);
        require_shift: refuse without an open shift (the console); an import may not.
    Returns:
        the new open Hand, numbered the table's last number + 1, with its table, shift
        and bank loaded.
    Raises:
        HandNotOpen: a hand is already open. NoShift: no open shift. BankNotReady: no
        bank at the table, a bank opened by the pit still awaiting its deposits at the
        cage (naming who owes what), or a limited bank wiped out. TableError: bad seats (field ``seats``). RuleBroken: the
        table's rules or limits do not make a valid hand.
    """
    with db.atomic():
        hand, _state = _open_locked(lock_table_for_opening(table.pk), seats=seats, opened_by=opened_by, shift=shift,
                                    require_shift=require_shift, imported=imported)
        return hand


def console_open_hand(*, table_id: int, seats: list[str], dealer, after: int) -> AtTable:
    """``hand_open`` as the dealer's console sends it: the next hand after hand number
    ``after``, the last the dealer's screen showed.

    The checks a screen needs (``dealer`` is the dealer of the table's open shift, no
    hand opened since the screen was drawn) are made on what is read under the table's
    lock, with what the opening reads anyway. [issue 4 "The table console"]

    Args:
        table_id: the table's id; seats: as for ``hand_open``; dealer: the user opening
        it; after: the table's last hand number on the screen (0 before the first).
    Returns:
        ``AtTable``: the new Hand as ``hand_open`` returns it (its shift with its
        dealer), no entries yet, the engine's fresh state.
    Raises:
        NotTheDealer: ``dealer`` is not the dealer of the table's open shift.
        StaleHand: a hand was opened since (this form sent twice, or another screen).
        HandNotOpen, BankNotReady, TableError, RuleBroken: as ``hand_open``.
        Table.DoesNotExist: no such table.
    """
    with db.atomic():
        opening = lock_table_for_opening(table_id)
        shift = opening.shift
        if shift is None or shift.dealer_id != dealer.pk:
            raise NotTheDealer(_("only the dealer of the table's open shift opens its hands"))
        if opening.table.last_hand_number != after:
            raise StaleHand(_("a hand was opened since this screen was drawn: reload"))
        hand, state = _open_locked(opening, seats=seats, opened_by=dealer, shift=shift, require_shift=True,
                                   imported=False)
        return AtTable(hand, [], state)


def _open_locked(opening: Opening, *, seats, opened_by, shift, require_shift, imported, opened_at=None,
                 write=True, players=None, ledger=None):
    """``hand_open``'s work on what ``lock_table_for_opening`` read; ``(the new Hand,
    the engine's fresh state)``.

    ``opened_at``: when the hand began (default: now). ``write``: insert the hand and
    the table's new ``last_hand_number`` now; an import (False) writes its hands in bulk
    and each table's head once per batch (``_ImportBatch``). ``players``: as for
    ``_seat_players``. ``ledger``: an import's ``SettlementBatch`` (its postings flushed by
    the caller: a takeover not passed in memory, ``SettlementBatch.pass_bank``, posts
    through the ledger's services), whose balances it reads.
    """
    # A hand opens only when none is open, numbered after the last: an open hand is the
    # table's latest hand not voided, which also says who takes the bank.
    table, last = opening.table, opening.last_hand
    if last is not None and last.status == Hand.Status.OPEN:
        raise HandNotOpen(_("hand #%(number)s is still open at %(table)s"),
                          params={"number": last.number, "table": table.name})
    if shift is None:
        shift = opening.shift
    if shift is None and require_shift:
        raise NoShift(_("%(table)s has no open shift: a pit supervisor opens one"), params={"table": table.name})
    tenure = _take_over_if_due(table=table, tenure=opening.tenure, by=opened_by, last=last, players=players)
    if ledger is not None and tenure is not opening.tenure:
        ledger.forget()  # the takeover posted: the balances are read again
    if tenure.deposit_required or table.bank_cover:  # a rebuild is ordered only for a limited bank
        _refuse_bank_awaiting_deposit(table, tenure)
    if table.bank_cover:
        _refuse_wiped_out_bank(table, tenure, ledger)
    players = _seat_players(seats, bank=tenure.holder, known=players)
    number = table.last_hand_number + 1
    hand = Hand(table=table, number=number, shift=shift, tenure=tenure, bank=tenure.holder,
                seats=[p.code for p in players], rules=table.rules, min_bet=table.min_bet,
                max_bet=table.max_bet, opened_by=opened_by, imported=imported)
    if opened_at is not None:
        hand.opened_at = opened_at
    try:
        state = new_hand_state(hand)()
    except IllegalEvent as error:
        raise RuleBroken(error, field="seats") from None
    table.last_hand_number = number
    if write:
        hand.save()
        table.save(update_fields=["last_hand_number"])
    return hand, state


def hand_record_event(*, hand: Hand, event: dict, entered_by, expected_version: int | None = None,
                      form_token=None, source: str = "console", settle: bool = True) -> Hand:
    """Enter one event of a hand; settle and post the hand if it is now finished.

    Args:
        hand: the open Hand; event: the event as in ``hand-record.md`` (a face-down card
            may be ``None``, named later by ``reveal`` or ``identify``);
        entered_by: the dealer (None for an import);
        expected_version: the hand's ``version`` the dealer's screen showed; another
            entry since then refuses this one (None: no check, for imports);
        form_token: the entry form's token: the same token twice records once.
        settle: settle the hand as soon as it may end (the console). An import passes
            False but for its record's last event: the bank may still play when nothing
            is left standing, and the record says whether it did.
    Returns:
        the Hand, refreshed (``status`` settled if this event finished it), with its
        table, shift and dealer loaded.
    Raises:
        RuleBroken: the engine refused the event (the message names the rule).
        StaleHand, HandNotOpen, CoverExceeded (``bank_cover``), UnknownPlayer.
    """
    try:
        with db.atomic():
            locked = lock_hand(hand_id=hand.pk)
            return _record_locked(locked, event=event, entered_by=entered_by, expected_version=expected_version,
                                  form_token=form_token, source=source, settle=settle).hand
    except IntegrityError:
        return _after_conflict(form_token)


def console_record_event(*, table_id: int, number: int, event: dict, dealer, expected_version: int,
                         form_token) -> AtTable:
    """``hand_record_event`` as the dealer's console sends it: to the table's open hand,
    which the dealer's screen showed as hand ``number`` at ``expected_version``.

    The checks a screen needs (this is the table's open hand, ``dealer`` is the dealer
    of its open shift) are made on the hand read under the table's lock, so that an
    entry costs one read. [issue 4 "The table console"]

    Args:
        table_id: the table's id; number: the hand's number on the screen;
        event, expected_version, form_token: as for ``hand_record_event``;
        dealer: the user entering it.
    Returns:
        ``AtTable``: the Hand as ``hand_record_event`` returns it, its entries (this one
        included) and the engine's state after them, so that the console redraws without
        reading them again.
    Raises:
        HandNotOpen: the table has no open hand (the screen's hand may have been settled
            by this very form, sent twice: see the table's latest hand).
        NotTheDealer: ``dealer`` is not the dealer of the hand's open shift.
        StaleHand: the open hand is not hand ``number`` (a screen of an earlier hand),
            or another entry came first. RuleBroken, CoverExceeded, UnknownPlayer.
        Table.DoesNotExist: no such table.
    """
    try:
        with db.atomic():
            locked = lock_hand(table_id=table_id)
            if locked is None:
                raise HandNotOpen(_("There is no open hand at this table."))
            hand = locked.hand
            shift = hand.shift
            if shift is None or shift.dealer_id != dealer.pk or shift.closed_at is not None:
                raise NotTheDealer(_("only the dealer of the table's open shift enters its hands"))
            if hand.number != number:  # a screen of an earlier hand: its version says nothing
                raise StaleHand()
            return _record_locked(locked, event=event, entered_by=dealer, expected_version=expected_version,
                                  form_token=form_token, source="console", settle=True)
    except IntegrityError:
        hand = _after_conflict(form_token)
        entries = hand_entries(hand)
        return AtTable(hand, entries, hand_state(hand, entries))


def _record_locked(locked: LockedHand, *, event, entered_by, expected_version, form_token, source,
                   settle) -> AtTable:
    """Check ``event`` on the hand ``lock_hand`` read under the table's lock and record
    it; settle and post the hand if it is finished."""
    hand, entries = locked
    state = hand_state(hand, entries)
    if _already_recorded(hand, expected_version, form_token):
        return AtTable(hand, entries, state)  # a double click or a refresh: the entry is already recorded
    _check_entry(hand, expected_version)
    _write_entry(_enter(hand, state, event=event, by=entered_by, form_token=form_token))
    entries = [*entries, (EVENT, event)]
    if settle and _finished(state):
        _settle(hand=hand, state=state, events=effective_events(entries), by=entered_by, source=source)
    return AtTable(hand, entries, state)


def _enter(hand, state, *, event, by, form_token, players=None, covered=True, ledger=None, row=False):
    """Check ``event`` on the open ``hand`` and make its entry (not written yet).

    ``state`` is the engine's state of the hand before this event; the event is applied
    to it, and the hand's version and its table's chain advance in memory (``_entry``).
    The hand's table is locked by the caller. Shared by an entry at the console and by
    an import. ``players``: as for ``_seat_players``. ``covered``: check that a bet's
    player covers it (``_check_covered``); an import passes False and checks its
    record's bets itself (``_ImportCover``: its players' chips read once per batch).
    ``ledger``: an import's ``SettlementBatch``, whose balance of the bank ``bank_cover``
    checks against. ``row``: the entry as an ``EntryRow`` (an import's), not a HandEvent.

    Returns:
        the HandEvent, unsaved (or its ``EntryRow``).
    Raises:
        RuleBroken: the engine refused the event. CoverExceeded (``bank_cover``),
        TableError (a bettor who is not a registered player), ChipsNotCovered.
    """
    staking = covered and type(event) is dict and event.get("do") in ("bet", "muerto")
    if staking:
        bettor = event.get("player") or event.get("seat")
        before = at_risk(state).get(bettor, 0)
    try:
        state.apply(event)
    except IllegalEvent as error:
        raise RuleBroken(error) from None
    if hand.table.bank_cover and event.get("do") in ("bet", "muerto"):
        tenure_check_cover(tenure=hand.tenure, stakes=euros(_stakes(state)),
                           holds=None if ledger is None else euros(ledger.bank_holds(hand.tenure)))
    if event.get("do") == "bet" and event.get("player") is not None:
        _seat_players([event["player"]], bank=hand.bank, field="player", seated=False, known=players)
    if staking:
        _check_covered(hand, state, bettor, before)
    return _entry(table=hand.table, hand=hand, kind=EVENT, event=event, by=by, form_token=form_token, row=row)


def _check_covered(hand, state, code, before):
    """Refuse the bet just applied to ``state`` unless ``code``'s chips on record cover
    what he has at risk in this hand with it and in every other open hand (``before``:
    cents he had at risk in this hand before the bet, for the message).

    His chips account's row is locked (``lock_chips``), so that two tables, a cash-out
    or a transfer cannot spend the same chips at once; the other open hands are read after
    the lock. [issue 14 "Chips"]

    Raises:
        ChipsNotCovered: naming his holding, what he had at risk, and what the bet would
        put at risk (``Decimal`` euros in the message, in the reader's locale).
    """
    here = at_risk(state).get(code, 0)
    holding = lock_chips([code]).get(code, 0)
    if here <= holding:  # over his chips in this hand alone: the others need not be read
        elsewhere = open_hands_at_risk(codes=[code], exclude_hand_id=hand.pk).get(code, 0)
    else:
        elsewhere = 0
    if here + elsewhere > holding:
        raise ChipsNotCovered(player=code, holding=euros(holding), at_risk=euros(before + elsewhere),
                              needed=euros(here + elsewhere))


def _finished(state):
    """May the hand be settled now: nothing left to play, every face-down card named."""
    return state.complete and not state.identities_owed()


def hand_undo(*, hand: Hand, reason: str, entered_by, expected_version: int | None = None,
              form_token=None) -> Hand:
    """Undo the latest event in force of an open hand; the undo is an entry of its own.

    Raises:
        TableError: no reason, or nothing to undo. StaleHand, HandNotOpen.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TableError(_("say why the event is undone"), field="reason")
    try:
        with db.atomic():
            hand, entries = lock_hand(hand_id=hand.pk)
            if _already_recorded(hand, expected_version, form_token):
                return hand
            _check_entry(hand, expected_version)
            in_force = _sequences_in_force(entries)
            if not in_force:
                raise TableError(_("there is no event left to undo"), field="reason")
            _append(table=hand.table, hand=hand, kind=UNDO, event={"undo": in_force[-1], "reason": reason},
                    by=entered_by, form_token=form_token)
            return hand
    except IntegrityError:
        return _after_conflict(form_token)


def hand_void(*, hand: Hand, reason: str, voided_by) -> Hand:
    """Void a hand (pit supervisor): a settled hand's posting is reversed in the ledger.

    A hand of a bank tenure closed since is voided all the same: what the reversal owes
    or gives the bank is posted against the tenure's distribution, the holder's and the
    syndicate's shares by largest remainder (``posting.reverse(closed_legs=tables.bank.tenures.through_distribution)``).

    Raises:
        TableError: no reason. HandNotOpen: already voided.
    """
    reason = (reason or "").strip()
    if not reason:
        raise TableError(_("say why the hand is voided"), field="reason")
    with db.atomic():
        table = _lock_table(hand.table_id)
        hand = Hand.objects.select_related("transaction").get(pk=hand.pk)
        if hand.status == Hand.Status.VOIDED:
            raise HandNotOpen(_("hand #%(number)s is already voided"), params={"number": hand.number})
        if hand.transaction is not None:
            posting.reverse(transaction=hand.transaction, reason=reason, posted_by=voided_by,
                            void={"table": table.name, "table_id": table.pk, "number": hand.number},
                            closed_legs=through_distribution)
        _append(table=table, hand=hand, kind=VOID, event={"reason": reason}, by=voided_by, form_token=None)
        hand.status = Hand.Status.VOIDED
        hand.voided_at = timezone.now()
        hand.voided_by = voided_by
        hand.void_reason = reason
        hand.save(update_fields=["status", "voided_at", "voided_by", "void_reason"])
        return hand


#: The earliest moment a hand record may say it started (the back-office keeps no older hand).
EARLIEST_HAND = datetime(2000, 1, 1, tzinfo=UTC)


def _started_at(text):
    """A record's ``started_at`` (ISO 8601 with its offset, checked by the engine) as an
    aware datetime, if it lies from ``EARLIEST_HAND`` to a day from now.

    Raises:
        RecordRefused: (field ``started_at``) for a moment outside that span: a hand from
        the year 9999 would be shown, counted in gaming days and reported as if real.
    """
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if not EARLIEST_HAND <= moment <= timezone.now() + timedelta(days=1):
        raise RecordRefused(_("started_at %(value)s is not when a hand was played: it must lie from 2000 to now"),
                            params={"value": text}, field="started_at")
    return moment


def hand_import_record(*, record: dict, imported_by=None, create_tables: bool = False) -> Hand:
    """Record and settle one hand record: ``hand_import_records`` of that record alone.

    Args:
        record: a decoded hand record naming its ``table``.
        imported_by: the user running the import (None for the system).
        create_tables: create a missing table from the record's rules and limits.
    Returns:
        the settled Hand.
    Raises:
        RecordRefused: with ``event`` (0 outside the events): an invalid record, a bet
        its player's chips do not cover (the message names him and his holding), a
        missing table, rules or limits that differ from the table's, a bank that is not
        the table's holder, a number that is not the table's next; and the ledger's
        refusals. Nothing is written.
    """
    (hand,) = hand_import_records(records=[record], imported_by=imported_by, create_tables=create_tables)
    return hand


def hand_import_records(*, records: Sequence[dict], imported_by=None, create_tables: bool = False,
                        opening_chips: Decimal | None = None) -> list[Hand]:
    """Record and settle hand records, in order, in ONE database transaction, each record
    all or nothing. [issue 4 "Around the hand"; issue 18 "The import crawls"]

    Each record's header is checked by the engine first (``read_header``); then its table is found
    (or created from the record's rules and limits with ``create_tables``) and locked
    for the rest of the transaction, the bank's holder checked (a table without a bank
    gets one drawn for the record's bank, with the table's takeover capital at most his
    chips), the players the record names registered (code only) if new, the hand opened
    (a 7½ takeover due passes the bank first) and every event entered through the same
    code as the console's entries (``_open_locked``, ``_enter``), each bet checked
    against its player's chips (``_ImportCover``: a record whose stakes a player cannot
    cover is refused), and the finished hand settled (``_settle``; a record that ends
    before the hand is over is refused: ``check_complete``).

    What a batch writes waits in memory (``_ImportBatch``) until ``SEND_EVERY`` records
    are accepted; they are then sent to the database on a writer thread, in the batch's
    transaction, while the next records are entered (``casino.write_behind``), and the rest
    at the batch's end: the hands, their entries and bets, each kind inserted in one
    ``COPY``; the settlements posted in bulk (``ledger.services.posting.SettlementBatch``:
    the transactions, their entries, each balance moved once); each table's head (its last
    hand number and its last entry's hash) written once at the end. The keys of the
    hands, entries, bets and ledger entries are checked as each ``COPY`` ends
    (``_KEYS_AT_EACH_COPY``), the others at COMMIT. A 7½ takeover passes the bank in
    memory with the batch (``SettlementBatch.pass_bank``: the old tenure closed and
    distributed, the taker's tenure, share and account copied in with the batch's rows,
    the patrons' AML days kept per batch, ``cage.services.aml.AmlBatch``). The accounts
    are locked and their balances read once per batch, then kept in memory: the cover
    checks (a player's chips, a limited bank's funds) read nothing more. A record that
    writes before the batch's end (a table or players created, a bank drawn for, or
    passed when an account it moves is missing, whose postings go through the ledger's
    own services after the pending settlements are written) gets a savepoint of its own
    (the writer idle: none of its rows is sent inside it); one that only reads
    needs none.

    The first refused record stops the import: nothing of it is written (its savepoint
    rolled back: not its table, players, bank or posting; or, without one, it was never
    added to the batch, and what it kept in the batch's ledger is undone,
    ``SettlementBatch.undo``), the records before it are written and committed, then its
    refusal is raised. A database error (a constraint or trigger refusing what the
    checks let through: a defect) rolls the whole batch back.

    Args:
        records: decoded hand records, each naming its ``table``.
        imported_by: the user running the import (None for the system).
        create_tables: create a missing table from the record's rules and limits.
        opening_chips: ``Decimal`` euros, or None: for a migration, each player the import
            creates gets this much as his opening chips (``ledger.services.chips_opening``,
            a marked buy-in), before his first bet is checked.
    Returns:
        the settled Hands, one per record, in order.
    Raises:
        RecordRefused, or the ledger's refusal (``LedgerError``), as ``hand_import_record``;
        the error carries ``index`` (the refused record's position in ``records``) and
        ``imported`` (the Hands of the records before it, committed).
    """
    refused = None
    batch = _ImportBatch(imported_by=imported_by, create_tables=create_tables, opening_chips=opening_chips)
    with db.atomic(), WriteBehind() as writer:
        batch.writer = writer
        batch.expect(records)
        for index, record in enumerate(records):
            writes = batch.before(record)
            mark = batch.ledger.mark()
            try:
                # A savepoint for a record that writes before the batch's end: refused, it leaves
                # nothing behind. One that only reads needs none (SAVEPOINT and RELEASE fewer for
                # three records in four: 7.9 to 6.5 statements a hand, in-process, 1,000 of
                # benchmarks/import.py's hands): refused, it is simply not added to the batch, and
                # what it kept in the batch's ledger (a bank passed by a 7½) is undone.
                with db.atomic() if writes else nullcontext():
                    batch.add(record)
            except ValidationError as error:
                batch.ledger.undo(mark)
                refused = error
                refused.index = index
                break
            if len(batch.hands) - batch.sent >= SEND_EVERY:
                batch.send()
        batch.write()
    if refused is not None:
        refused.imported = batch.hands
        raise refused
    return batch.hands


#: An import's batch sends the rows of every SEND_EVERY records accepted to the database on
#: a writer thread (``casino.write_behind``) while it enters the next ones, instead of all
#: at its end, each hand's, entry's, bet's and ledger entry's keys checked as its COPY ends
#: (``_KEYS_AT_EACH_COPY``) instead of all at COMMIT: the import's thread no longer waits
#: for most of the database's work. See ``_ImportBatch.send`` for the figures.
SEND_EVERY = 100

#: The foreign keys of the rows an import copies that point only at rows written before
#: them (a hand's table, bank, tenure and posting; an entry's hand; a bet's hand and
#: player; a ledger entry's transaction and account: ``_ImportBatch._detach``'s order),
#: checked when each statement ends, for the rest of the batch's transaction, not at COMMIT
#: (PostgreSQL's ``SET CONSTRAINTS ... IMMEDIATE``; the keys stay ``DEFERRABLE INITIALLY
#: DEFERRED`` for every other transaction). Their names are Django's (a hash of the table and
#: column), read from the catalogue.
_KEYS_AT_EACH_COPY = """
DO $$ BEGIN
    EXECUTE 'SET CONSTRAINTS ' || (
        SELECT string_agg(quote_ident(conname), ', ') FROM pg_constraint
         WHERE contype = 'f' AND conrelid IN ('tables_hand'::regclass, 'tables_handevent'::regclass,
                                              'tables_handbet'::regclass, 'ledger_entry'::regclass))
        || ' IMMEDIATE';
END $$"""


class _ImportCover:
    """An import's bets checked against its players' chips, event by event: his chips on
    record (``SettlementBatch.chips``: read and row-locked once per batch, kept up to date
    in memory with the batch's postings) less what he has at risk in the open hands at
    other tables (read once per batch, after the lock: no bet elsewhere can add to it
    before the batch commits, since every bet locks his chips first). The same rule as an
    entry's (``_check_covered``), without a read per bet or per record."""

    def __init__(self, ledger):
        self.ledger = ledger
        self.elsewhere = {}  # code -> cents at risk in the open hands (read once per batch)

    def read(self, codes, tenure=None):
        """``codes``' chips (locked first), then what they have at risk in the open hands
        if not read yet."""
        holding = self.ledger.chips(codes, tenure)
        new = set(codes) - self.elsewhere.keys()
        if new:
            self.elsewhere.update(dict.fromkeys(new, 0))
            self.elsewhere.update(open_hands_at_risk(codes=new))
        return holding

    def start(self, codes, tenure):
        """Before a record's first event: its players' chips and risk elsewhere (and the
        account of the hand's ``tenure``, read with them)."""
        self.holding = self.read(codes, tenure)
        self.risk = {}  # at_risk of the record's hand after its last bet

    def check(self, state, event):
        """Raise ``ChipsNotCovered`` if ``event`` (just applied to ``state``) is a bet
        its player cannot cover."""
        if event.get("do") not in ("bet", "muerto"):
            return
        code = event.get("player") or event.get("seat")
        risk = at_risk(state)
        holding, elsewhere = self.holding.get(code, 0), self.elsewhere.get(code, 0)
        if risk.get(code, 0) + elsewhere > holding:
            raise ChipsNotCovered(player=code, holding=euros(holding),
                                  at_risk=euros(self.risk.get(code, 0) + elsewhere),
                                  needed=euros(risk.get(code, 0) + elsewhere))
        self.risk = risk

    def left_open(self, state):
        """A record's hand left open (not finished): what it puts at risk counts for the
        batch's next records."""
        for code, risk in at_risk(state).items():
            self.elsewhere[code] = self.elsewhere.get(code, 0) + risk


class _ImportBatch:
    """What an import's transaction has locked and read, and what it will write.

    The records are entered one after the other against the same locked table rows
    (read once: ``openings``, kept up to date in memory), the players known
    (``players``), the accounts locked and their balances (``ledger``, a
    ``SettlementBatch``: the settlements posted in bulk), and the hands, entries and bets
    of the records accepted so far, written by ``write``."""

    def __init__(self, *, imported_by, create_tables, opening_chips=None):
        self.imported_by, self.create_tables = imported_by, create_tables
        self.opening_chips = opening_chips  # Decimal euros booked for each player created, or None
        self.openings = {}  # table name -> Opening as lock_table_for_opening read it, kept up to date
        self.players = {}  # code -> Player registered
        self.hands, self.entries, self.bets = [], [], []  # of the records accepted, not written yet
        self.heads = {}  # table -> (last hand number, last entry's hash) after the last record accepted
        self.ledger = SettlementBatch()
        self.ledger.players = self.players  # the same dict: the batch's players, their AML days read together
        self.cover = _ImportCover(self.ledger)
        self.changes = []  # per record of the batch: does its bank differ from its table's record before?
        self.position = -1  # the index of the record being entered
        self.sent = 0  # how many of ``hands`` were sent (``send``)
        self.writer = None  # the batch's WriteBehind, set by hand_import_records

    def expect(self, records):
        """Before the batch's first record: read its players, their chips (locked) and
        what they have at risk in open hands, for all its records at once (three
        statements a batch instead of up to three a record; with the balances forgotten
        after a bank passed read again in one statement and the house's read once, 10.9
        to 7.9 statements a hand, in-process, 1,000 of ``benchmarks/import.py``'s hands)."""
        with connection.cursor() as cursor:
            cursor.execute(_KEYS_AT_EACH_COPY)
        codes = set().union(*(_record_codes(record) for record in records if isinstance(record, dict)))
        self._known(codes)
        self.cover.read(codes & self.players.keys())
        # Where the bank changes hands from one record to the next at the same table: the banks
        # the batch will pass (SettlementBatch.expect_passes, their ids taken together).
        banks = {}
        for record in records:
            table, bank = (record.get("table"), record.get("bank")) if isinstance(record, dict) else (None, None)
            if not isinstance(table, str):  # refused when its turn comes
                table = None
            self.changes.append(table in banks and banks[table] != bank)
            banks[table] = bank

    def before(self, record):
        """Before a record: will entering it write anything before the batch's end (its
        table created, players registered, a bank drawn for, a player's first chips
        account, or a bank passed by a 7½ that ``SettlementBatch.pass_bank`` cannot pass
        in memory: an account it moves missing)? Then the settlements pending are posted
        first (the ledger's own services read the balances from the database, and inside
        the record's savepoint its refusal would roll them back) and True is returned: the
        record needs a savepoint. Otherwise entering it only reads (its writes wait in the
        batch) and nothing of it needs undoing if it is refused but what it kept in the
        batch (``SettlementBatch.undo``)."""
        self.position += 1
        if not isinstance(record, dict):
            return True
        table = record.get("table")
        opening = self.openings.get(table) if isinstance(table, str) else None
        codes = _record_codes(record)
        writes = (opening is None or opening.tenure is None
                  or not self._known(codes)
                  or any(self.ledger.accounts.get(code) is None for code in codes))
        if not writes:
            taker = self._taker(opening)
            writes = taker is not None and not self.ledger.can_pass(opening.tenure, taker)
        if writes:
            self.ledger.flush()
        return writes

    def _taker(self, opening):
        """The Player a 7½ of the table's last hand passes its bank to (None: none due, or
        not one of the batch's players)."""
        last = opening.last_hand
        if (last is None or last.status != Hand.Status.SETTLED or last.tenure_id != opening.tenure.pk
                or not last.next_bank or last.next_bank == opening.tenure.holder.code):
            return None
        return self.players.get(last.next_bank)

    def add(self, record):
        """Check and enter one record (inside the caller's savepoint); its hand, entries
        and bets are kept for ``write``. Raises the record's refusal."""
        # The header checked by the engine before anything is read or written; the events once,
        # as they are entered (_enter), not played a first time on their own (play_record, about
        # 5 % of the import's thread under py-spy). benchmarks/import.py, in alternation
        # (2026-11-25): in-process (6,000 hands) 929 and 958 hands/s against 856 and 922, the
        # whole benchmark 860 and 833 against 834 and 826.
        try:
            read_header(record)
        except IllegalEvent as error:
            raise RecordRefused(engine_message(error), event=error.event, rule=error.rule) from None
        opening = self._opening(record)
        table = opening.table
        _check_record_fits(table, record)
        codes = _record_codes(record)
        players = self._register(codes)
        by = self.imported_by
        holder = pending_bank_holder(table, opening.tenure, last=opening.last_hand, players=players)
        if holder is None:
            bank = players[record["bank"]]
            capital = min(table.bank_capital, _free_chips(bank))
            opening = opening._replace(tenure=tenure_open(
                table=table, holder=bank, capital=capital, began=BankTenure.Began.DRAW, posted_by=by,
                source="system:import" if by is None else "import"))
            self.ledger.forget()
        elif holder.code != record["bank"]:
            raise RecordRefused(_("the bank at %(table)s is %(holder)s's, not %(bank)s's"),
                                params={"table": table.name, "holder": holder.code, "bank": record["bank"]})
        elif holder.pk != opening.tenure.holder_id and self.ledger.can_pass(opening.tenure, holder):
            opening = opening._replace(tenure=self._pass_bank(table, opening.tenure, holder))
        started = record.get("started_at")
        hand, state = _open_locked(
            opening, seats=record["seats"], opened_by=by, shift=None, require_shift=False, imported=True,
            write=False, players=players, opened_at=_started_at(started) if started else None,
            ledger=self.ledger)
        entries = []
        self.cover.start(codes, hand.tenure)
        for number, event in enumerate(record["events"], 1):
            try:
                entries.append(_enter(hand, state, event=event, by=by, form_token=None, players=players,
                                      covered=False, ledger=self.ledger, row=True))
                self.cover.check(state, event)
            except ValidationError as error:  # the engine's, the table's or the ledger's (bank_cover)
                raise RecordRefused(str(error), event=number, rule=getattr(error, "rule", "record")) from None
        try:
            check_complete(state)
        except IllegalEvent as error:
            raise RecordRefused(engine_message(error), event=error.event, rule=error.rule) from None
        bets = []
        if _finished(state):  # a record has no undos: its events are in force
            bets = _settle(hand=hand, state=state, events=record["events"], by=by, source="import", write=False,
                           players=players, ledger=self.ledger)
        else:
            self.cover.left_open(state)
        self.openings[table.name] = opening._replace(last_hand=hand, tenure=hand.tenure)
        self.hands.append(hand)
        self.entries += entries
        self.bets += bets
        self.heads[table] = (table.last_hand_number, table.last_event_hash)

    def _pass_bank(self, table, tenure, holder):
        """A 7½ takeover passed in memory (``SettlementBatch.pass_bank``), as
        ``_take_over_if_due`` passes it (the table's takeover capital, at most the taker's
        chips less what he has at risk in open hands); the new tenure."""
        holding = self.cover.read([holder.code]).get(holder.code, 0)
        risk = self.cover.elsewhere.get(holder.code, 0)
        capital = min(cents(table.bank_capital), max(holding - risk, 0)) if table.bank_capital > 0 else 0
        by = self.imported_by
        self.ledger.expect_passes(1 + sum(self.changes[self.position + 1:]))
        return self.ledger.pass_bank(tenure=tenure, holder=holder, capital=capital, risk=risk, posted_by=by,
                                     source="console" if by else "system:import")

    def _opening(self, record):
        """The ``Opening`` of the record's table: locked and read once per batch (then
        kept up to date in memory), or a table created with ``create_tables``."""
        name = record.get("table")
        if not name:
            raise RecordRefused(_("the record names no table"))
        opening = self.openings.get(name)
        if opening is not None:
            return opening
        table_id = Table.objects.filter(name=name).values_list("pk", flat=True).first()
        if table_id is not None:
            opening = lock_table_for_opening(table_id)
        elif not self.create_tables:
            raise RecordRefused(_("there is no table %(table)s (--create-tables creates it from the record)"),
                                params={"table": name})
        else:
            table = Table.objects.create(name=name, rules=record["rules"],
                                         min_bet=euros(parse_amount(record["min_bet"])),
                                         max_bet=euros(parse_amount(record["max_bet"])))
            opening = Opening(table, None, None, None)
        self.openings[name] = opening
        return opening

    def _known(self, codes):
        """Are all ``codes`` registered players (read into ``players`` if not read yet)?"""
        new = codes - self.players.keys()
        if new:
            self.players.update((p.code, p) for p in Player.objects.filter(code__in=new))
        return codes <= self.players.keys()

    def _register(self, codes):
        """``{code: Player}`` of the batch's players, ``codes`` registered (code only) if new."""
        if not self._known(codes):
            missing = sorted(codes - self.players.keys())
            if missing:
                Player.objects.bulk_create([Player(code=code) for code in missing], ignore_conflicts=True)
                created = list(Player.objects.filter(code__in=missing))
                self.players.update((p.code, p) for p in created)
                if self.opening_chips is not None:
                    for player in created:
                        chips_opening(player=player, amount=self.opening_chips, posted_by=self.imported_by)
                    self.ledger.forget()
        return self.players

    def send(self):
        """Send the rows of the records accepted since the last ``send`` (their postings,
        hands, entries and bets, made ready here: ``_detach``) on the batch's writer thread,
        and return at once: the next records are entered while the database writes them.

        Measured on benchmarks/import.py's chained hands (2026-11-25). In-process, 5,500
        hands after a first batch of 500: the rows written at the batch's end and their keys
        checked at COMMIT, 811-826 hands/s (COMMIT 1.3 s); sent every 100 records but
        formatted on the writer thread, 780-793 (the writer needing Python's GIL for every
        row: busy 5.4 s of 6.4); formatted here and only sent there, the keys checked as
        each COPY ends, 939-980 in five runs (COMMIT 0.3 s; this thread waiting for the
        writer 0.6 s, mostly for each batch's last rows). The whole benchmark (two
        processes, start-up included), in alternation: 800 and 803 hands/s against 742 and
        732.
        """
        self.writer.send(self._detach())

    def write(self):
        """At the batch's end: write what was not sent yet (after what was), and each
        table's head."""
        send_all(self._detach())
        for table, (number, digest) in self.heads.items():
            Table.objects.filter(pk=table.pk).update(last_hand_number=number, last_event_hash=digest)

    def _detach(self) -> list:
        """The rows of the records accepted since the last send, made ready to write (ids
        taken, COPY text formatted: ``casino.bulk``) and taken out of the batch, in the
        order they go in: the settlements pending (the hands point at their postings),
        then the hands (in order: each table's numbers ascending), their entries, their
        bets. The triggers check every row: hand numbers and entry sequences in order."""
        # COPY, the hands' ids taken from their sequence first (casino.bulk), instead of
        # bulk_create's UNNEST arrays (each text escaped in Python): with the postings' COPY
        # (SettlementBatch.flush), 168 to 214 hands/s in-process on 1,000 of benchmarks/import.py's
        # chained hands (two runs each in alternation, 2026-11-24).
        writes = self.ledger.detach()
        writes.append(instances_copy(Hand, self.hands[self.sent:], ids=IdPool(Hand)))
        if self.entries:
            writes.append(rows_copy(HandEvent._meta.db_table, EntryRow.COLUMNS,
                                    (entry.values() for entry in self.entries)))
        if self.bets:
            writes.append(rows_copy(HandBet._meta.db_table, BetRow.COLUMNS, (bet.values() for bet in self.bets)))
        self.sent, self.entries, self.bets = len(self.hands), [], []
        return writes


def _record_codes(record):
    """The players a record names (its bank, its seats, its bettors); a record the engine
    passed (``read_header``), or any other (then only what can be read of it)."""
    events = record.get("events")
    seats = record.get("seats")
    codes = [record.get("bank"), *(seats if isinstance(seats, list) else [])]
    codes += [e.get("player") for e in (events if isinstance(events, list) else [])
              if isinstance(e, dict) and e.get("do") == "bet"]
    return {code for code in codes if isinstance(code, str)}


def _check_record_fits(table, record):
    if profile_for(record["rules"]) != table.profile:
        raise RecordRefused(_("the record's rules %(rules)s differ from %(table)s's %(mine)s"),
                            params={"rules": json.dumps(record["rules"]), "table": table.name,
                                    "mine": json.dumps(table.rules)})
    limits = (euros(parse_amount(record["min_bet"])), euros(parse_amount(record["max_bet"])))
    if limits != (table.min_bet, table.max_bet):
        raise RecordRefused(_("the record's limits %(low)s–%(high)s differ from %(table)s's %(min)s–%(max)s"),
                            params={"low": limits[0], "high": limits[1], "table": table.name,
                                    "min": table.min_bet, "max": table.max_bet})
    number = record.get("number")
    if number is not None and number != table.last_hand_number + 1:
        raise RecordRefused(_("the record is hand #%(number)s, but the next hand at %(table)s is #%(next)s"),
                            params={"number": number, "table": table.name, "next": table.last_hand_number + 1})


# ---------------------------------------------------------------------------------------
# The bank between hands (pit supervisor)

@refusals_recorded
def table_bank_draw(*, table: Table, holder: Player, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank drawn for at the start of a session: the first tenure at the table. Its
    capital is deposited at the cage (``cashier_bank_deposit``) before its first hand.

    Raises:
        BankNotReady: a hand is open, or a tenure is already open (sell or transfer it).
        and the ledger's refusals (InsufficientChips, InvalidSyndicate, InvalidAmount).
    """
    with db.atomic():
        table = _lock_table(table.pk)
        _no_open_hand(table)
        if open_tenure(table) is not None:
            raise BankNotReady(_("%(table)s already has a bank: sell or transfer it"), params={"table": table.name})
        return tenure_open(table=table, holder=holder, capital=capital, shares=shares,
                           began=BankTenure.Began.DRAW, posted_by=by, deposit=True)


@refusals_recorded
def table_bank_sell(*, table: Table, buyer: Player, price: Decimal, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank sold between hands: the buyer pays the price from his chips and opens his
    tenure, whose capital is deposited at the cage before its first hand."""
    with db.atomic():
        table = _lock_table(table.pk)
        _no_open_hand(table)
        return bank_sell(tenure=_require_tenure(table), buyer=buyer, price=price, capital=capital,
                         shares=shares, posted_by=by, deposit=True)


@refusals_recorded
def table_bank_transfer(*, table: Table, holder: Player, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank handed over between hands without a price: the bank passes at the table
    (rules.md "The bank passes"), its capital from the new holder's chips on record."""
    with db.atomic():
        table = _lock_table(table.pk)
        _no_open_hand(table)
        return bank_transfer(tenure=_require_tenure(table), holder=holder, capital=capital, shares=shares,
                             posted_by=by)


#: What the caller has not read: ``pending_bank_holder``'s ``last`` (the last hand),
#: ``_require_tenure``'s ``tenure``.
_UNREAD = object()


def pending_bank_holder(table: Table, tenure: BankTenure | None = None, last: Hand | None = _UNREAD,
                        players: dict | None = None):
    """The player the next hand's bank goes to: the last hand's ``next_bank`` when it
    took the bank with 7½, else the open tenure's holder; None without a bank.
    [rules.md "The bank passes"]

    Args:
        table: the Table; tenure: its open tenure (with its holder) if already read;
        last: the table's latest hand not voided (None: the table has none), if
            already read (with ``tenure``); players: ``{code: Player}`` already read, or None.
    Returns:
        a Player, or None.
    """
    tenure = open_tenure(table) if tenure is None else tenure
    if tenure is None:
        return None
    if last is _UNREAD:
        last = last_hand(table)
    if (last is not None and last.status == Hand.Status.SETTLED and last.tenure_id == tenure.pk
            and last.next_bank and last.next_bank != tenure.holder.code):
        known = (players or {}).get(last.next_bank)
        return known if known is not None else Player.objects.get(code=last.next_bank)
    return tenure.holder


# ---------------------------------------------------------------------------------------
# Internals

def _lock_table(table_id):
    return Table.objects.select_for_update().get(pk=table_id)


def _already_recorded(hand, expected_version, form_token):
    """Was this entry's form already recorded? Asked only when the screen looks stale:
    a double click or a refresh finds the hand one entry further, its own."""
    return (form_token is not None and expected_version is not None and hand.version != expected_version
            and HandEvent.objects.filter(form_token=form_token).exists())


def _after_conflict(form_token):
    """After a unique-constraint refusal (the transaction rolled back): the same form
    recorded meanwhile is a success (its hand is returned); anything else means another
    entry came first."""
    recorded = None if form_token is None else HandEvent.objects.filter(form_token=form_token).first()
    if recorded is not None:
        return Hand.objects.select_related("table", "bank", "tenure", "shift__dealer").get(pk=recorded.hand_id)
    raise StaleHand(_("this entry was already recorded: reload"))


def _require_tenure(table, tenure=_UNREAD):
    """The table's open tenure (``tenure``, if already read: None when it has none).

    Raises:
        BankNotReady: the table has no bank yet.
    """
    tenure = open_tenure(table) if tenure is _UNREAD else tenure
    if tenure is None:
        raise BankNotReady(_("%(table)s has no bank yet: draw for it first"), params={"table": table.name})
    return tenure


def _no_open_hand(table):
    open_hand = table.hands.filter(status=Hand.Status.OPEN).first()
    if open_hand is not None:
        raise BankNotReady(_("the bank changes between hands: hand #%(number)s is open"),
                           params={"number": open_hand.number})


def _take_over_if_due(*, table, tenure, by, last, players=None):
    """The open tenure for the next hand, after a 7½ takeover if one is due (``tenure``:
    the table's open tenure, or None; ``last``: the table's latest hand not voided, or
    None; ``players``: ``{code: Player}`` already read, or None).

    Raises:
        BankNotReady: no bank at the table, or its taker cannot put in its capital.
    """
    tenure = _require_tenure(table, tenure)
    holder = pending_bank_holder(table, tenure, last=last, players=players)
    if holder.pk == tenure.holder_id:
        return tenure
    # A table without takeover capital needs no read of the taker's chips (three statements).
    capital = min(table.bank_capital, _free_chips(holder)) if table.bank_capital > 0 else Decimal("0")
    try:
        return bank_transfer(tenure=tenure, holder=holder, capital=capital, posted_by=by,
                             cause=BankTenure.Began.NATURAL, source="console" if by else "system:import")
    except InsufficientChips as error:
        raise BankNotReady(_("%(player)s takes the bank with 7½ but cannot put in its capital: %(why)s"),
                           params={"player": holder.code, "why": str(error)}) from None


def _free_chips(player):
    """What ``player`` may put into a bank: his chips less what he has at risk in open
    hands (``tables.stakes``), ``Decimal`` euros, at least zero."""
    risk = open_hands_at_risk(codes=[player.code]).get(player.code, 0)
    return max(player_balance(player=player) - euros(risk), Decimal("0"))


def _refuse_bank_awaiting_deposit(table, tenure):
    """A bank opened by the pit (drawn for, auctioned, sold) plays its first hand only once
    its capital is deposited at the cage, each member for his share; a bank whose rebuild
    the pit ordered plays its next hand only once the rebuild is deposited. [issue 16; Melilla
    casino rules 2014 art. 52: "the bank's money is deposited at the cage before play"]

    Raises:
        BankNotReady: naming each member who still owes, and how much.
    """
    owing = awaiting_deposit(tenure)
    if not owing:
        return
    who = "; ".join(_("%(player)s owes %(amount)s") % {"player": row["player"].code, "amount": show(row["owing"])}
                    for row in owing)
    rebuild = owing[0]["rebuild"]
    if rebuild is not None:
        raise BankNotReady(
            _("the bank of %(holder)s awaits the deposit of its rebuild at the cage (%(amount)s): %(owing)s"),
            params={"holder": tenure.holder.code, "amount": show(rebuild.amount), "owing": who})
    raise BankNotReady(
        _("the bank of %(holder)s awaits its deposit at the cage (capital %(capital)s): %(owing)s"),
        params={"holder": tenure.holder.code, "capital": show(tenure.capital), "owing": who})


def _refuse_wiped_out_bank(table, tenure, ledger=None):
    """A limited bank whose funds no longer cover the table's minimum bet after its hands
    (a bank opened short, as a 7½ takeover with few chips, was never covered: its stakes
    are refused bet by bet, ``tenure_check_cover``) opens no hand until it is rebuilt to at least its first amount or given up. [issue 16 "The bank's
    life"; Melilla casino rules 2014 art. 52]

    ``ledger``: an import's ``SettlementBatch``, which holds the bank's balance (else read).

    Raises:
        BankNotReady: naming what the bank holds, the minimum and the least rebuild.
    """
    if ledger is not None:
        balance = euros(ledger.bank_holds(tenure))
    else:
        balance = Account.objects.filter(pk=tenure.account_id).values_list("balance", flat=True).get()
    if balance < table.min_bet and tenure.hands.filter(status=Hand.Status.SETTLED).exists():
        tenure.table = table
        raise BankNotReady(_("the bank of %(holder)s holds %(balance)s, below the table's minimum of %(low)s: the pit "
                             "orders it rebuilt to at least %(floor)s or it is given up before the next hand"),
                           params={"holder": tenure.holder.code, "balance": show(balance), "low": show(table.min_bet),
                                   "floor": show(bank_floor(tenure))})


# ---------------------------------------------------------------------------------------
# The bank's life: withdrawals, rebuilds, giving it up

@refusals_recorded
def table_bank_withdraw(*, table: Table, amount: Decimal, by) -> Transaction:
    """The banker withdraws part of the bank (recorded by the pit, announced on the
    console): never the stakes of the hand in play.

    Raises:
        BankNotReady: no bank; the ledger's refusals (``bank_withdraw``: the amount above
        what the bank holds beyond the stakes in play, field ``amount``).
    """
    with db.atomic():
        table = _lock_table(table.pk)
        tenure = _require_tenure(table)
        hand = table.hands.filter(status=Hand.Status.OPEN).first()
        in_play = euros(_stakes(hand_state(hand))) if hand is not None else Decimal("0")
        return bank_withdraw(tenure=tenure, amount=amount, in_play=in_play, posted_by=by)


def table_bank_rebuild(*, table: Table, amount: Decimal, by) -> BankRebuild:
    """The pit orders the bank rebuilt to at least its first amount, between hands; its
    syndicate deposits ``amount`` at the cage, each member his share, before the next hand
    (``ledger.services.bank_life.bank_rebuild_order``).

    Returns:
        the BankRebuild recorded.
    Raises:
        BankNotReady: no bank, or a hand is open; the ledger's refusals
        (``bank_rebuild_order``: TenureError naming ``amount`` or ``tenure``).
    """
    with db.atomic():
        table = _lock_table(table.pk)
        _no_open_hand(table)
        return bank_rebuild_order(tenure=_require_tenure(table), amount=amount, ordered_by=by)


def table_bank_give_up(*, table: Table, by):
    """The banker gives the bank up between hands: his tenure closes, its balance back to
    its syndicate; the table has no bank until it is drawn for or auctioned.

    Returns:
        the distribution Transaction or None (nothing left).
    """
    with db.atomic():
        table = _lock_table(table.pk)
        _no_open_hand(table)
        return tenure_close(tenure=_require_tenure(table), ended=BankTenure.Ended.CLOSED, posted_by=by)


def _seat_players(codes, *, bank, field="seats", seated=True, known=None):
    """The Players for ``codes``, checked: registered, distinct, not the bank's holder.

    ``known``: ``{code: Player}`` of players already read (an import's); only the others
    are read."""
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


def _check_entry(hand, expected_version):
    if hand.status != Hand.Status.OPEN:
        raise HandNotOpen(_("hand #%(number)s is %(status)s: nothing more is entered on it"),
                          params={"number": hand.number, "status": hand.get_status_display()})
    if expected_version is not None and hand.version != expected_version:
        raise StaleHand()


def _sequences_in_force(entries):
    """The sequence numbers of the events in force, oldest first."""
    stack = []
    for sequence, (kind, _event) in enumerate(entries, 1):
        if kind == EVENT:
            stack.append(sequence)
        elif kind == UNDO:
            stack.pop()
    return stack


def _stakes(state):
    """Every cent staked on the hand so far: seats' hands, side bets, la loca's bets."""
    total = sum(h.stake for h in state.hands())
    total += sum(sum(seat.side_bets.values()) for seat in state.seats)
    return total + sum(s[1] for s in state.loca_bets.values())


def _append(*, table, hand, kind, event, by, form_token):
    _write_entry(_entry(table=table, hand=hand, kind=kind, event=event, by=by, form_token=form_token))


class EntryRow(NamedTuple):
    """A hand's entry as an import copies it in (``_ImportBatch.write``): a HandEvent's
    columns, without a model instance. [issue 18 "The import crawls": a HandEvent made
    for each of 19,651 entries (1,000 of benchmarks/import.py's hands) cost about 1 s of
    7.5 under cProfile, in-process]"""

    table_id: int
    hand: Hand  # its id is set when the batch's hands are written, before its entries
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
    """A hand's bet as an import copies it in (``_ImportBatch.write``): a HandBet's
    columns, without a model instance (as ``EntryRow``: 3,681 HandBets made for 1,000 of
    benchmarks/import.py's hands). ``stake`` and ``net``: Decimal euros."""

    hand: Hand  # its id is set when the batch's hands are written, before its bets
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


def _entry(*, table, hand, kind, event, by, form_token, row=False):
    """The hand's next entry chained to the table's last (a HandEvent, unsaved; with
    ``row``, an ``EntryRow``); the hand's ``version`` and the table's ``last_event_hash``
    advance in memory."""
    sequence = hand.version + 1
    entered_at = timezone.now()
    previous = table.last_event_hash or GENESIS
    by_id = by.pk if by else None
    key_id = current_key_id()
    digest = entry_hash(previous=previous, key_id=key_id, table_id=table.pk, hand_number=hand.number,
                        sequence=sequence, kind=kind, event=event, entered_by_id=by_id, entered_at=entered_at)
    hand.version = sequence
    table.last_event_hash = digest
    if row:
        return EntryRow(table.pk, hand, sequence, kind, event, by_id, entered_at, form_token, previous, digest, key_id)
    return HandEvent(table=table, hand=hand, sequence=sequence, kind=kind, event=event, entered_by_id=by_id,
                     entered_at=entered_at, form_token=form_token, previous_hash=previous, hash=digest,
                     key_id=key_id)


def _write_entry(entry):
    """Write one entry, its hand's version and its table's head (``_entry`` advanced them)."""
    # The entry and both heads in one statement, one round trip: about 1.0 ms against
    # 2.6 ms for the ORM's create and two updates (in-process, 1,500 entries, medians of
    # five runs, 2026-11-24). A unique refusal (the same form token) rolls the caller's
    # transaction back: see _after_conflict.
    prep = HandEvent._meta.get_field("event").get_db_prep_value
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH e AS (INSERT INTO tables_handevent (table_id, hand_id, sequence, kind, event, entered_by_id,"
            " entered_at, form_token, previous_hash, hash, key_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)),"
            " h AS (UPDATE tables_hand SET version = %s WHERE id = %s)"
            " UPDATE tables_table SET last_event_hash = %s WHERE id = %s",
            [entry.table_id, entry.hand_id, entry.sequence, entry.kind, prep(entry.event, connection),
             entry.entered_by_id, entry.entered_at, entry.form_token, entry.previous_hash, entry.hash,
             entry.key_id, entry.sequence, entry.hand_id, entry.hash, entry.table_id])


def _settle(*, hand, state, events, by, source, write=True, players=None, ledger=None):
    """Settle the finished hand and post it to the ledger (``ledger_post_settlement``);
    its settlement, counts and cards are set on ``hand``.

    Args:
        write: save the hand and insert its bets now (an import, False, writes them in
            bulk); players: ``{code: Player}`` already read (an import's), or None;
        ledger: an import's ``SettlementBatch``, which posts it with its batch (else
            ``ledger_post_settlement`` posts it now).
    Returns:
        the hand's HandBets; when not ``write``, its bets as ``BetRow``s (plain rows,
        copied in by the import's batch).
    """
    settlement = settle(state)
    post = ledger_post_settlement if ledger is None else ledger.post_settlement
    transaction = post(tenure=hand.tenure, settlement=settlement, idempotency_key=hand.idempotency_key,
                       reference=hand.reference, posted_by=by, source=source if by else f"system:{source}",
                       cause=hand.cause)
    plays = Counter(event.get("do") for event in events)
    hand.status = Hand.Status.SETTLED
    hand.settlement = settlement.as_dict()
    hand.next_bank = settlement.next_bank
    hand.transaction = transaction
    hand.settled_at = timezone.now()
    hand.splits, hand.exchanges = plays["split"], plays["exchange"]
    hand.fusilados, hand.muertos = plays["fusilar"], plays["muerto"]
    hand.cards = [CARD_NAME[code] for code, _dealt, _returned in state.instances]
    if players is None or not players.keys() >= settlement.players.keys():
        players = {p.code: p for p in Player.objects.filter(code__in=settlement.players)}
    if not write:
        return [BetRow(hand, players[bet.player].pk, bet.seat, bet.hand, euros(bet.stake), bet.points, bet.result,
                       bet.multiplier, euros(bet.net)) for bet in settlement.bets]
    bets = [HandBet(hand=hand, player=players[bet.player], seat=bet.seat, seat_hand=bet.hand, stake=euros(bet.stake),
                    points=bet.points, result=bet.result, multiplier=bet.multiplier, net=euros(bet.net))
            for bet in settlement.bets]
    if write:
        hand.save(update_fields=["status", "settlement", "next_bank", "transaction", "settled_at", "splits",
                                 "exchanges", "fusilados", "muertos", "cards", "version"])
        HandBet.objects.bulk_create(bets)
    return bets
