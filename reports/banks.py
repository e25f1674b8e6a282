"""The bank-rotation report: a table's bank tenures over a period, each reconciled to its
account's postings, and the chain of holders. Figures as ``reports.figures`` writes them.
"""

from collections import defaultdict

from django.db.models import Count, Max, Min, Q, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Cast
from django.utils import timezone

from casino.periods import period_bounds
from ledger.models import Entry, Transaction
from ledger.money import cents, euros
from ledger.shares import split_by_shares
from reports.audit import drawer_exceptions
from reports.figures import (
    FORMAT,
    MONEY,
    ZERO,
    account_sums,
    iso,
    money,
    no_progress,
    signed_amount,
)
from tables.models import BankTenure, Hand, SyndicateShare

#: The ledger's idempotency keys of a tenure's own postings (``ledger.services.tenures``).
TENURE_KEYS = {"price": "tenure:{}:price", "sale": "tenure:{}:sale",
               "distribution": "tenure:{}:close"}


def bank_rotation_report(table, date_from, date_to, progress=None) -> dict:
    """The bank's rotation at a table over a period: each tenure in order, with its
    holder, syndicate, how it began and ended, hands held, capital, net takings,
    commission and what each share received, and its life: capital deposited (from chips
    or at the cage), rebuilt, withdrawn, paid back at the end, and one result (all taken
    out less all put in, checked equal to the bank's takings in the ledger plus a sale's
    price: exception ``tenure_result``); the chain of holders.

    Args:
        table: a ``tables.models.Table``; date_from, date_to: ``datetime.date``, both
            days included, in the casino's time zone.
        progress: optional ``callable(percent, stage)``.
    Returns:
        dict (JSON-serialisable, amounts strings of euros): ``table``, ``period``,
        ``summary``, ``tenures`` (tenures open at any time in the period, each in full,
        oldest first), ``chain`` (holders in order), ``chart`` (net takings, running,
        tenure by tenure), ``exceptions`` (with the cage's drawers closed in the period
        beyond their tolerance, ``reports.audit.drawer_exceptions``).
    Raises:
        ValueError: ``date_to`` before ``date_from``.
    Each tenure's figures come from its settled hands and are reconciled with its
    account's entries: capital in, sale price, hand postings and reversals, the
    distribution to its syndicate, and its balance. [ledger.services.tenures for the postings]
    """
    progress = progress or no_progress
    start, end = period_bounds(date_from, date_to)
    exceptions = []
    progress(5, "tenures")
    selected = (BankTenure.objects.filter(table=table, opened_at__lt=end)
                .filter(Q(closed_at__isnull=True) | Q(closed_at__gte=start)))
    tenures = list(selected.order_by("opened_at", "id")
                   .values("id", "holder__code", "opened_at", "closed_at", "began", "ended", "capital", "price",
                           "seller__code", "previous_id", "account__id", "account__balance", "deposit_required"))
    ids = [row["id"] for row in tenures]
    shares = defaultdict(list)
    for row in (SyndicateShare.objects.filter(tenure__in=selected).order_by("tenure_id", "id")
                .values("tenure_id", "player__code", "percent")):
        shares[row["tenure_id"]].append(row)
    progress(20, "hands")
    hands = Hand.objects.filter(tenure__in=selected).order_by()
    hand_rows = (hands.values("tenure_id", "status")
                 .annotate(n=Count("id"), first_number=Min("number"), last_number=Max("number"),
                           commission=Sum(Cast(KT("settlement__commission"), MONEY)),
                           bank_net=Sum(Cast(KT("settlement__bank__net"), MONEY)))
                 .order_by())
    held = defaultdict(lambda: {"hands": 0, "voided": 0, "open": 0, "commission": ZERO, "bank_net": ZERO,
                                "first_hand": None, "last_hand": None})
    for row in hand_rows:
        figures = held[row["tenure_id"]]
        if row["status"] == Hand.Status.SETTLED:
            figures["hands"] += row["n"]
            figures["commission"] += row["commission"] or ZERO
            figures["bank_net"] += row["bank_net"] or ZERO
        else:
            figures[row["status"]] += row["n"]
        for key, pick, value in (("first_hand", min, row["first_number"]), ("last_hand", max, row["last_number"])):
            figures[key] = value if figures[key] is None else pick(figures[key], value)
    progress(45, "ledger")
    accounts = {row["account__id"]: row["id"] for row in tenures if row["account__id"] is not None}
    hand_ledger = defaultdict(lambda: ZERO)
    sums = account_sums(Entry.objects.filter(
        account_id__in=list(accounts),
        transaction_id__in=hands.filter(transaction__isnull=False).values("transaction_id")))
    for account_id, amount in sums.items():
        hand_ledger[accounts[account_id]] += amount
    progress(70, "postings")
    keyed = {}
    for tenure_id in ids:
        for name, pattern in TENURE_KEYS.items():
            keyed[pattern.format(tenure_id)] = (tenure_id, name)
    own = defaultdict(dict)
    txn_ids = {}
    for txn_id, key in Transaction.objects.filter(idempotency_key__in=list(keyed)).values_list("id",
                                                                                                "idempotency_key"):
        txn_ids[txn_id] = keyed[key]
    received = defaultdict(dict)
    for txn_id, account_id, side, amount, player in (
            Entry.objects.filter(transaction_id__in=list(txn_ids))
            .values_list("transaction_id", "account_id", "side", "amount", "account__player__code")):
        tenure_id, name = txn_ids[txn_id]
        signed = amount if side == Entry.Side.CREDIT else -amount
        if account_id in accounts and accounts[account_id] == tenure_id:
            own[tenure_id][name] = own[tenure_id].get(name, ZERO) + signed
        elif name == "distribution" and player:
            received[tenure_id][player] = received[tenure_id].get(player, ZERO) + signed
    # The bank's life: withdrawals by its banker, rebuilds of a wiped-out bank.
    life = defaultdict(lambda: {"withdrawals": ZERO, "rebuilds": ZERO})
    for account_id, kind, total in (
            Entry.objects.filter(account_id__in=list(accounts),
                                 transaction__kind__in=[Transaction.Kind.BANK_WITHDRAWAL, Transaction.Kind.BANK_REBUILD])
            .values_list("account_id", "transaction__kind").annotate(total=Sum(signed_amount())).order_by()):
        key = "withdrawals" if kind == Transaction.Kind.BANK_WITHDRAWAL else "rebuilds"
        life[accounts[account_id]][key] += total
    # a rebuild's deposit slip voided before the next hand: its reversal nets the rebuilds
    for account_id, total in (
            Entry.objects.filter(account_id__in=list(accounts),
                                 transaction__reverses__kind=Transaction.Kind.BANK_REBUILD)
            .values_list("account_id").annotate(total=Sum(signed_amount())).order_by()):
        life[accounts[account_id]]["rebuilds"] += total
    # The capital put in: from chips at the opening, or deposited at the cage slip by slip,
    # less the deposits voided before the bank played.
    deposited = defaultdict(lambda: ZERO)
    capital_in = Q(transaction__kind=Transaction.Kind.CAPITAL_IN) | Q(
        transaction__reverses__kind=Transaction.Kind.CAPITAL_IN)
    for account_id, total in (Entry.objects.filter(capital_in, account_id__in=list(accounts))
                              .values_list("account_id").annotate(total=Sum(signed_amount())).order_by()):
        deposited[accounts[account_id]] += total
    reversal_sums = defaultdict(lambda: ZERO)
    reversals = (Entry.objects.filter(account_id__in=list(accounts), transaction__reverses__isnull=False)
                 .exclude(transaction__reverses__kind__in=[Transaction.Kind.CAPITAL_IN, Transaction.Kind.BANK_REBUILD])
                 .values("account_id").annotate(total=Sum(signed_amount())).order_by())
    for row in reversals:
        reversal_sums[accounts[row["account_id"]]] += row["total"]
    # Voids of hands of a tenure closed since: their reversal took the bank's part from the
    # syndicate's chips (posting.reverse(closed_legs=tables.bank.tenures.through_distribution)), not from its account.
    shared = defaultdict(lambda: ZERO)
    for cause in (Transaction.objects.filter(reverses__isnull=False, cause__has_key="through_distribution")
                  .values_list("cause", flat=True)):
        for moved in cause["through_distribution"]:
            if moved["tenure"] in ids:
                shared[moved["tenure"]] += euros(sum(amount if side == "C" else -amount
                                                     for _account, side, amount in moved["legs"]))
    progress(85, "checks")
    rows = []
    total = {"hands": 0, "commission": ZERO, "bank_net": ZERO, "capital": ZERO}
    running = ZERO
    chart = []
    previous_row = None
    for tenure in tenures:
        tid = tenure["id"]
        figures = held[tid]
        percents = [share["percent"] for share in shares[tid]]
        capital_parts = split_by_shares(cents(tenure["capital"]), percents) if percents else []
        balance = tenure["account__balance"] if tenure["account__balance"] is not None else ZERO
        moved = own[tid]
        distribution = moved.get("distribution")
        if tenure["closed_at"] is None and percents:
            prospective = split_by_shares(cents(balance), percents)
            got = {share["player__code"]: euros(part) for share, part in zip(shares[tid], prospective, strict=True)}
        else:
            got = received[tid]
        share_rows = [{"player": share["player__code"], "percent": str(share["percent"]),
                       "capital": money(euros(part)), "received": money(got.get(share["player__code"], ZERO))}
                      for share, part in zip(shares[tid], capital_parts, strict=True)]
        on_account = hand_ledger[tid] + reversal_sums[tid]
        ledger_hands = on_account + shared[tid]
        put_in = deposited[tid]
        # What the syndicate got back at the end: its distribution, or (still open) the
        # balance it would get if closed now; the result is all it took out less all it
        # put in, and equals the bank's takings in the ledger plus a sale's price.
        paid_back = -(distribution or ZERO) if tenure["closed_at"] is not None else balance
        result = (-life[tid]["withdrawals"] + paid_back + shared[tid] - put_in - life[tid]["rebuilds"])
        row = {"id": tid, "holder": tenure["holder__code"], "opened_at": iso(tenure["opened_at"]),
               "closed_at": iso(tenure["closed_at"]), "began": tenure["began"], "ended": tenure["ended"] or None,
               "price": money(tenure["price"]) if tenure["price"] is not None else None,
               "seller": tenure["seller__code"], "previous": tenure["previous_id"],
               "hands": figures["hands"], "voided": figures["voided"], "open_hands": figures["open"],
               "first_hand": figures["first_hand"], "last_hand": figures["last_hand"],
               "capital": money(tenure["capital"]), "win": money(figures["bank_net"] + figures["commission"]),
               "commission": money(figures["commission"]), "net_takings": money(figures["bank_net"]),
               "ledger_takings": money(ledger_hands), "sale_price_in": money(moved.get("sale", ZERO)),
               "distributed": money(-distribution) if distribution is not None else None,
               "balance": money(balance), "shares": share_rows, "open": tenure["closed_at"] is None,
               "after_close": money(shared[tid]),
               "withdrawals": money(-life[tid]["withdrawals"]), "rebuilds": money(life[tid]["rebuilds"]),
               "deposits": money(put_in), "at_cage": tenure["deposit_required"],
               "awaiting": money(tenure["capital"] - put_in if tenure["deposit_required"] and tenure["closed_at"] is None
                                 else ZERO),
               "paid_back": money(paid_back), "result": money(result),
               "reconciled": result == ledger_hands + moved.get("sale", ZERO)}
        if figures["bank_net"] != ledger_hands:
            exceptions.append({"code": "tenure_differs", "tenure": tid, "holder": tenure["holder__code"],
                               "report": money(figures["bank_net"]), "ledger": money(ledger_hands),
                               "difference": money(figures["bank_net"] - ledger_hands)})
        # capital + price + hands + reversals - distribution = balance (what the account holds)
        expected = (put_in + moved.get("sale", ZERO) + moved.get("price", ZERO)
                    + on_account + (distribution or ZERO) + life[tid]["withdrawals"] + life[tid]["rebuilds"])
        if expected != balance:
            exceptions.append({"code": "tenure_balance", "tenure": tid, "holder": tenure["holder__code"],
                               "movements": money(expected), "balance": money(balance)})
        # A bank opened by the pit may close before all its deposits came in (given up);
        # never with more than its capital. One opened from chips has its capital exactly.
        if put_in > tenure["capital"] or (put_in != tenure["capital"] and not tenure["deposit_required"]):
            exceptions.append({"code": "tenure_capital", "tenure": tid, "capital": money(tenure["capital"]),
                               "ledger": money(put_in)})
        if not row["reconciled"]:
            exceptions.append({"code": "tenure_result", "tenure": tid, "result": row["result"],
                               "ledger": money(ledger_hands + moved.get("sale", ZERO))})
        if tenure["closed_at"] is not None and balance:
            exceptions.append({"code": "closed_tenure_holds", "tenure": tid, "balance": money(balance)})
        if figures["open"]:
            exceptions.append({"code": "tenure_open_hands", "tenure": tid, "count": figures["open"]})
        if previous_row is not None and tenure["began"] not in (BankTenure.Began.DRAW, BankTenure.Began.AUCTION):
            if tenure["previous_id"] != previous_row["id"]:
                exceptions.append({"code": "holder_chain", "tenure": tid, "previous": tenure["previous_id"],
                                   "expected": previous_row["id"]})
            elif previous_row["ended"] != tenure["began"]:
                exceptions.append({"code": "holder_chain_ends", "tenure": tid, "began": tenure["began"],
                                   "previous_ended": previous_row["ended"]})
        rows.append(row)
        previous_row = tenure
        total["hands"] += figures["hands"]
        total["commission"] += figures["commission"]
        total["bank_net"] += figures["bank_net"]
        total["capital"] += tenure["capital"]
        running += figures["bank_net"]
        chart.append([tid, money(running)])
    chain = [{"tenure": row["id"], "holder": row["holder"], "began": row["began"], "ended": row["ended"]}
             for row in rows]
    # The cage's drawers of the period closed beyond their tolerance (the whole cage's).
    exceptions.extend(drawer_exceptions(start, end))
    progress(100, "done")
    return {
        "format": FORMAT,
        "kind": "banks",
        "table": {"id": table.pk, "name": table.name, "rules": table.rules},
        "period": {"from": date_from.isoformat(), "to": date_to.isoformat(), "start": iso(start),
                   "end": iso(end)},
        "summary": {"tenures": len(rows), "hands": total["hands"], "capital": money(total["capital"]),
                    "commission": money(total["commission"]), "net_takings": money(total["bank_net"]),
                    "win": money(total["bank_net"] + total["commission"]),
                    "holders": len({row["holder"] for row in rows})},
        "tenures": rows,
        "chain": chain,
        "chart": {"points": chart, "unit": "tenure"},
        "exceptions": exceptions,
        "computed_at": timezone.now().isoformat(),
    }
