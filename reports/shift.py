"""The shift report: a table's shift from its hands, bets and entries, reconciled to the
ledger, with its audit (``reports.audit``). Figures as ``reports.figures`` writes them.
"""

import json
from collections import defaultdict
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from game.profiles import Profile
from ledger.models import Account, Entry, Transaction
from ledger.money import euros
from patrons.models import Player
from reports.audit import audit, box_checks, card_tests, chain_check, seal_faults
from reports.figures import (
    CENT,
    FORMAT,
    MONEY,
    ZERO,
    account_sums,
    decimal_of,
    iso,
    money,
    no_progress,
    percent,
    signed_amount,
)
from reports.house import house_figures
from tables.models import BankAuction, BankTenure, Hand, HandBet
from tables.replay import hand_faults, postings_without_hand

#: The replay's faults the shift report shows (it finds unposted hands and unreversed
#: voids itself: ``_reconcile_shift``, ``_voids``).
REPLAY_CODES = {"hand_replay", "hand_unplayable", "void_without_entry", "posting_without_hand"}

#: At most this many points in the chart of the bank's running balance.
CHART_POINTS = 240
#: Hands per hour are given for a shift of at least this many hours (six minutes).
MIN_HOURS = Decimal("0.1")
WIN_RESULTS = ("win", "natural")


def _deck_of(rules) -> str:
    try:
        return Profile.from_rules(rules).deck
    except Exception:  # a hand's stored rules were valid when it was played
        return "spanish-40"


def shift_report(shift, progress=None) -> dict:
    """The report of a table's shift, computed from its hands, bets and entries.

    Args:
        shift: a ``tables.models.Shift`` (open or closed).
        progress: optional ``callable(percent: int, stage: str)``, told as each stage
            starts (the Celery task writes it to the request for the progress bar).
    Returns:
        dict (JSON-serialisable; amounts strings of euros with two places):
        ``table``, ``shift``, ``summary`` (hands, bets, handle, win, commission, hold %,
        naturals, busts, splits, exchanges, fusilados, muertos, hands per hour…),
        ``payouts`` (by multiplier: bets paid and collected, count and amount),
        ``results``, ``bet_kinds`` (seats, side bets, la loca), ``tenures`` (the bank's
        takings per tenure), ``players`` (each player's result, with the ledger's),
        ``dealers`` (who dealt: each dealer's spells at the table between reliefs, his
        minutes, his hands settled, voided and open, their handle and the bank's win
        before commission: ``_dealer_figures``), ``voids`` and ``undos`` (who, when, why), ``reconciliation`` (report against
        ledger), ``cards`` (chi-square per deck), ``chain`` (entries checked),
        ``chart`` (the bank's running balance), ``replay`` (hands worked out again),
        ``seal`` (the chain head: ``entry`` id, ``hash``, ``key_id``, ``entries``), ``house``
        (the house's figures: ``reports.house.house_figures``), ``boxes`` (the drop, cagnotte
        and tips boxes as counted, against the buy-ins and the commission:
        ``reports.audit.box_checks``) and ``exceptions`` (with ``seal_broken``: a head sealed
        in a stored report that the chain no longer has).
    Only settled hands count in the figures; voided hands are listed with their void,
    open hands are an exception.
    """
    progress = progress or no_progress
    table = shift.table
    hands = Hand.objects.filter(table=table, shift=shift).order_by()
    exceptions = []
    progress(5, "hands")
    lo, first_at = hands.order_by("number").values_list("number", "opened_at").first() or (None, None)
    hi, last_at = hands.order_by("-number").values_list("number", "opened_at").first() or (None, None)
    summary, tenure_rows, chart, decks = _hand_figures(table, shift, lo, hi)
    count = summary["hands"]
    progress(20, "bets")
    bets = _bet_figures(HandBet.objects.filter(hand__shift=shift, hand__status=Hand.Status.SETTLED).order_by())
    progress(40, "ledger")
    ledger = _ledger_figures(shift, hands)
    dealers = _dealer_figures(shift, hands)
    progress(55, "voids")
    voids = _voids(hands)
    progress(60, "cards")
    cards = card_tests(shift, decks)
    progress(75, "chain")
    chain, undos = chain_check(table, shift.pk, hands, count)
    progress(85, "replay")
    replayed = _replay(table, shift, hands)
    progress(90, "checks")

    summary.update(bets["summary"])
    win = -decimal_of(bets["summary"]["players_net"])
    summary["win"] = money(win)
    summary["hold_percent"] = percent(win, decimal_of(bets["summary"]["handle"]))
    opened = shift.opened_at
    ended = shift.closed_at or last_at or opened
    hours = Decimal((ended - opened).total_seconds()) / 3600 if ended and opened else Decimal(0)
    summary["hours"] = str(hours.quantize(CENT))
    summary["hands_per_hour"] = (str((Decimal(summary["settled"]) / hours).quantize(Decimal("0.1")))
                                 if hours >= MIN_HOURS else None)
    summary["first_hand_at"], summary["last_hand_at"] = iso(first_at), iso(last_at)

    reconciliation = _reconcile_shift(summary, bets, tenure_rows, ledger, voids, exceptions)
    if reconciliation["differs"]:
        reconciliation["hands"] = _hand_differences(hands)
    audit(table, hands, count, lo, hi, summary, cards, chain, exceptions)
    exceptions += replayed
    exceptions += seal_faults(table)
    house = house_figures(shift, summary["handle"], exceptions)
    boxes = box_checks(shift, exceptions)
    boxes["bank_life"] = _bank_life(shift)
    for row in bets["players"]:
        del row["player_id"]
    progress(100, "done")
    return {
        "format": FORMAT,
        "kind": "shift",
        "table": {"id": table.pk, "name": table.name, "rules": table.rules},
        "shift": {"id": shift.pk, "dealer": shift.dealer.get_username(),
                  "current_dealer": shift.current_dealer.get_username(),
                  "opened_by": shift.opened_by.get_username(),
                  "closed_by": shift.closed_by.get_username() if shift.closed_by_id else None,
                  "opened_at": iso(shift.opened_at), "closed_at": iso(shift.closed_at),
                  "open": shift.closed_at is None},
        "summary": summary,
        "payouts": bets["payouts"],
        "results": bets["results"],
        "bet_kinds": bets["kinds"],
        "tenures": tenure_rows,
        "players": bets["players"],
        "dealers": dealers,
        "voids": voids["rows"],
        "undos": undos,
        "reconciliation": reconciliation,
        "cards": cards,
        "chain": {"entries": chain["entries"], "first": chain["first"], "last": chain["last"]},
        "replay": {"hands": summary["settled"] + summary["voided"], "faults": len(replayed)},
        # The head of the shift's chain: the last entry of its hands, checked above. Stored
        # with the report (the version at the shift's close seals it), shown on the page
        # and in the PDF; later reports compare the chain with it (``seal_faults``).
        "seal": {"entry": chain["last"], "hash": chain["head"], "key_id": chain["key_id"],
                 "entries": chain["entries"]},
        "chart": chart,
        "house": house,
        "boxes": boxes,
        "exceptions": exceptions,
        "computed_at": timezone.now().isoformat(),
    }


def _dealer_figures(shift, hands):
    """Per dealer of the shift, in the order they first dealt: ``{"dealer" (username),
    "spells": [{"from", "to"} ISO times, "to" None: dealing now], "minutes", "hands", "settled", "voided", "open",
    "handle", "win" (Decimal strings of euros: the settled hands' stakes, and the bank's win
    before commission: minus the players' net)}``. Hands by their own ``dealer`` (set at
    their opening from the shift's current dealer), minutes by the reliefs' intervals."""
    rows = {}
    spells = shift.dealer_spells()
    for i, (dealer_id, start, end) in enumerate(spells):
        row = rows.setdefault(dealer_id, {"spells": [], "seconds": 0, "hands": 0, "settled": 0, "voided": 0,
                                          "open": 0, "handle": ZERO, "win": ZERO})
        still = shift.closed_at is None and i == len(spells) - 1  # dealing now: no end yet
        row["spells"].append({"from": iso(start), "to": None if still else iso(end)})
        row["seconds"] += max(int((end - start).total_seconds()), 0)
    for dealer_id, status, n in hands.values_list("dealer_id", "status").annotate(n=Count("id")).order_by():
        row = rows.setdefault(dealer_id, {"spells": [], "seconds": 0, "hands": 0, "settled": 0, "voided": 0,
                                          "open": 0, "handle": ZERO, "win": ZERO})
        row[status] += n
        row["hands"] += n
    for dealer_id, stake, net in (HandBet.objects.filter(hand__in=hands, hand__status=Hand.Status.SETTLED)
                                  .values_list("hand__dealer_id").annotate(stake=Sum("stake"), net=Sum("net"))
                                  .order_by()):
        rows[dealer_id]["handle"] += stake or ZERO
        rows[dealer_id]["win"] -= net or ZERO
    users = get_user_model().objects.in_bulk([pk for pk in rows if pk is not None])
    out = []
    for dealer_id, row in rows.items():
        seconds = row.pop("seconds")
        row.update(dealer=users[dealer_id].get_username() if dealer_id in users else None,
                   minutes=seconds // 60, handle=money(row["handle"]), win=money(row["win"]))
        out.append(row)
    return out


def _replay(table, shift, hands):
    """The shift's hands worked out again from their entries (``tables.replay``), and the
    hand postings of the table's tenures during the shift that no hand points at."""
    faults = [fault for fault in hand_faults(hands) if fault["code"] in REPLAY_CODES]
    during = Transaction.objects.filter(entries__account__tenure__table=table, posted_at__gte=shift.opened_at).distinct()
    if shift.closed_at:
        during = during.filter(posted_at__lte=shift.closed_at)
    return faults + postings_without_hand(during)


#: Per hand, read from its ``settlement`` JSON once (jsonb_to_record, in a subquery fenced
#: by OFFSET 0): the commission and the bank's net in integer cents, the bank's points in
#: half-points.
_HAND_FIGURES_SQL = """
SELECT tenure_id, status, bucket, count(*), count(transaction_id), sum(splits), sum(exchanges), sum(fusilados),
       sum(muertos), sum(commission), sum(bank_net),
       sum(CASE WHEN bank_points = 15 THEN 1 ELSE 0 END), sum(CASE WHEN bank_points > 15 THEN 1 ELSE 0 END),
       min(number), max(number), sum(CASE WHEN other_rules THEN 1 ELSE 0 END)
  FROM (SELECT h.tenure_id, h.status, h.transaction_id, h.splits, h.exchanges, h.fusilados, h.muertos, h.number,
               (h.number - %(lo)s) * %(buckets)s / %(span)s AS bucket,
               (s.commission * 100)::bigint AS commission, ((s.bank ->> 'net')::numeric * 100)::bigint AS bank_net,
               ((s.bank ->> 'points')::numeric * 2)::int AS bank_points, h.rules <> %(rules)s::jsonb AS other_rules
          FROM tables_hand h
               LEFT JOIN LATERAL jsonb_to_record(h.settlement) AS s(commission numeric, bank jsonb) ON true
         WHERE h.table_id = %(table)s AND h.shift_id = %(shift)s OFFSET 0) AS hand
 GROUP BY tenure_id, status, bucket"""


def _bank_life(shift):
    """The bank's withdrawals, rebuilds and auctions at the shift's table while it was
    open, in order: ``[{"kind", "tenure", "holder", "amount", "at", "by"}]`` (amounts
    strings of euros, from the tenure account's entry of each posting; an auction's row
    is its winning bid, with ``sessions`` and the ``tied`` bidders drawn by lot)."""
    window = Q(transaction__posted_at__gte=shift.opened_at)
    if shift.closed_at is not None:
        window &= Q(transaction__posted_at__lte=shift.closed_at)
    rows = []
    for entry in (Entry.objects.filter(window, account__tenure__table=shift.table_id,
                                       transaction__kind__in=[Transaction.Kind.BANK_WITHDRAWAL,
                                                              Transaction.Kind.BANK_REBUILD])
                  .select_related("transaction__posted_by", "account__tenure__holder").order_by("transaction_id")):
        txn, tenure, amount = entry.transaction, entry.account.tenure, entry.amount
        rows.append({"kind": txn.kind, "tenure": tenure.pk, "holder": tenure.holder.code,
                     "amount": money(amount), "at": iso(txn.posted_at),
                     "by": txn.posted_by.get_username() if txn.posted_by_id else None})
    awarded = Q(awarded_at__gte=shift.opened_at)
    if shift.closed_at is not None:
        awarded &= Q(awarded_at__lte=shift.closed_at)
    for auction in (BankAuction.objects.filter(awarded, table=shift.table_id)
                    .select_related("winner", "awarded_by").order_by("awarded_at", "id")):
        rows.append({"kind": "auction", "tenure": auction.tenure_id, "holder": auction.winner.code,
                     "amount": money(auction.amount), "at": iso(auction.awarded_at),
                     "by": auction.awarded_by.get_username(), "sessions": auction.sessions,
                     "tied": auction.draw.get("tied", [])})
    rows.sort(key=lambda row: row["at"])
    return rows


def _hand_figures(table, shift, lo, hi):
    """One grouped scan of the shift's hands: statuses, counts, commission, the bank's
    net per tenure and per chart bucket, the decks used.

    Raw SQL: each settlement value is read once per hand in a fenced subquery (a JSON
    read is the costly part), then grouped by tenure, status and chart bucket."""
    summary = {"hands": 0, "settled": 0, "voided": 0, "open": 0, "posted": 0, "splits": 0,
               "exchanges": 0, "fusilados": 0, "muertos": 0, "bank_naturals": 0, "bank_busts": 0,
               "commission": "0.00", "bank_net": "0.00", "first_hand": lo, "last_hand": hi}
    if lo is None:
        return summary, [], {"points": [], "unit": "hand"}, {}
    span = hi - lo + 1
    buckets = min(CHART_POINTS, span)
    with connection.cursor() as cursor:
        cursor.execute(_HAND_FIGURES_SQL, {"lo": lo, "buckets": buckets, "span": span, "table": table.pk, "shift": shift.pk,
                             "rules": json.dumps(table.rules)})
        found = cursor.fetchall()
    names = ("tenure_id", "status", "bucket", "n", "posted", "splits", "exchanges", "fusilados", "muertos",
             "commission", "bank_net", "bank_naturals", "bank_busts", "first_number", "last_number", "other_rules")
    rows = []
    for values in found:
        row = dict(zip(names, values, strict=True))
        row["commission"] = euros(int(row["commission"] or 0))
        row["bank_net"] = euros(int(row["bank_net"] or 0))
        rows.append(row)
    decks = defaultdict(list)
    if any(row["other_rules"] for row in rows if row["status"] != Hand.Status.OPEN):
        for rules_value in (Hand.objects.filter(table=table, shift=shift).exclude(status=Hand.Status.OPEN)
                            .order_by().values_list("rules", flat=True).distinct()):
            decks[_deck_of(rules_value)].append(rules_value)
    elif any(row["status"] != Hand.Status.OPEN for row in rows):
        decks[_deck_of(table.rules)].append(table.rules)
    tenures = {}
    by_bucket = defaultdict(lambda: [ZERO, 0])
    commission = bank_net = ZERO
    for row in rows:
        status = row["status"]
        summary[status] += row["n"]
        summary["hands"] += row["n"]
        if status != Hand.Status.SETTLED:
            continue
        summary["posted"] += row["posted"]
        for name in ("splits", "exchanges", "fusilados", "muertos", "bank_naturals", "bank_busts"):
            summary[name] += row[name] or 0
        commission += row["commission"] or ZERO
        bank_net += row["bank_net"] or ZERO
        tenure = tenures.setdefault(row["tenure_id"], {"id": row["tenure_id"], "hands": 0, "commission": ZERO,
                                                       "bank_net": ZERO, "first_hand": row["first_number"],
                                                       "last_hand": row["last_number"]})
        tenure["hands"] += row["n"]
        tenure["commission"] += row["commission"] or ZERO
        tenure["bank_net"] += row["bank_net"] or ZERO
        tenure["first_hand"] = min(tenure["first_hand"], row["first_number"])
        tenure["last_hand"] = max(tenure["last_hand"], row["last_number"])
        point = by_bucket[row["bucket"]]
        point[0] += row["bank_net"] or ZERO
        point[1] = max(point[1], row["last_number"])
    summary["commission"], summary["bank_net"] = money(commission), money(bank_net)
    holders = {t["id"]: t for t in BankTenure.objects.filter(pk__in=list(tenures))
               .values("id", "holder__code", "began", "capital")}
    tenure_rows = []
    for tenure_id in sorted(tenures, key=lambda t: (tenures[t]["first_hand"], t)):
        row = tenures[tenure_id]
        tenure = holders[tenure_id]
        row.update(holder=tenure["holder__code"], began=tenure["began"], capital=money(tenure["capital"]),
                   win=money(row["bank_net"] + row["commission"]), commission=money(row["commission"]),
                   bank_net=money(row["bank_net"]))
        tenure_rows.append(row)
    running, points = ZERO, []
    for bucket in sorted(by_bucket):
        running += by_bucket[bucket][0]
        points.append([by_bucket[bucket][1], money(running)])
    return summary, tenure_rows, {"points": points, "unit": "hand"}, dict(decks)


def _bet_figures(bets):
    """One grouped scan of the settled bets: payouts by multiplier, results, kinds of
    bet (own seat, side bet, la loca), each player's result."""
    rows = list(bets.values("player_id", "seat", "result", "multiplier")
                .annotate(n=Count("id"), stake=Sum("stake"), net=Sum("net"),
                          extra=Count("id", filter=Q(seat_hand__gt=1)))
                .order_by())
    codes = dict(Player.objects.filter(pk__in={row["player_id"] for row in rows}).values_list("pk", "code"))
    payouts = defaultdict(lambda: {"paid_count": 0, "paid_stake": ZERO, "paid": ZERO,
                                   "collected_count": 0, "collected_stake": ZERO, "collected": ZERO})
    results = defaultdict(lambda: {"count": 0, "stake": ZERO, "net": ZERO})
    kinds = {kind: {"count": 0, "stake": ZERO, "net": ZERO} for kind in ("seat", "side", "loca")}
    players = defaultdict(lambda: {"bets": 0, "handle": ZERO, "net": ZERO, "won": 0, "lost": 0,
                                   "naturals": 0, "busts": 0})
    total = {"bets": 0, "handle": ZERO, "players_net": ZERO, "naturals": 0, "busts": 0, "extra_hands": 0}
    for row in rows:
        code = codes[row["player_id"]]
        n, stake, net = row["n"], row["stake"], row["net"]
        won = row["result"] in WIN_RESULTS
        payout = payouts[row["multiplier"]]
        if won:
            payout["paid_count"] += n
            payout["paid_stake"] += stake
            payout["paid"] += net
        else:
            payout["collected_count"] += n
            payout["collected_stake"] += stake
            payout["collected"] -= net
        result = results[row["result"]]
        result["count"] += n
        result["stake"] += stake
        result["net"] += net
        kind = "loca" if row["seat"] == "loca" else ("seat" if row["seat"] == code else "side")
        kinds[kind]["count"] += n
        kinds[kind]["stake"] += stake
        kinds[kind]["net"] += net
        player = players[row["player_id"]]
        player["bets"] += n
        player["handle"] += stake
        player["net"] += net
        player["won" if won else "lost"] += n
        player["naturals"] += n if row["result"] == "natural" else 0
        player["busts"] += n if row["result"] == "bust" else 0
        total["bets"] += n
        total["handle"] += stake
        total["players_net"] += net
        total["naturals"] += n if row["result"] == "natural" else 0
        total["busts"] += n if row["result"] == "bust" else 0
        total["extra_hands"] += row["extra"]
    summary = {"bets": total["bets"], "handle": money(total["handle"]), "players_net": money(total["players_net"]),
               "naturals": total["naturals"], "busts": total["busts"],
               "loca_bets": kinds["loca"]["count"], "side_bets": kinds["side"]["count"]}
    return {
        "summary": summary,
        "payouts": [{"multiplier": k, "paid_count": v["paid_count"], "paid_stake": money(v["paid_stake"]),
                     "paid": money(v["paid"]), "collected_count": v["collected_count"],
                     "collected_stake": money(v["collected_stake"]), "collected": money(v["collected"])}
                    for k, v in sorted(payouts.items())],
        "results": [{"result": name, "count": v["count"], "stake": money(v["stake"]), "net": money(v["net"])}
                    for name, v in sorted(results.items(), key=lambda item: ("win", "natural", "lose", "bust")
                                          .index(item[0]) if item[0] in ("win", "natural", "lose", "bust") else 9)],
        "kinds": {kind: {"count": v["count"], "stake": money(v["stake"]), "net": money(v["net"])}
                  for kind, v in kinds.items()},
        "players": [{"player_id": pid, "player": codes[pid], "bets": v["bets"], "handle": money(v["handle"]),
                     "net": money(v["net"]), "won": v["won"], "lost": v["lost"], "naturals": v["naturals"],
                     "busts": v["busts"]}
                    for pid, v in sorted(players.items(), key=lambda item: codes[item[0]])],
    }


def _ledger_figures(shift, hands):
    """The ledger's side of a shift: the entries of its hands' transactions and of
    every reversal of them, summed per account (three queries)."""
    posted = account_sums(Entry.objects.filter(
        transaction_id__in=hands.filter(transaction__isnull=False).values("transaction_id")))
    voided_txns = list(hands.filter(status=Hand.Status.VOIDED, transaction__isnull=False)
                       .values_list("transaction_id", flat=True))
    voided = account_sums(Entry.objects.filter(transaction_id__in=voided_txns)) if voided_txns else {}
    reversals = list(Transaction.objects.filter(reverses__isnull=False, reverses__hand__shift=shift)
                     .values("id", "reverses_id", "reverses__hand__number", "reverses__hand__status", "cause"))
    reversal_sums = {}
    voided_reversals = {}
    if reversals:
        by_status = defaultdict(list)
        for row in reversals:
            by_status[row["reverses__hand__status"]].append(row["id"])
        if by_status.get(Hand.Status.VOIDED):
            voided_reversals = account_sums(Entry.objects.filter(transaction_id__in=by_status[Hand.Status.VOIDED]))
        others = [rid for status, ids in by_status.items() if status != Hand.Status.VOIDED for rid in ids]
        if others:
            reversal_sums = account_sums(Entry.objects.filter(transaction_id__in=others))
    accounts = {row["id"]: row for row in Account.objects.filter(
        pk__in={*posted, *voided, *reversal_sums, *voided_reversals}).values("id", "kind", "player__code",
                                                                               "tenure__id")}
    return {"posted": posted, "voided": voided, "reversals": reversals, "reversal_sums": reversal_sums,
            "voided_reversals": voided_reversals, "accounts": accounts}


def _voids(hands):
    rows = list(hands.filter(status=Hand.Status.VOIDED).order_by("number")
                .values("number", "voided_at", "voided_by__username", "void_reason", "transaction_id",
                        "transaction__reversal__id"))
    return {"rows": [{"number": row["number"], "voided_at": iso(row["voided_at"]),
                      "voided_by": row["voided_by__username"], "reason": row["void_reason"],
                      "posted": row["transaction_id"] is not None,
                      "reversal": row["transaction__reversal__id"]} for row in rows]}


def _reconcile_shift(summary, bets, tenure_rows, ledger, voids, exceptions):
    """Report against ledger, per player, per tenure, the house, and in total.

    The ledger's side of a settled hand is its transaction plus any reversal of it; a
    voided hand's transaction and its reversal must cancel out. Every difference is an
    exception. Mutates ``bets["players"]`` and ``tenure_rows`` (adds ``ledger``)."""
    accounts = ledger["accounts"]
    effective = defaultdict(lambda: ZERO)
    for source in (ledger["posted"], ledger["reversal_sums"]):
        for account_id, amount in source.items():
            effective[account_id] += amount
    for account_id, amount in ledger["voided"].items():
        effective[account_id] -= amount
    leftover = defaultdict(lambda: ZERO)
    for source in (ledger["voided"], ledger["voided_reversals"]):
        for account_id, amount in source.items():
            leftover[account_id] += amount
    # A void of a hand whose tenure closed since posted the bank's part against the
    # syndicate's chips (posting.reverse(closed_legs=tables.bank.tenures.through_distribution)): those legs stand for
    # the tenure's account.
    for row in ledger["reversals"]:
        if row["reverses__hand__status"] != Hand.Status.VOIDED:
            continue
        for moved in (row.get("cause") or {}).get("through_distribution", []):
            for account_id, side, amount in moved["legs"]:
                signed = euros(amount if side == "C" else -amount)
                leftover[account_id] -= signed
                leftover[moved["account"]] += signed
    by_player, by_tenure, house, other = defaultdict(lambda: ZERO), defaultdict(lambda: ZERO), ZERO, ZERO
    for account_id, amount in effective.items():
        account = accounts[account_id]
        if account["kind"] == Account.Kind.PLAYER:
            by_player[account["player__code"]] += amount
        elif account["kind"] == Account.Kind.TENURE:
            by_tenure[account["tenure__id"]] += amount
        elif account["kind"] == Account.Kind.HOUSE:
            house += amount
        else:
            other += amount
    lines = []

    def line(what, reported, ledgered, **params):
        difference = reported - ledgered
        lines.append({"what": what, **params, "report": money(reported), "ledger": money(ledgered),
                      "difference": money(difference)})
        if difference:
            exceptions.append({"code": "reconciliation", "what": what, **params, "report": money(reported),
                               "ledger": money(ledgered), "difference": money(difference)})
        return difference

    players_net = decimal_of(summary["players_net"])
    line("players", players_net, sum(by_player.values(), ZERO))
    line("bank", decimal_of(summary["bank_net"]), sum(by_tenure.values(), ZERO))
    line("house", decimal_of(summary["commission"]), house)
    if other:
        line("other", ZERO, other)
    seen = set()
    for row in bets["players"]:
        ledgered = by_player.get(row["player"], ZERO)
        row["ledger"] = money(ledgered)
        seen.add(row["player"])
        if decimal_of(row["net"]) != ledgered:
            exceptions.append({"code": "player_differs", "player": row["player"], "report": row["net"],
                               "ledger": money(ledgered), "difference": money(decimal_of(row["net"]) - ledgered)})
    for code, amount in sorted(by_player.items()):
        if code not in seen and amount:
            exceptions.append({"code": "player_differs", "player": code, "report": "0.00", "ledger": money(amount),
                               "difference": money(-amount)})
    seen = set()
    for row in tenure_rows:
        ledgered = by_tenure.get(row["id"], ZERO)
        row["ledger"] = money(ledgered)
        seen.add(row["id"])
        if decimal_of(row["bank_net"]) != ledgered:
            exceptions.append({"code": "tenure_differs", "tenure": row["id"], "holder": row["holder"],
                               "report": row["bank_net"], "ledger": money(ledgered),
                               "difference": money(decimal_of(row["bank_net"]) - ledgered)})
    for tenure_id, amount in sorted(by_tenure.items()):
        if tenure_id not in seen and amount:
            exceptions.append({"code": "tenure_differs", "tenure": tenure_id, "holder": None, "report": "0.00",
                               "ledger": money(amount), "difference": money(-amount)})
    # The hands' own arithmetic: players + bank + house = 0 for every settled hand.
    balance = players_net + decimal_of(summary["bank_net"]) + decimal_of(summary["commission"])
    if balance:
        exceptions.append({"code": "settlements_unbalanced", "difference": money(balance)})
    unposted = summary["settled"] - summary["posted"]
    if unposted:
        exceptions.append({"code": "hands_not_posted", "count": unposted})
    for row in voids["rows"]:
        if row["posted"] and row["reversal"] is None:
            exceptions.append({"code": "void_not_reversed", "hand": row["number"]})
    left = {account_id: amount for account_id, amount in leftover.items() if amount}
    if left:
        exceptions.append({"code": "voids_not_cancelled", "amount": money(sum(left.values(), ZERO)),
                           "accounts": len(left)})
    for row in ledger["reversals"]:
        if row["reverses__hand__status"] != Hand.Status.VOIDED:
            exceptions.append({"code": "reversed_not_voided", "hand": row["reverses__hand__number"],
                               "transaction": row["id"]})
    return {"lines": lines, "differs": any(decimal_of(line["difference"]) for line in lines),
            "transactions": summary["posted"] + sum(1 for row in voids["rows"] if row["posted"]),
            "reversals": len(ledger["reversals"])}


def _hand_differences(hands, limit=50):
    """When the totals differ: the settled hands whose bets and ledger entries disagree
    (at most ``limit``), hand by hand. Only run on a difference: it probes every hand."""
    from django.db.models import OuterRef, Subquery

    bets_net = (HandBet.objects.filter(hand_id=OuterRef("pk")).order_by().values("hand_id")
                .annotate(total=Sum("net")).values("total"))
    ledger_players = (Entry.objects.filter(transaction_id=OuterRef("transaction_id"),
                                           account__kind=Account.Kind.PLAYER)
                      .order_by().values("transaction_id")
                      .annotate(total=Sum(signed_amount())).values("total"))
    rows = (hands.filter(status=Hand.Status.SETTLED)
            .annotate(bets_net=Coalesce(Subquery(bets_net, output_field=MONEY), Value(ZERO)),
                      ledger_net=Coalesce(Subquery(ledger_players, output_field=MONEY), Value(ZERO)))
            .exclude(bets_net=F("ledger_net")).order_by("number")
            .values("number", "bets_net", "ledger_net")[:limit])
    return [{"hand": row["number"], "report": money(row["bets_net"]), "ledger": money(row["ledger_net"]),
             "difference": money(row["bets_net"] - row["ledger_net"])} for row in rows]
