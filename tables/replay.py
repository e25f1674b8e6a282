"""Every hand worked out again: its entries (the keyed chain's record, ``tables.chain``)
replayed through the rules engine and settled anew, compared with what is stored (the
hand's settlement, its next bank, its bets) and what is posted (its ledger transaction's
entries and detail). A hand rewritten consistently in its bets, settlement, entries and
balances, its entries left alone, is found here.

Used by ``manage.py ledger_check`` (every hand) and the shift report (the shift's hands).
Faults are dicts with a ``code`` (``reports.texts`` and ``hand_fault_text`` put them into
words):

- ``hand_replay`` ``{hand, table, what}``: ``what`` is ``stakes``, ``results``, ``nets``
  (the stored bets), ``commission``, ``next_bank``, ``settlement`` (the rest of the
  stored settlement), ``posting`` (the ledger entries or the transaction's detail);
- ``hand_unplayable`` ``{hand, table, reason}``: the entries do not replay to a finished
  hand (the engine's refusal, in English; and ``engine``, ``{rule, template, params}``, when it
  is one of the engine's errors, which ``reports.texts`` puts into the reader's words);
- ``hand_not_posted`` ``{hand, table}``: a settled hand with no transaction;
- ``void_not_reversed`` ``{hand, table}``: a voided hand whose posting has no reversal;
- ``void_without_entry`` ``{hand, table}``: a hand voided with no void entry at the table;
- ``posting_without_hand`` ``{transaction, reference, cause}``: a posted hand transaction that
  no hand points at.
"""

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from operator import itemgetter
from typing import NamedTuple

from django.db import connection
from django.db.models import Case, F, Q, TextField, Value, When
from django.db.models.functions import Cast

from casino.jsontext import loads, normal
from game import EngineError, HandState, IllegalEvent
from game.entries import VOID, effective_events
from game.payouts import settle
from game.record import replay_as_played
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from tables.chain import opening_fault
from tables.models import Hand

#: Hands replayed per round of reads (bounds the memory of ``ledger_check``).
CHUNK = 500
#: What each ``hand_replay`` fault's ``what`` compares, in the order they are checked.
COMPARED = ("stakes", "results", "nets", "commission", "next_bank", "settlement", "posting")


def _expected_legs(settlement, tenure_id) -> Counter:
    """The entries ``ledger_post_settlement`` posts for a settlement, as a Counter of
    ``(holder, side, cents)``; holder ``("player", code)``, ``("tenure", id)`` or
    ``("house",)``."""
    won, lost = defaultdict(int), defaultdict(int)
    for bet in settlement.bets:
        if bet.net > 0:
            won[bet.player] += bet.net
        elif bet.net < 0:
            lost[bet.player] -= bet.net
    legs = Counter()
    for code, amount in won.items():
        legs[(("player", code), "C", amount)] += 1
    for code, amount in lost.items():
        legs[(("player", code), "D", amount)] += 1
    bank = ("tenure", tenure_id)
    if lost:
        legs[(bank, "C", sum(lost.values()))] += 1
    if won:
        legs[(bank, "D", sum(won.values()))] += 1
    if settlement.commission > 0:
        legs[(bank, "D", settlement.commission)] += 1
        legs[(("house",), "C", settlement.commission)] += 1
    return legs


def _holders(account_ids) -> dict:
    """``{account id: holder}`` as ``_expected_legs`` names holders."""
    holders = {}
    for pk, kind, code, tenure_id in (Account.objects.filter(pk__in=account_ids)
                                      .values_list("pk", "kind", "player__code", "tenure__id")):
        holders[pk] = (("player", code) if kind == Account.Kind.PLAYER else ("tenure", tenure_id)
                       if kind == Account.Kind.TENURE else (kind,))
    return holders


class _Hand(NamedTuple):
    """What the replay reads of a hand: one row of ``_HAND_COLUMNS``, its JSON columns
    decoded (``casino.jsontext``) and its limits in cents; the last six, with ``seats``,
    ``rules``, the limits and ``tenure_id``, what its opening signed (``_opening_code``)."""

    pk: int
    number: int
    table_name: str
    status: str
    transaction_id: int | None
    reversal_id: int | None
    detail: dict | None
    settlement: dict | None
    next_bank: str | None
    rules: dict
    min_bet: int
    max_bet: int
    bank_code: str
    seats: list
    tenure_id: int | None
    table_id: int
    shift_id: int | None
    bank_id: int
    imported: bool
    signature: str
    key_id: str


def _text(field):
    return Cast(field, TextField())


#: The transaction's detail as its text, or ``SAME`` where it is the hand's settlement (jsonb's
#: equality, which never holds where Python's == would not): the one text read and decoded
#: for both, as they are when nothing was forged.
SAME = "="
_DETAIL = Case(When(transaction__detail=F("settlement"), then=Value(SAME)), default=_text("transaction__detail"),
               output_field=TextField())

#: The columns of ``_Hand``, in its order (the transaction's detail and the id of its
#: reversal through the same join). The JSON columns are read as their text and decoded by
#: ``casino.jsontext`` (not by the field: ``json``, several times slower).
_HAND_COLUMNS = ("pk", "number", "table__name", "status", "transaction_id", "transaction__reversal",
                 _DETAIL, _text("settlement"), "next_bank", _text("rules"), "min_bet", "max_bet",
                 "bank__code", _text("seats"), "tenure_id", "table_id", "shift_id", "bank_id", "imported", "signature",
                 "key_id")


def _hand(row, shared: dict | None = None) -> _Hand:
    """A ``_HAND_COLUMNS`` row as ``_Hand``. ``shared``: ``{text: value}`` of the rules and
    seats decoded so far (a table's hands repeat a few of each), their values shared
    between hands: the replay never changes them (``make`` copies the seats)."""
    (pk, number, table_name, status, transaction_id, reversal_id, detail, settlement, next_bank, rules, low, high,
     bank_code, seats, tenure_id, *opening) = row
    if shared is None:
        rules, seats = loads(rules), loads(seats)
    else:
        rules = shared[rules] if rules in shared else shared.setdefault(rules, loads(rules))
        seats = shared[seats] if seats in shared else shared.setdefault(seats, loads(seats))
    settlement = None if settlement is None else loads(settlement)
    detail = settlement if detail == SAME else None if detail is None else loads(detail)
    return _Hand(pk, number, table_name, status, transaction_id, reversal_id, detail, settlement,
                 next_bank, rules, cents(low), cents(high), bank_code, seats, tenure_id, *opening)


def _opening_code(hand: _Hand) -> str | None:
    """``tables.chain.opening_fault`` of the hand as read (``"changed"``, ``"unsigned"``,
    ``"unknown_key"``), None when its opening's signature holds."""
    return opening_fault(key_id=hand.key_id, stored=hand.signature, table_id=hand.table_id, number=hand.number,
                         shift_id=hand.shift_id, tenure_id=hand.tenure_id, bank_id=hand.bank_id, seats=hand.seats,
                         rules=hand.rules, min_bet=euros(hand.min_bet), max_bet=euros(hand.max_bet),
                         imported=hand.imported)


def hand_faults(hands) -> list[dict]:
    """Replay every hand of ``hands`` (a queryset of ``Hand``) and compare.

    Open hands are skipped (not settled yet). The hands are read as tuples (``_Hand``)
    through a server-side cursor, in the hands' order; every ``CHUNK`` hands, their
    entries, their bets and their transactions' entries are read, three queries a chunk,
    one row a hand (a transaction) whose entries (bets, legs) PostgreSQL writes as one
    JSON array (``_ENTRIES_SQL``, ``_BETS_SQL``, ``_LEGS_SQL``): memory stays bounded by the
    chunk whatever the number of hands.
    Returns:
        the faults (module docstring), in the hands' order (table, number).
    """
    faults = []
    rows = (hands.exclude(status=Hand.Status.OPEN).order_by("table_id", "number").values_list(*_HAND_COLUMNS)
            .iterator(chunk_size=CHUNK))
    chunk = []
    for row in rows:
        chunk.append(_hand(row))
        if len(chunk) == CHUNK:
            faults += _chunk_faults(chunk)
            chunk = []
    if chunk:
        faults += _chunk_faults(chunk)
    return faults


# One row a hand (a transaction) and one JSON text each for its entries (bets, legs): the
# per-row cost of the driver and of decoding is paid once a hand, not once an entry (about
# 27 entries and 6 bets a hand). Amounts are integer cents: the columns are numeric with
# two places, so ``* 100`` is exact (what ``ledger.money.cents`` would check of each).
_ENTRIES_SQL = """
SELECT hand_id, json_agg(json_build_array(kind, event) ORDER BY sequence)::text
  FROM tables_handevent WHERE hand_id = ANY(%s) GROUP BY hand_id"""
# The bets in the order they were stored, the settlement's (by id): the replay's own order,
# so that an honest hand's are compared as one list. Unordered, PostgreSQL gave them in
# another order in 88% of the hands, each then compared as three multisets (9% of a range's
# samples; in order, the range took 4% less client CPU: benchmarks/RESULTS.md, "audit
# incremental").
_BETS_SQL = """
SELECT b.hand_id, json_agg(json_build_array(p.code, b.seat, b.seat_hand, (b.stake * 100)::bigint, b.points,
                                            b.result, b.multiplier, (b.net * 100)::bigint) ORDER BY b.id)::text
  FROM tables_handbet b JOIN patrons_player p ON p.id = b.player_id
 WHERE b.hand_id = ANY(%s) GROUP BY b.hand_id"""
_LEGS_SQL = """
SELECT transaction_id, json_agg(json_build_array(account_id, side, (amount * 100)::bigint))::text
  FROM ledger_entry WHERE transaction_id = ANY(%s) GROUP BY transaction_id"""


def _grouped(cursor, sql, ids, *, hashable=False) -> dict:
    """``{id: [row, …]}`` of one of the chunk's queries, each row a list (a tuple with
    ``hashable``: the bets, counted); an id without rows is absent."""
    cursor.execute(sql, [ids])
    if hashable:
        return {pk: [tuple(item) for item in loads(text)] for pk, text in cursor.fetchall()}
    return {pk: loads(text) for pk, text in cursor.fetchall()}


def _chunk_faults(hands: list[_Hand], entries: dict | None = None) -> list[dict]:
    """The faults of ``hands`` (``_Hand``), their entries read here (``_ENTRIES_SQL``) or
    given (``entries``: ``{hand id: [[kind, event], …]}`` in sequence order, ``ReplayFeed``'s),
    their bets and postings read here."""
    ids = [hand.pk for hand in hands]
    tx_ids = [hand.transaction_id for hand in hands if hand.transaction_id]
    with connection.cursor() as cursor:
        if entries is None:
            entries = _grouped(cursor, _ENTRIES_SQL, ids)
        bets = _grouped(cursor, _BETS_SQL, ids, hashable=True)
        posted = _grouped(cursor, _LEGS_SQL, tx_ids) if tx_ids else {}
    holders = _holders({account_id for legs in posted.values() for account_id, _side, _amount in legs})
    faults = []
    for hand in hands:
        faults += _one_hand(hand, entries.get(hand.pk, []), bets.get(hand.pk, []), posted, holders)
    return faults


_COUNTS_SQL = "SELECT hand_id, count(*) FROM tables_handevent WHERE hand_id = ANY(%s) GROUP BY hand_id"


class ReplayFeed:
    """``hand_faults`` of a table's hands fed the entries another reader streams: the
    chain check (``tables.integrity.chain_scan``'s ``feed``) reads every entry of the table
    once, in the order of their ids, and hands each to this feed, so that the replay does
    not read them again (``ledger_check --full``: ``reports.checkpoints``; the replay's
    own read of the entries was a sixth of PostgreSQL's work there, benchmarks/RESULTS.md,
    "audit incremental").

    Given the entries streamed as ``feed.extend(entries)`` (``(hand_id, sequence, kind,
    event)`` each, ``event`` decoded). The entries are gathered by hand;
    when ``CHUNK`` hands have entries, they are replayed as ``hand_faults`` replays a chunk.
    A hand's entries need not all come through the stream (one range of a table's chain,
    an incremental run's window, a void entered much later): before a hand is replayed its
    entries are counted in the database (one index-only query a chunk), and a hand with
    any not streamed is read whole (``_ENTRIES_SQL``). A hand never streamed is read whole
    at the end. The answer is ``hand_faults(hands)``'s, fault for fault, in its order.

    The events come decoded once per distinct text by the chain check
    (``tables.chain.EntryChecker.check_rows``) and are shared between hands: the replay
    never changes an event (``game.hand`` reads them; ``game.entries.fold_record_events``
    copies before it writes).

    ``hands`` (an int): how many hands it replays (the open ones left out); ``numbers``:
    every hand's number by its id, read with them; ``openings`` (with ``openings_after``,
    once ``faults()`` returned): ``[(number, code)]`` in the order of numbers, the hands
    whose signed opening does not hold, ``code`` ``tables.chain.opening_fault``'s.
    """

    def __init__(self, hands, *, openings_after: int | None = None):
        """``hands``: a queryset of ``Hand`` (of one table) to replay; open hands are skipped.
        ``openings_after``: also check the signed openings (``tables.chain.opening_fault``)
        of the hands of an id above it, the open ones too, from the rows the replay reads
        (``tables.integrity.opening_faults`` reads them again: a range of 50,000 hands took
        12.78 s of CPU, process and PostgreSQL, against 12.42 s so, the medians of five runs
        each, benchmarks/RESULTS.md, "audit incremental"); None: no opening checked."""
        rows = list(hands.values_list("pk", "number", "status"))
        self._wanted = {pk for pk, _number, status in rows if status != Hand.Status.OPEN}
        self.hands = len(self._wanted)
        #: ``{hand id: number}`` of every hand of ``hands``, the open ones too: the chain check
        #: signs each entry with its hand's number (``tables.integrity.chain_scan``'s ``numbers``).
        self.numbers = {pk: number for pk, number, _status in rows}
        self._openings_after = openings_after
        self._open = ([] if openings_after is None else
                      sorted(pk for pk, _number, status in rows if status == Hand.Status.OPEN and pk > openings_after))
        self.openings = []
        self._shared = {}
        self._pending = {}
        self._faults = []

    def extend(self, entries) -> None:
        """Take ``entries`` streamed (an iterable of ``(hand_id, sequence, kind, event)``,
        any hand's: those of hands not replayed are passed over); every ``CHUNK`` hands with
        entries are replayed."""
        wanted, pending = self._wanted, self._pending
        for hand_id, sequence, kind, event in entries:
            if hand_id not in wanted:
                continue
            taken = pending.get(hand_id)
            if taken is None:
                if len(pending) >= CHUNK:
                    self._flush()
                    pending = self._pending
                taken = pending[hand_id] = []
            taken.append((sequence, kind, event))

    def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        self._replay(list(pending), pending)

    def _replay(self, ids: list[int], pending: dict) -> None:
        self._wanted.difference_update(ids)
        with connection.cursor() as cursor:
            cursor.execute(_COUNTS_SQL, [ids])
            counts = dict(cursor.fetchall())
            whole = {pk for pk in ids if counts.get(pk, 0) != len(pending.get(pk, ()))}
            read = _grouped(cursor, _ENTRIES_SQL, list(whole)) if whole else {}
        entries = {pk: read.get(pk, []) if pk in whole else
                   [[kind, event] for _sequence, kind, event in sorted(pending.get(pk, ()), key=itemgetter(0))] for pk in ids}
        if len(self._shared) > CHUNK:
            self._shared.clear()
        hands = self._hands(ids)
        self._faults += [(fault["hand"], fault) for fault in _chunk_faults(hands, entries)]

    def _hands(self, ids: list[int]) -> list[_Hand]:
        """The hands of ``ids`` as ``_Hand`` in the order of numbers, their openings checked."""
        hands = [_hand(row, self._shared)
                 for row in Hand.objects.filter(pk__in=ids).order_by("number").values_list(*_HAND_COLUMNS)]
        if self._openings_after is not None:
            after = self._openings_after
            for hand in hands:
                if hand.pk > after and (code := _opening_code(hand)):
                    self.openings.append((hand.number, code))
        return hands

    def faults(self) -> list[dict]:
        """Replay what is left (the hands pending, then those never streamed) and return
        every fault, as ``hand_faults(hands)``: in the hands' order of number."""
        self._flush()
        rest = sorted(self._wanted)
        for start in range(0, len(rest), CHUNK):
            self._replay(rest[start:start + CHUNK], {})
        for start in range(0, len(self._open), CHUNK):  # not replayed: their openings only
            self._hands(self._open[start:start + CHUNK])
        self._open = []
        self.openings.sort()
        return [fault for _number, fault in sorted(self._faults, key=itemgetter(0))]


def _one_hand(hand: _Hand, entries, stored_bets, posted, holders) -> list[dict]:
    where = {"hand": hand.number, "table": hand.table_name}
    faults = []
    if hand.status == Hand.Status.VOIDED:
        if not any(kind == VOID for kind, _event in entries):
            faults.append({"code": "void_without_entry", **where})
        if hand.transaction_id and hand.reversal_id is None:
            faults.append({"code": "void_not_reversed", **where})
        if not hand.transaction_id and hand.settlement is None:
            return faults  # voided before it finished: nothing was settled
    elif hand.transaction_id is None:
        faults.append({"code": "hand_not_posted", **where})
    try:
        def make(profile):
            return HandState(profile, hand.min_bet, hand.max_bet, hand.bank_code, list(hand.seats), allow_unknown=True)

        _rules, state = replay_as_played(hand.rules, make, effective_events(entries))
        settlement = settle(state)
    except (IllegalEvent, ValueError, TypeError, KeyError) as error:
        reason = getattr(error, "message", None) or str(error)
        fault = {"code": "hand_unplayable", **where, "reason": str(reason)}
        if isinstance(error, EngineError):
            fault["engine"] = {"rule": error.rule, "template": error.template, "params": dict(error.params)}
        return [*faults, fault]
    differs = set()
    replayed = [(b.player, b.seat, b.hand, b.stake, b.points, b.result, b.multiplier, b.net) for b in settlement.bets]
    stored = stored_bets  # as _BETS_SQL reads them, in the order stored, amounts in cents
    # The same bets in the same order (as they were stored): none of the three can differ; else each is
    # counted (bets stored in another order are no fault: a hand's bets have no order of their own).
    if replayed != stored:
        if Counter(b[:4] for b in replayed) != Counter(b[:4] for b in stored):
            differs.add("stakes")
        if Counter(b[:7] for b in replayed) != Counter(b[:7] for b in stored) and "stakes" not in differs:
            differs.add("results")
        if Counter(b[:4] + b[7:] for b in replayed) != Counter(b[:4] + b[7:] for b in stored):
            differs.add("nets")
    expected = settlement.as_dict()
    saved = hand.settlement or {}
    if saved != expected or (hand.transaction_id and hand.detail != expected):
        # compared as it reads back from jsonb (equal as it is, it is equal so: the same
        # values, and Python's == is what compares them either way)
        expected = normal(expected)
    if saved.get("commission") != expected["commission"]:
        differs.add("commission")
    if hand.next_bank != settlement.next_bank or saved.get("next_bank") != expected["next_bank"]:
        differs.add("next_bank")
    if saved != expected and not differs:
        differs.add("settlement")
    if hand.transaction_id:
        legs = Counter((holders.get(account_id), side, amount)
                       for account_id, side, amount in posted.get(hand.transaction_id, ()))
        # As plain dicts: neither Counter holds a count of 0, so this is Counter's == in C.
        if not dict.__eq__(legs, _expected_legs(settlement, hand.tenure_id)) or hand.detail != expected:
            differs.add("posting")
    faults += [{"code": "hand_replay", **where, "what": what} for what in COMPARED if what in differs]
    return faults


def postings_without_hand(transactions=None) -> list[dict]:
    """Posted hand transactions that no hand points at (``transactions``: a queryset to
    look in, default every transaction)."""
    transactions = Transaction.objects.all() if transactions is None else transactions
    rows = (transactions.filter(kind=Transaction.Kind.HAND).filter(Q(hand__isnull=True)).order_by("id")
            .values_list("pk", "reference", "cause"))
    return [{"code": "posting_without_hand", "transaction": pk, "reference": reference, "cause": cause or {}}
            for pk, reference, cause in rows]


def fault_text(fault: dict) -> str:
    """One fault in English, for ``ledger_check``'s operators."""
    code = fault["code"]
    hand = f"hand {fault.get('table')} #{fault.get('hand')}"
    if code == "hand_replay":
        return f"{hand}: a replay of its entries disagrees with its {fault['what'].replace('_', ' ')}"
    if code == "hand_unplayable":
        return f"{hand}: its entries do not replay to a settled hand ({fault['reason']})"
    if code == "hand_not_posted":
        return f"{hand} is settled but has no ledger posting"
    if code == "void_not_reversed":
        return f"{hand} is voided but its posting was never reversed"
    if code == "void_without_entry":
        return f"{hand} is voided but no void was entered at the table"
    if code == "posting_without_hand":
        return f"transaction #{fault['transaction']} ({fault['reference']}) is a hand posting no hand points at"
    return json.dumps(fault)


def all_hand_faults() -> Iterable[str]:
    """Every hand's faults and every orphan hand posting, in English (``ledger_check``)."""
    return [fault_text(fault) for fault in [*hand_faults(Hand.objects.all()), *postings_without_hand()]]
