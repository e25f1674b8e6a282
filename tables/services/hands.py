"""Writes at the console's pace: a hand opened, each entry at the table, an undo, a void,
each written at once in ONE database transaction that first locks the table's row
(``tables.locking``): a table's entries are serialized, so two dealers' screens on the same
table cannot both apply an entry, and hand numbers and the hash chain advance one at a
time. What each entry is, is decided by ``tables.services.recording``, before anything is
written; a refusal raises a ``tables.errors.TableError`` (the engine's as ``RuleBroken``)
and writes nothing.

A hand that finishes is settled and posted to the ledger (``tables.settlement``) in the
same transaction as its last entry. [rules.md for the rules; hand-record.md for the events]
"""

from typing import NamedTuple

from django.db import IntegrityError, connection
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from game import HandState
from game.entries import EVENT, UNDO, VOID, effective_events
from game.payouts import at_risk
from ledger import posting
from ledger.money import euros
from patrons.admission import admit_for_the_day
from tables.bank.tenures import through_distribution
from tables.errors import ChipsNotCovered, HandNotOpen, NotTheDealer, StaleHand, TableError
from tables.locking import (
    LockedHand,
    Opening,
    hand_entries,
    lock_hand,
    lock_table,
    lock_table_for_opening,
)
from tables.models import Hand, HandBet, HandEvent, Shift, Table
from tables.services.bank import (
    refuse_bank_awaiting_deposit,
    refuse_wiped_out_bank,
    take_over_if_due,
)
from tables.services.recording import (
    EntryRow,
    check_entry,
    enter,
    entry_row,
    finished,
    hand_state,
    new_hand,
    opening_checks,
    raises_stakes,
    sequences_in_force,
    settled,
    stakers,
)
from tables.settlement import ledger_post_settlement
from tables.stakes import lock_chips, open_hands_at_risk


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
    lock, with what the opening reads anyway.

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
        if shift is None or shift.current_dealer_id != dealer.pk:
            raise NotTheDealer(_("only the dealer of the table's open shift opens its hands"))
        if opening.table.last_hand_number != after:
            raise StaleHand(_("a hand was opened since this screen was drawn: reload"))
        hand, state = _open_locked(opening, seats=seats, opened_by=dealer, shift=shift, require_shift=True,
                                   imported=False)
        return AtTable(hand, [], state)


def _open_locked(opening: Opening, *, seats, opened_by, shift, require_shift, imported):
    """``hand_open``'s work on what ``lock_table_for_opening`` read: a 7½ takeover due
    posted first, the bank's checks, the hand decided and written with the table's new
    last number; ``(the new Hand, the engine's fresh state)``."""
    table = opening.table
    shift = opening_checks(opening, shift=shift, require_shift=require_shift)
    if opening.shift is not None and shift is not None and shift.pk == opening.shift.pk:
        shift = opening.shift  # as read under the table's lock: its current dealer deals the hand
    tenure = take_over_if_due(table=table, tenure=opening.tenure, by=opened_by, last=opening.last_hand)
    if tenure.deposit_required or table.bank_cover:  # a rebuild is ordered only for a limited bank
        refuse_bank_awaiting_deposit(table, tenure)
    if table.bank_cover:
        refuse_wiped_out_bank(table, tenure)
    hand, state = new_hand(table=table, tenure=tenure, seats=seats, shift=shift, opened_by=opened_by,
                           imported=imported)
    hand.save()
    table.save(update_fields=["last_hand_number"])
    return hand, state


@posting.refusals_recorded
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
        patrons.errors.AdmissionRefused: a bettor's first bet of the gaming day, and he
        may not be admitted (``patrons.admission.admit_for_the_day``; not checked for an
        import, which records play past); the refusal recorded, nothing else.
    """
    try:
        with db.atomic():
            locked = lock_hand(hand_id=hand.pk)
            return _record_locked(locked, event=event, entered_by=entered_by, expected_version=expected_version,
                                  form_token=form_token, source=source, settle=settle).hand
    except IntegrityError:
        return _after_conflict(form_token)

@posting.refusals_recorded
def console_record_event(*, table_id: int, number: int, event: dict, dealer, expected_version: int,
                         form_token) -> AtTable:
    """``hand_record_event`` as the dealer's console sends it: to the table's open hand,
    which the dealer's screen showed as hand ``number`` at ``expected_version``.

    The checks a screen needs (this is the table's open hand, ``dealer`` is the dealer
    of its open shift) are made on the hand read under the table's lock, so that an
    entry costs one read.

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
            or another entry came first. RuleBroken, CoverExceeded, UnknownPlayer,
            AdmissionRefused (as ``hand_record_event``).
        Table.DoesNotExist: no such table.
    """
    try:
        with db.atomic():
            locked = lock_hand(table_id=table_id)
            if locked is None:
                raise HandNotOpen(_("There is no open hand at this table."))
            hand = locked.hand
            shift = hand.shift
            if shift is None or shift.current_dealer_id != dealer.pk or shift.closed_at is not None:
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
    check_entry(hand, expected_version)
    staking = raises_stakes(event)
    if staking:
        bettors = stakers(state, event)
        before = at_risk(state)
        if entered_by is not None and source != "import":  # a patron's first bet of the day admits him
            admit_for_the_day(codes=bettors, by=entered_by, place=hand.table.name)
    row = enter(hand, state, event=event, by=entered_by, form_token=form_token)
    if staking:
        for bettor in bettors:
            _check_covered(hand, state, bettor, before.get(bettor, 0))
    _write_entry(row)
    entries = [*entries, (EVENT, event)]
    if settle and finished(state):
        _settle(hand=hand, state=state, events=effective_events(entries), by=entered_by, source=source)
    return AtTable(hand, entries, state)


def _check_covered(hand, state, code, before):
    """Refuse the bet just applied to ``state`` unless ``code``'s chips on record cover
    what he has at risk in this hand with it and in every other open hand (``before``:
    cents he had at risk in this hand before the bet, for the message).

    His chips account's row is locked (``lock_chips``), so that two tables, a cash-out
    or a transfer cannot spend the same chips at once; the other open hands are read after
    the lock.

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
            check_entry(hand, expected_version)
            in_force = sequences_in_force(entries)
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
        table = lock_table(hand.table_id)
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
        return Hand.objects.select_related("table", "bank", "tenure", "shift__dealer", "dealer").get(pk=recorded.hand_id)
    raise StaleHand(_("this entry was already recorded: reload"))


def _append(*, table, hand, kind, event, by, form_token):
    """Write an undo or a void entry (``entry_row`` chains it)."""
    _write_entry(entry_row(table=table, hand=hand, kind=kind, event=event, by=by, form_token=form_token))


def _write_entry(entry: EntryRow):
    """Write one entry, its hand's version and its table's head (``entry_row`` advanced
    them), in one statement: the ORM's create and two updates are three round trips on the
    console's hot path (``benchmarks/console.py``). A unique refusal (the same form token)
    rolls the caller's transaction back: see ``_after_conflict``."""
    prep = HandEvent._meta.get_field("event").get_db_prep_value
    with connection.cursor() as cursor:
        cursor.execute(
            "WITH e AS (INSERT INTO tables_handevent (table_id, hand_id, sequence, kind, event, entered_by_id,"
            " entered_at, form_token, previous_hash, hash, key_id)"
            " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)),"
            " h AS (UPDATE tables_hand SET version = %s WHERE id = %s)"
            " UPDATE tables_table SET last_event_hash = %s WHERE id = %s",
            [entry.table_id, entry.hand.pk, entry.sequence, entry.kind, prep(entry.event, connection),
             entry.entered_by_id, entry.entered_at, entry.form_token, entry.previous_hash, entry.hash,
             entry.key_id, entry.sequence, entry.hand.pk, entry.hash, entry.table_id])


def _settle(*, hand, state, events, by, source):
    """Settle the finished hand (``recording.settled``), post it to the ledger
    (``ledger_post_settlement``), and write the hand and its bets. Returns its HandBets."""
    settlement, rows = settled(hand=hand, state=state, events=events)
    hand.transaction = ledger_post_settlement(
        tenure=hand.tenure, settlement=settlement, idempotency_key=hand.idempotency_key, reference=hand.reference,
        posted_by=by, source=source if by else f"system:{source}", cause=hand.cause)
    hand.save(update_fields=["status", "settlement", "next_bank", "transaction", "settled_at", "splits",
                             "exchanges", "fusilados", "muertos", "cards", "version"])
    return HandBet.objects.bulk_create([HandBet(hand=hand, player_id=row.player_id, seat=row.seat,
                                                seat_hand=row.seat_hand, stake=row.stake, points=row.points,
                                                result=row.result, multiplier=row.multiplier, net=row.net)
                                        for row in rows])
