"""The import of hand records (``manage.py import_hands``, ``POST /api/records/``): records
entered as the console's entries are, through the same decisions
(``tables.services.recording``), and written in batches: the hands, their entries and bets
each in one ``COPY``, the settlements posted in bulk (``tables.import_ledger.SettlementBatch``).
Each record is all or nothing; the first refused stops the import.
[hand-record.md; rules.md]
"""

import json
from collections.abc import Sequence
from contextlib import nullcontext
from datetime import UTC, datetime, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import connection
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.bulk import IdPool, SendQueue, instances_copy, rows_copy, send_later
from game import IllegalEvent, parse_amount
from game.hand import valid_player_id
from game.payouts import at_risk
from game.record import check_complete, profile_for, read_header
from ledger.chips import chips_opening
from ledger.money import cents, euros
from patrons.models import Player
from tables.bank.tenures import tenure_open
from tables.errors import ChipsNotCovered, RecordRefused, engine_message
from tables.import_ledger import SettlementBatch
from tables.locking import Opening, lock_table_for_opening
from tables.models import BankTenure, Hand, HandBet, HandEvent, Table
from tables.services.bank import (
    free_chips,
    pending_bank_holder,
    refuse_bank_awaiting_deposit,
    refuse_wiped_out_bank,
    take_over_if_due,
)
from tables.services.recording import (
    BetRow,
    EntryRow,
    enter,
    finished,
    new_hand,
    opening_checks,
    raises_stakes,
    settled,
    stakers,
)
from tables.stakes import open_hands_at_risk

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
    all or nothing.

    Each record's header is checked by the engine first (``read_header``); then its table is found
    (or created from the record's rules and limits with ``create_tables``) and locked
    for the rest of the transaction, the bank's holder checked (a table without a bank
    gets one drawn for the record's bank, with the table's takeover capital at most his
    chips), the players the record names registered (code only) if new, the hand opened
    (a 7½ takeover due passes the bank first) and every event entered through the same
    decisions as the console's entries (``tables.services.recording``: ``new_hand``,
    ``enter``), each bet checked against its player's chips (``_ImportCover``: a record
    whose stakes a player cannot cover is refused), and the finished hand settled
    (``settled``; a record that ends before the hand is over is refused:
    ``check_complete``).

    What a batch writes waits in memory (``_ImportBatch``) until ``SEND_EVERY`` records
    are accepted; they are then sent without waiting for the server (``casino.bulk
    .SendQueue``, moved on between records, waited for before any other statement), and
    the rest at the batch's end: the hands, their
    entries and bets, each kind inserted in one ``COPY``; the settlements posted in bulk
    (``tables.import_ledger.SettlementBatch``:
    the transactions, their entries, each balance moved once); each table's head (its last
    hand number and its last entry's hash) written once at the end. The keys of the
    hands, entries, bets and ledger entries are checked as each ``COPY`` ends
    (``_KEYS_AT_EACH_COPY``), the others at COMMIT. A 7½ takeover passes the bank in
    memory with the batch (``SettlementBatch.pass_bank``: the old tenure closed and
    distributed, the taker's tenure, share and account copied in with the batch's rows,
    the ledger's registered checks kept per batch, ``ledger.posting.batch_checks``). The accounts
    are locked and their balances read once per batch, then kept in memory: the cover
    checks (a player's chips, a limited bank's funds) read nothing more. A record that
    writes before the batch's end (a table or players created, a bank drawn for, or
    passed when an account it moves is missing, whose postings go through the ledger's
    own services after the pending settlements are written) gets a savepoint of its own;
    one that only reads needs none.

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
    with db.atomic(), SendQueue() as queue:
        batch.expect(records)
        for index, record in enumerate(records):
            writes = batch.before(record)
            mark = batch.ledger.mark()
            try:
                # A savepoint for a record that writes before the batch's end: refused, it leaves
                # nothing behind. One that only reads needs none (SAVEPOINT and RELEASE fewer for
                # three records in four): refused, it is simply not added to the batch, and
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
            queue.pump()
        batch.write()
    if refused is not None:
        refused.imported = batch.hands
        raise refused
    return batch.hands

def hand_import_whole(*, records: Sequence[dict], imported_by=None) -> list[Hand]:
    """Record and settle hand records all or nothing (the pit's import page): as
    ``hand_import_records``, in one database transaction, except that the first refused
    record rolls back every record of the call, those before it too.

    Args:
        records: decoded hand records, each naming its ``table`` (which must exist).
        imported_by: the pit supervisor or admin importing them.
    Returns:
        the settled Hands, one per record, in order.
    Raises:
        RecordRefused, or the ledger's refusal, as ``hand_import_records``, with ``index``
        (the refused record's position in ``records``); nothing was written.
    """
    with db.atomic():
        return hand_import_records(records=records, imported_by=imported_by)


#: An import's batch writes the rows of every SEND_EVERY records accepted as it goes, not all
#: at its end (its memory stays flat), each hand's, entry's, bet's and ledger entry's keys
#: checked as its COPY ends (``_KEYS_AT_EACH_COPY``) instead of all at COMMIT.
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
        its player cannot cover, or la loca's "dobla" one of its bettors cannot."""
        if not raises_stakes(event):
            return
        risk = at_risk(state)
        for code in stakers(state, event):
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

    def expect(self, records):
        """Before the batch's first record: read its players, their chips (locked) and
        what they have at risk in open hands, for all its records at once (three
        statements a batch instead of up to three a record)."""
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
        # as they are entered (``enter``), not played a first time on their own (``play_record``).
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
            capital = min(table.bank_capital, free_chips(bank))
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
        hand, state = self._open(opening, seats=record["seats"], opened_at=_started_at(started) if started else None)
        entries = []
        self.cover.start(codes, hand.tenure)
        limited = hand.table.bank_cover
        for number, event in enumerate(record["events"], 1):
            try:
                staking = limited and raises_stakes(event)
                entries.append(enter(hand, state, event=event, by=by, form_token=None, known=players,
                                     bank_holds=self.ledger.bank_holds(hand.tenure) if staking else None))
                self.cover.check(state, event)
            except ValidationError as error:  # the engine's, the table's or the ledger's (bank_cover)
                raise RecordRefused(str(error), event=number, rule=getattr(error, "rule", "record")) from None
        try:
            check_complete(state)
        except IllegalEvent as error:
            raise RecordRefused(engine_message(error), event=error.event, rule=error.rule) from None
        bets = []
        if finished(state):  # a record has no undos: its events are in force
            settlement, bets = settled(hand=hand, state=state, events=record["events"], known=players)
            hand.transaction = self.ledger.post_settlement(
                tenure=hand.tenure, settlement=settlement, idempotency_key=hand.idempotency_key,
                reference=hand.reference, posted_by=by, source="import" if by else "system:import", cause=hand.cause)
        else:
            self.cover.left_open(state)
        self.openings[table.name] = opening._replace(last_hand=hand, tenure=hand.tenure)
        self.hands.append(hand)
        self.entries += entries
        self.bets += bets
        self.heads[table] = (table.last_hand_number, table.last_event_hash)

    def _open(self, opening, *, seats, opened_at):
        """The record's hand decided as the console's (``tables.services.recording``): a 7½
        takeover this batch could not pass in memory posted by ``bank_transfer`` first
        (its balances then read again), the bank's checks on the balances the batch holds,
        the hand and its fresh state, unsaved (written with the batch)."""
        table, by = opening.table, self.imported_by
        shift = opening_checks(opening, shift=None, require_shift=False)
        tenure = take_over_if_due(table=table, tenure=opening.tenure, by=by, last=opening.last_hand,
                                  players=self.players)
        if tenure is not opening.tenure:
            self.ledger.forget()  # the takeover posted: the balances are read again
        if tenure.deposit_required or table.bank_cover:  # a rebuild is ordered only for a limited bank
            refuse_bank_awaiting_deposit(table, tenure)
        if table.bank_cover:
            refuse_wiped_out_bank(table, tenure, holds=self.ledger.bank_holds(tenure))
        return new_hand(table=table, tenure=tenure, seats=seats, shift=shift, opened_by=by, imported=True,
                        opened_at=opened_at, known=self.players)

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
        """Write the rows of the records accepted since the last ``send`` (their postings,
        hands, entries and bets: ``_detach``), so that a long import holds at most
        ``SEND_EVERY`` records' rows in memory: sent without waiting for the server
        (``casino.bulk.send_later`` on the import's ``SendQueue``, moved on between
        records), so that the next records are entered while it writes them."""
        send_later(self._detach())

    def write(self):
        """At the batch's end: write what was not sent yet (after what was), and each
        table's head."""
        send_later(self._detach())
        for table, (number, digest) in self.heads.items():
            Table.objects.filter(pk=table.pk).update(last_hand_number=number, last_event_hash=digest)

    def _detach(self) -> list:
        """The rows of the records accepted since the last send, made ready to write (ids
        taken, COPY text formatted: ``casino.bulk``) and taken out of the batch, in the
        order they go in: the settlements pending (the hands point at their postings),
        then the hands (in order: each table's numbers ascending), their entries, their
        bets. The triggers check every row: hand numbers and entry sequences in order."""
        # COPY, the hands' ids taken from their sequence first (casino.bulk), instead of
        # bulk_create's UNNEST arrays (each text escaped in Python).
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
    passed (``read_header``), or any other (then only what can be read of it: the
    valid player ids, so that a name the engine will refuse, a NUL in it, say, which
    PostgreSQL's text cannot hold, is never looked up)."""
    events = record.get("events")
    seats = record.get("seats")
    codes = [record.get("bank"), *(seats if isinstance(seats, list) else [])]
    codes += [e.get("player") for e in (events if isinstance(events, list) else [])
              if isinstance(e, dict) and e.get("do") == "bet"]
    return {code for code in codes if valid_player_id(code)}

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
