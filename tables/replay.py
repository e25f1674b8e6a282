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
  hand (the engine's refusal, in English);
- ``hand_not_posted`` ``{hand, table}``: a settled hand with no transaction;
- ``void_not_reversed`` ``{hand, table}``: a voided hand whose posting has no reversal;
- ``void_without_entry`` ``{hand, table}``: a hand voided with no void entry at the table;
- ``posting_without_hand`` ``{transaction, reference, cause}``: a posted hand transaction that
  no hand points at.
"""

import json
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import NamedTuple

from django.db.models import Q

from game import HandState, IllegalEvent
from game.entries import VOID, effective_events
from game.payouts import settle
from game.record import replay_as_played
from ledger.models import Account, Entry, Transaction
from ledger.money import cents
from tables.models import Hand, HandBet, HandEvent

#: Hands replayed per round of reads (bounds the memory of ``ledger_check``).
CHUNK = 500
#: Rows per round trip of the entries', bets' and postings' server-side cursors.
ENTRY_CHUNK = 5000
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


def _json(value):
    return json.loads(json.dumps(value))


class _Hand(NamedTuple):
    """What the replay reads of a hand: one row of ``_HAND_COLUMNS``."""

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
    min_bet: object
    max_bet: object
    bank_code: str
    seats: list
    tenure_id: int | None


#: The columns of ``_Hand``, in its order (the transaction's detail and the id of its
#: reversal through the same join).
_HAND_COLUMNS = ("pk", "number", "table__name", "status", "transaction_id", "transaction__reversal",
                 "transaction__detail", "settlement", "next_bank", "rules", "min_bet", "max_bet", "bank__code",
                 "seats", "tenure_id")


def hand_faults(hands) -> list[dict]:
    """Replay every hand of ``hands`` (a queryset of ``Hand``) and compare.

    Open hands are skipped (not settled yet). The hands are read as tuples (``_Hand``)
    through a server-side cursor, in the hands' order; every ``CHUNK`` hands, their
    entries, their bets and their transactions' entries are read, three queries a chunk,
    as tuples too: memory stays bounded by the chunk whatever the number of hands.
    Returns:
        the faults (module docstring), in the hands' order (table, number).
    """
    faults = []
    rows = (hands.exclude(status=Hand.Status.OPEN).order_by("table_id", "number").values_list(*_HAND_COLUMNS)
            .iterator(chunk_size=CHUNK))
    chunk = []
    for row in rows:
        chunk.append(_Hand._make(row))
        if len(chunk) == CHUNK:
            faults += _chunk_faults(chunk)
            chunk = []
    if chunk:
        faults += _chunk_faults(chunk)
    return faults


def _chunk_faults(hands: list[_Hand]) -> list[dict]:
    ids = [hand.pk for hand in hands]
    entries = defaultdict(list)
    for hand_id, kind, event in (HandEvent.objects.filter(hand_id__in=ids).order_by("hand_id", "sequence")
                                 .values_list("hand_id", "kind", "event").iterator(chunk_size=ENTRY_CHUNK)):
        entries[hand_id].append((kind, event))
    bets = defaultdict(list)
    for hand_id, *bet in (HandBet.objects.filter(hand_id__in=ids)
                          .values_list("hand_id", "player__code", "seat", "seat_hand", "stake", "points", "result",
                                       "multiplier", "net").iterator(chunk_size=ENTRY_CHUNK)):
        bets[hand_id].append(tuple(bet))
    tx_ids = [hand.transaction_id for hand in hands if hand.transaction_id]
    posted = defaultdict(list)
    for tx_id, account_id, side, amount in (Entry.objects.filter(transaction_id__in=tx_ids)
                                            .values_list("transaction_id", "account_id", "side", "amount")
                                            .iterator(chunk_size=ENTRY_CHUNK)):
        posted[tx_id].append((account_id, side, cents(amount)))
    holders = _holders({account_id for legs in posted.values() for account_id, _side, _amount in legs})
    faults = []
    for hand in hands:
        faults += _one_hand(hand, entries[hand.pk], bets[hand.pk], posted, holders)
    return faults


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
            return HandState(profile, cents(hand.min_bet), cents(hand.max_bet), hand.bank_code, list(hand.seats),
                             allow_unknown=True)

        _rules, state = replay_as_played(hand.rules, make, effective_events(entries))
        settlement = settle(state)
    except (IllegalEvent, ValueError, TypeError, KeyError) as error:
        reason = getattr(error, "message", None) or str(error)
        return [*faults, {"code": "hand_unplayable", **where, "reason": str(reason)}]
    differs = set()
    replayed = [(b.player, b.seat, b.hand, b.stake, b.points, b.result, b.multiplier, b.net) for b in settlement.bets]
    stored = [(player, seat, seat_hand, cents(stake), points, result, multiplier, cents(net))
              for player, seat, seat_hand, stake, points, result, multiplier, net in stored_bets]
    if Counter(b[:4] for b in replayed) != Counter(b[:4] for b in stored):
        differs.add("stakes")
    if Counter(b[:7] for b in replayed) != Counter(b[:7] for b in stored) and "stakes" not in differs:
        differs.add("results")
    if Counter(b[:4] + b[7:] for b in replayed) != Counter(b[:4] + b[7:] for b in stored):
        differs.add("nets")
    expected = _json(settlement.as_dict())
    saved = hand.settlement or {}
    if saved.get("commission") != expected["commission"]:
        differs.add("commission")
    if hand.next_bank != settlement.next_bank or saved.get("next_bank") != expected["next_bank"]:
        differs.add("next_bank")
    if saved != expected and not differs:
        differs.add("settlement")
    if hand.transaction_id:
        legs = Counter((holders.get(account_id), side, amount) for account_id, side, amount in posted[hand.transaction_id])
        if legs != _expected_legs(settlement, hand.tenure_id) or _json(hand.detail) != expected:
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
