"""Value moved by chip transfers: the patterns an auditor looks for when chips change hands
between patrons (``ledger.chips.chip_transfer``, kind ``transfer``), read over a rolling
window of gaming days and raised as alerts of kind ``transfers``.

- ``one_way``: one patron gave another chips at least ``TRANSFER_REPEATS`` times in the
  window and never received any back from him (value flowing one way: a debt paid, a
  front, chips passed to a colleague at another table).
- ``cycle``: chips went round three or four patrons, A → B → C (→ D) → A, within the
  window (layering: the money comes back to where it started through others' hands).
- ``after_win``: a patron gave chips within ``AFTER_WIN_WINDOW`` of hands that won him at
  least ``TRANSFER_AFTER_WIN`` euros net (a rigged hand's gain handed to its beneficiary).

The patterns themselves (``transfer_patterns``) are pure: lists in, lists out, tested with
planted patterns and with honest ones that must stay quiet. A transfer later reversed
does not count. [FATF, *Vulnerabilities of Casinos and Gaming Sector* (2009), indicators
"transfers of chips between patrons" and "chip purchases followed by cashing out through
a third party"; SEPBLAC, *Catálogo de operaciones de riesgo: casinos*, "traspasos de
fichas entre clientes"]
"""

from collections import defaultdict
from datetime import date, timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Exists, OuterRef

from casino.periods import gaming_day_bounds
from ledger.models import Entry, Transaction
from reports.alerts import Finding
from reports.models import AlertKind

#: Transfers from one patron to another in the window, none back, that make a pattern.
TRANSFER_REPEATS = 3
#: The window of gaming days read, the night's day included.
TRANSFER_WINDOW_DAYS = 7
#: The longest round of patrons looked for (A → B → C → D → A).
CYCLE_MAX = 4
#: How long after his winning hands a patron's gift is read as passing the gain on.
AFTER_WIN_WINDOW = timedelta(hours=2)
#: The evidence lists at most this many transactions.
EVIDENCE_LIMIT = 50


def after_win_threshold() -> Decimal:
    """``TRANSFER_AFTER_WIN`` (default 1,000.00 €): the net won in hands before a gift that
    makes it an ``after_win`` pattern, Decimal euros."""
    return Decimal(str(getattr(settings, "TRANSFER_AFTER_WIN", "1000.00"))).quantize(Decimal("0.01"))


def chip_transfers(*, start, end) -> list[dict]:
    """The chip transfers posted in ``[start, end)`` and not reversed, oldest first.

    Returns:
        ``[{"id": transaction id, "at": aware datetime, "giver": code, "receiver": code,
        "amount": Decimal euros}]``.
    """
    rows = (Transaction.objects.filter(kind=Transaction.Kind.TRANSFER, posted_at__gte=start, posted_at__lt=end)
            .exclude(Exists(Transaction.objects.filter(reverses=OuterRef("pk"))))
            .values("id", "posted_at", "cause", "detail").order_by("posted_at", "id"))
    return [{"id": row["id"], "at": row["posted_at"], "giver": row["cause"].get("giver", row["detail"].get("giver")),
             "receiver": row["cause"].get("receiver", row["detail"].get("receiver")),
             "amount": Decimal(row["detail"]["amount"])} for row in rows]


def hand_wins(givers, *, start, end) -> dict[str, list[tuple]]:
    """Each patron's hand settlements in ``[start, end)``: ``{code: [(at, net Decimal euros)]}``
    (net: what his chips gained in that hand, a loss negative), oldest first."""
    wins = defaultdict(list)
    rows = (Entry.objects.filter(account__player__code__in=list(givers), transaction__kind=Transaction.Kind.HAND,
                                 transaction__posted_at__gte=start, transaction__posted_at__lt=end)
            .values("account__player__code", "transaction__posted_at", "side", "amount")
            .order_by("transaction__posted_at", "id"))
    for row in rows:
        net = row["amount"] if row["side"] == Entry.Side.CREDIT else -row["amount"]
        wins[row["account__player__code"]].append((row["transaction__posted_at"], net))
    return wins


def transfer_patterns(transfers, *, wins=None, repeats: int = TRANSFER_REPEATS, cycle_max: int = CYCLE_MAX,
                      after_win: Decimal | None = None, after_win_window: timedelta = AFTER_WIN_WINDOW) -> list[dict]:
    """The patterns of a window's chip transfers (pure).

    Args:
        transfers: as ``chip_transfers`` (oldest first); wins: as ``hand_wins`` (None: no
        ``after_win`` pattern looked for); repeats: ``one_way``'s least count; cycle_max:
        the longest round (3 or more); after_win: Decimal euros (default
        ``after_win_threshold()``); after_win_window: a timedelta.
    Returns:
        ``[{"pattern": "one_way" | "cycle" | "after_win", "players": [codes], "count": int,
        "total": Decimal euros, "transactions": [ids]}]``; ``after_win`` adds ``"won"``
        (Decimal euros) and ``"transaction"`` (the gift's id). One ``one_way`` per pair, one
        ``cycle`` per round of patrons (however it is entered), one ``after_win`` per gift.
    """
    patterns = []
    pairs = defaultdict(list)
    for transfer in transfers:
        pairs[(transfer["giver"], transfer["receiver"])].append(transfer)
    for (giver, receiver), given in sorted(pairs.items()):
        if len(given) >= repeats and (receiver, giver) not in pairs:
            patterns.append({"pattern": "one_way", "players": [giver, receiver], "count": len(given),
                             "total": sum((t["amount"] for t in given), Decimal("0.00")),
                             "transactions": [t["id"] for t in given]})
    for cycle in _cycles(pairs, cycle_max):
        legs = [pairs[(cycle[i], cycle[(i + 1) % len(cycle)])] for i in range(len(cycle))]
        moved = [t for leg in legs for t in leg]
        patterns.append({"pattern": "cycle", "players": list(cycle), "count": len(moved),
                         "total": sum((t["amount"] for t in moved), Decimal("0.00")),
                         "transactions": sorted(t["id"] for t in moved)})
    if wins is not None:
        threshold = after_win_threshold() if after_win is None else after_win
        for transfer in transfers:
            won = sum((net for at, net in wins.get(transfer["giver"], ())
                       if transfer["at"] - after_win_window <= at <= transfer["at"]), Decimal("0.00"))
            if won >= threshold:
                patterns.append({"pattern": "after_win", "players": [transfer["giver"], transfer["receiver"]],
                                 "count": 1, "total": transfer["amount"], "won": won,
                                 "transaction": transfer["id"], "transactions": [transfer["id"]]})
    return patterns


def _cycles(pairs, cycle_max):
    """The simple rounds of 3 to ``cycle_max`` patrons in the graph of ``pairs`` (``{(giver,
    receiver): …}``), each once, starting at its least code: ``[(codes…)]``, sorted."""
    following = defaultdict(set)
    for giver, receiver in pairs:
        following[giver].add(receiver)
    found = set()

    def walk(start, path):
        for after in following[path[-1]]:
            if after == start and len(path) >= 3:
                found.add(tuple(path))
            elif after > start and after not in path and len(path) < cycle_max:
                walk(start, [*path, after])

    for start in sorted(following):
        walk(start, [start])
    return sorted(found)


def transfer_findings(*, day: date, window_days: int = TRANSFER_WINDOW_DAYS) -> list[Finding]:
    """The transfer patterns of the ``window_days`` gaming days ending with ``day``, as
    alert findings (kind ``transfers``). A pattern found again on a later night, on the
    same transfers, is the same alert (``alerts.alert_raise`` is idempotent): a pair's
    ``one_way`` is identified by its first transfer in the window, a ``cycle`` by its
    patrons and first transfer, an ``after_win`` by its gift.

    Returns:
        list of ``Finding`` (no table, shift or report: a transfer is the pit's).
    """
    start, _ = gaming_day_bounds(day - timedelta(days=window_days - 1))
    _, end = gaming_day_bounds(day)
    transfers = chip_transfers(start=start, end=end)
    if not transfers:
        return []
    givers = {t["giver"] for t in transfers}
    wins = hand_wins(givers, start=start - AFTER_WIN_WINDOW, end=end)
    findings = []
    for pattern in transfer_patterns(transfers, wins=wins):
        evidence = {"players": pattern["players"], "count": pattern["count"], "total": str(pattern["total"]),
                    "transactions": pattern["transactions"][:EVIDENCE_LIMIT],
                    "from": (day - timedelta(days=window_days - 1)).isoformat(), "to": day.isoformat()}
        if pattern["pattern"] == "after_win":
            evidence["won"] = str(pattern["won"])
            identity = pattern["transaction"]
        else:
            identity = [pattern["players"], min(pattern["transactions"])]
        findings.append(Finding(kind=AlertKind.TRANSFERS, code=pattern["pattern"],
                                subject=f"players:{'>'.join(pattern['players'])}"[:120], identity=identity,
                                evidence=evidence))
    return findings
