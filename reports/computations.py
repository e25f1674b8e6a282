"""The figures of the auditors' reports, aggregated in SQL, reconciled to the ledger.

``shift_report(shift)`` and ``bank_rotation_report(table, date_from, date_to)`` return
JSON-serialisable dicts: amounts are strings of ``Decimal`` euros with two places
(``"-12.50"``), counts are ints, dates ISO 8601 strings. Exceptions (audit findings and
reconciliation differences) are ``{"code": ..., **params}`` dicts, put into words at
display time (``reports.texts``) in the reader's language.

Every aggregate is one SQL statement grouped finely enough to be rolled up in Python
(players × seats × results × multipliers for the bets; tenures × statuses × chart
buckets for the hands), so the cost is a few scans of the shift's rows, never a Python
loop over its hands. The one exception is the SHA-256 chain of the shift's entries,
which can only be recomputed entry by entry (``tables.services.entry_hash``).

Sign conventions (``ledger.models``): a bet's ``net`` is from the player's side (positive:
the bank paid him); the bank's *win* is minus the players' nets, before the house's
commission; the bank's *net* is after it. Casino terms: *handle* is the sum of stakes,
*win* the bank's result, *hold %* the win over the handle.
[issue 5; rules.md "Settlement of one bet"]
"""

import json
from collections import defaultdict
from datetime import datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal

from django.db import connection
from django.db.models import (
    Count,
    DecimalField,
    F,
    Max,
    Min,
    Q,
    Sum,
    Value,
)
from django.db.models.expressions import Window
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Lag
from django.utils import timezone

from ledger.models import Account, BankTenure, Entry, SyndicateShare, Transaction
from ledger.money import cents, euros
from ledger.shares import split_by_shares
from tables.engine.cards import CARD_NAME, DECKS
from tables.engine.profiles import Profile
from tables.models import Hand, HandBet, HandEvent, Player
from tables.services import GENESIS, entry_hash

FORMAT = 1
ZERO = Decimal("0.00")
CENT = Decimal("0.01")
MONEY = DecimalField(max_digits=14, decimal_places=2)
#: At most this many points in the chart of the bank's running balance.
CHART_POINTS = 240
#: Card frequencies whose p-value is below this are an audit exception.
CHI_SQUARE_ALPHA = 0.001
#: Hands per hour are given for a shift of at least this many hours (six minutes).
MIN_HOURS = Decimal("0.1")
#: Lists longer than this (gaps, chain faults) are cut, with their full count kept.
LIST_LIMIT = 1000
WIN_RESULTS = ("win", "natural")


def money(amount) -> str:
    """``Decimal`` euros (or None for zero) as the reports write them: ``"-12.50"``."""
    return str((amount or ZERO).quantize(CENT))


def _dec(text) -> Decimal:
    return Decimal(text)


def _iso(moment):
    return moment.isoformat() if moment is not None else None


def _percent(part, whole) -> str | None:
    """``part / whole`` as a percentage with two places, or None when ``whole`` is 0."""
    if not whole:
        return None
    return str((Decimal(part) * 100 / Decimal(whole)).quantize(CENT, rounding=ROUND_HALF_UP))


def _nothing(_percent, _stage):
    return None


def _deck_of(rules) -> str:
    try:
        return Profile.from_rules(rules).deck
    except Exception:  # a hand's stored rules were valid when it was played
        return "spanish-40"


# ---------------------------------------------------------------------------------------
# Chi-square of the dealt cards


def card_test(dealt: dict, deck: str, initial: dict | None = None) -> dict:
    """The dealt cards against a uniform deck: Pearson's chi-square over the initial deal.

    The test counts the first cards of each hand, as many as its seats and one for the
    bank: its initial deal (la loca's card may be among them, in place of a seat's), all
    dealt before anyone decides anything, so that from a fair, shuffled deck each card
    of the deck is equally likely there. The cards drawn later
    are not a uniform sample even from a fair deck (a hand stops drawing when its points
    are high, so low cards and figures come out more often, and an exchanged 4 may come
    back), so they are counted and shown, never tested. [rules.md "Cards and points",
    "People and order of play"; issue 5 "Audit exceptions"]

    Args:
        dealt: ``{card name: times dealt}`` (``"7O": 12``): every card out of the stock.
        deck: ``"spanish-40"`` or ``"spanish-36"``.
        initial: ``{card name: times}`` of the initial deals (default: ``dealt``).
    Returns:
        dict: ``deck``, ``size`` (cards in the deck), ``dealt`` and ``counts`` (every
        card, in deck order), ``initial`` and ``initial_counts`` (the tested cards),
        ``expected`` (per card in the initial deal, a string with two places),
        ``outside`` (cards dealt that the deck does not hold), ``chi_square``, ``df``,
        ``p_value`` (floats; None when nothing was dealt) and ``small`` (True when fewer
        than 5 are expected per card: the test is then only indicative).
    Units: counts of cards; the statistic is dimensionless. ``scipy.stats.chisquare``
    with df = size − 1.
    """
    from scipy.stats import chisquare

    initial = dealt if initial is None else initial
    names = [CARD_NAME[code] for code in sorted(DECKS[deck])]
    known = set(names)
    observed = [int(initial.get(name, 0)) for name in names]
    tested = sum(observed)
    test = {"deck": deck, "size": len(names), "dealt": sum(int(n) for n in dealt.values()),
            "counts": {name: int(dealt.get(name, 0)) for name in names},
            "initial": tested, "initial_counts": dict(zip(names, observed, strict=True)),
            "outside": {name: int(n) for name, n in sorted(dealt.items()) if name not in known and n},
            "df": len(names) - 1, "chi_square": None, "p_value": None,
            "expected": money(Decimal(tested) / len(names)) if tested else "0.00",
            "small": tested < 5 * len(names)}
    if tested:
        statistic, p_value = chisquare(observed)
        test["chi_square"] = round(float(statistic), 4)
        test["p_value"] = float(p_value)
    return test


def _card_counts(where_sql, params):
    """``({card: times dealt}, {card: times in the initial deal})`` over the hands
    ``where_sql`` selects (alias ``h``), in one scan. A hand's ``cards`` are in the order
    they came out of the stock, so its initial deal is its first ``seats + 1`` cards
    (with la loca, its card may be among them in place of a seat's: still a dealt
    card of the initial deal)."""
    sql = (f"SELECT c.card, count(*), count(*) FILTER (WHERE c.n <= jsonb_array_length(h.seats) + 1) "
           f"FROM tables_hand h CROSS JOIN LATERAL jsonb_array_elements_text(h.cards) WITH ORDINALITY "
           f"AS c(card, n) WHERE {where_sql} GROUP BY c.card")
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    return {card: n for card, n, _first in rows}, {card: first for card, _n, first in rows}


def _card_tests(shift, decks):
    """One test per deck the shift's settled and voided hands used (``decks``:
    ``{deck: [rules values]}``); one scan when the shift used one deck."""
    tests = []
    where = "h.shift_id = %s AND h.status <> 'open'"
    for deck, rules_values in sorted(decks.items()):
        if len(decks) == 1:
            dealt, initial = _card_counts(where, [shift.pk])
        else:
            dealt, initial = defaultdict(int), defaultdict(int)
            for rules_value in rules_values:
                found, first = _card_counts(f"{where} AND h.rules = %s::jsonb", [shift.pk, json.dumps(rules_value)])
                for card, n in found.items():
                    dealt[card] += n
                for card, n in first.items():
                    initial[card] += n
        tests.append(card_test(dealt, deck, initial))
    return tests


# ---------------------------------------------------------------------------------------
# The shift report


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
        ``voids`` and ``undos`` (who, when, why), ``reconciliation`` (report against
        ledger), ``cards`` (chi-square per deck), ``chain`` (entries checked),
        ``chart`` (the bank's running balance) and ``exceptions``.
    Only settled hands count in the figures; voided hands are listed with their void,
    open hands are an exception. [issue 5 "Shift report"]
    """
    progress = progress or _nothing
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
    progress(55, "voids")
    voids = _voids(hands)
    progress(60, "cards")
    cards = _card_tests(shift, decks)
    progress(75, "chain")
    chain, undos = _chain(table, shift.pk, hands, count)
    progress(90, "checks")

    summary.update(bets["summary"])
    win = -_dec(bets["summary"]["players_net"])
    summary["win"] = money(win)
    summary["hold_percent"] = _percent(win, _dec(bets["summary"]["handle"]))
    opened = shift.opened_at
    ended = shift.closed_at or last_at or opened
    hours = Decimal((ended - opened).total_seconds()) / 3600 if ended and opened else Decimal(0)
    summary["hours"] = str(hours.quantize(CENT))
    summary["hands_per_hour"] = (str((Decimal(summary["settled"]) / hours).quantize(Decimal("0.1")))
                                 if hours >= MIN_HOURS else None)
    summary["first_hand_at"], summary["last_hand_at"] = _iso(first_at), _iso(last_at)

    reconciliation = _reconcile_shift(summary, bets, tenure_rows, ledger, voids, exceptions)
    if reconciliation["differs"]:
        reconciliation["hands"] = _hand_differences(hands)
    _audit(table, hands, count, lo, hi, summary, cards, chain, exceptions)
    for row in bets["players"]:
        del row["player_id"]
    progress(100, "done")
    return {
        "format": FORMAT,
        "kind": "shift",
        "table": {"id": table.pk, "name": table.name, "rules": table.rules},
        "shift": {"id": shift.pk, "dealer": shift.dealer.get_username(),
                  "opened_by": shift.opened_by.get_username(),
                  "closed_by": shift.closed_by.get_username() if shift.closed_by_id else None,
                  "opened_at": _iso(shift.opened_at), "closed_at": _iso(shift.closed_at),
                  "open": shift.closed_at is None},
        "summary": summary,
        "payouts": bets["payouts"],
        "results": bets["results"],
        "bet_kinds": bets["kinds"],
        "tenures": tenure_rows,
        "players": bets["players"],
        "voids": voids["rows"],
        "undos": undos,
        "reconciliation": reconciliation,
        "cards": cards,
        "chain": {"entries": chain["entries"], "first": chain["first"], "last": chain["last"]},
        "chart": chart,
        "exceptions": exceptions,
        "computed_at": timezone.now().isoformat(),
    }


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


def _account_sums(entries):
    """``{account id: credits − debits}`` (``Decimal`` euros) of ``entries``, one query."""
    rows = (entries.values("account_id")
            .annotate(credits=Coalesce(Sum("amount", filter=Q(side=Entry.Side.CREDIT)), Value(ZERO)),
                      debits=Coalesce(Sum("amount", filter=Q(side=Entry.Side.DEBIT)), Value(ZERO)))
            .order_by())
    return {row["account_id"]: row["credits"] - row["debits"] for row in rows}


def _ledger_figures(shift, hands):
    """The ledger's side of a shift: the entries of its hands' transactions and of
    every reversal of them, summed per account (three queries)."""
    posted = _account_sums(Entry.objects.filter(
        transaction_id__in=hands.filter(transaction__isnull=False).values("transaction_id")))
    voided_txns = list(hands.filter(status=Hand.Status.VOIDED, transaction__isnull=False)
                       .values_list("transaction_id", flat=True))
    voided = _account_sums(Entry.objects.filter(transaction_id__in=voided_txns)) if voided_txns else {}
    reversals = list(Transaction.objects.filter(reverses__isnull=False, reverses__hand__shift=shift)
                     .values("id", "reverses_id", "reverses__hand__number", "reverses__hand__status"))
    reversal_sums = {}
    voided_reversals = {}
    if reversals:
        by_status = defaultdict(list)
        for row in reversals:
            by_status[row["reverses__hand__status"]].append(row["id"])
        if by_status.get(Hand.Status.VOIDED):
            voided_reversals = _account_sums(Entry.objects.filter(transaction_id__in=by_status[Hand.Status.VOIDED]))
        others = [rid for status, ids in by_status.items() if status != Hand.Status.VOIDED for rid in ids]
        if others:
            reversal_sums = _account_sums(Entry.objects.filter(transaction_id__in=others))
    accounts = {row["id"]: row for row in Account.objects.filter(
        pk__in={*posted, *voided, *reversal_sums, *voided_reversals}).values("id", "kind", "player__code",
                                                                               "tenure_id")}
    return {"posted": posted, "voided": voided, "reversals": reversals, "reversal_sums": reversal_sums,
            "voided_reversals": voided_reversals, "accounts": accounts}


def _voids(hands):
    rows = list(hands.filter(status=Hand.Status.VOIDED).order_by("number")
                .values("number", "voided_at", "voided_by__username", "void_reason", "transaction_id",
                        "transaction__reversal__id"))
    return {"rows": [{"number": row["number"], "voided_at": _iso(row["voided_at"]),
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
    by_player, by_tenure, house, other = defaultdict(lambda: ZERO), defaultdict(lambda: ZERO), ZERO, ZERO
    for account_id, amount in effective.items():
        account = accounts[account_id]
        if account["kind"] == Account.Kind.PLAYER:
            by_player[account["player__code"]] += amount
        elif account["kind"] == Account.Kind.TENURE:
            by_tenure[account["tenure_id"]] += amount
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

    players_net = _dec(summary["players_net"])
    line("players", players_net, sum(by_player.values(), ZERO))
    line("bank", _dec(summary["bank_net"]), sum(by_tenure.values(), ZERO))
    line("house", _dec(summary["commission"]), house)
    if other:
        line("other", ZERO, other)
    seen = set()
    for row in bets["players"]:
        ledgered = by_player.get(row["player"], ZERO)
        row["ledger"] = money(ledgered)
        seen.add(row["player"])
        if _dec(row["net"]) != ledgered:
            exceptions.append({"code": "player_differs", "player": row["player"], "report": row["net"],
                               "ledger": money(ledgered), "difference": money(_dec(row["net"]) - ledgered)})
    for code, amount in sorted(by_player.items()):
        if code not in seen and amount:
            exceptions.append({"code": "player_differs", "player": code, "report": "0.00", "ledger": money(amount),
                               "difference": money(-amount)})
    seen = set()
    for row in tenure_rows:
        ledgered = by_tenure.get(row["id"], ZERO)
        row["ledger"] = money(ledgered)
        seen.add(row["id"])
        if _dec(row["bank_net"]) != ledgered:
            exceptions.append({"code": "tenure_differs", "tenure": row["id"], "holder": row["holder"],
                               "report": row["bank_net"], "ledger": money(ledgered),
                               "difference": money(_dec(row["bank_net"]) - ledgered)})
    for tenure_id, amount in sorted(by_tenure.items()):
        if tenure_id not in seen and amount:
            exceptions.append({"code": "tenure_differs", "tenure": tenure_id, "holder": None, "report": "0.00",
                               "ledger": money(amount), "difference": money(-amount)})
    # The hands' own arithmetic: players + bank + house = 0 for every settled hand.
    balance = players_net + _dec(summary["bank_net"]) + _dec(summary["commission"])
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
    return {"lines": lines, "differs": any(_dec(line["difference"]) for line in lines),
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
                      .annotate(total=Sum(_signed())).values("total"))
    rows = (hands.filter(status=Hand.Status.SETTLED)
            .annotate(bets_net=Coalesce(Subquery(bets_net, output_field=MONEY), Value(ZERO)),
                      ledger_net=Coalesce(Subquery(ledger_players, output_field=MONEY), Value(ZERO)))
            .exclude(bets_net=F("ledger_net")).order_by("number")
            .values("number", "bets_net", "ledger_net")[:limit])
    return [{"hand": row["number"], "report": money(row["bets_net"]), "ledger": money(row["ledger_net"]),
             "difference": money(row["bets_net"] - row["ledger_net"])} for row in rows]


def _signed():
    from django.db.models import Case, When

    return Case(When(side=Entry.Side.CREDIT, then=F("amount")), default=-F("amount"), output_field=MONEY)


def _chain(table, shift_id, hands, count):
    """Recompute the SHA-256 chain over the table's entries from the first entry of the
    shift's first hand to the last entry of its last hand, and collect the undos.

    Returns ({"entries", "first", "last", "faults"}, undos)."""
    result = {"entries": 0, "first": None, "last": None, "faults": []}
    if not count:
        return result, []
    # The first entry of the shift's first hand (by the hand's index); the table's latest
    # entry of a hand of the shift (reading the table's entries backwards: the shift's
    # are normally the latest, or close to them).
    first_hand = hands.order_by("number").values_list("pk", flat=True).first()
    first_id = HandEvent.objects.filter(hand_id=first_hand).aggregate(m=Min("id"))["m"]
    of_shift = HandEvent.objects.filter(table=table, hand__shift_id=shift_id)
    if first_id is None:
        first_id = of_shift.order_by("id").values_list("id", flat=True).first()
    last_id = of_shift.order_by("-id").values_list("id", flat=True).first()
    if first_id is None or last_id is None:
        return result, []
    previous = (HandEvent.objects.filter(table=table, id__lt=first_id).order_by("-id")
                .values_list("hash", flat=True).first()) or GENESIS
    rows = (HandEvent.objects.filter(table=table, id__gte=first_id, id__lte=last_id).order_by("id")
            .values_list("hand_id", "hand__number", "sequence", "kind", "event", "entered_by_id", "entered_at",
                         "previous_hash", "hash", "hand__shift_id"))
    faults = result["faults"]
    undo_rows, events = [], {}
    entries = 0
    last_hash = previous
    for hand_id, number, sequence, kind, event, by, at, stored_previous, stored, row_shift in rows.iterator(2000):
        entries += 1
        if stored_previous != last_hash:
            faults.append({"code": "chain_link", "hand": number, "sequence": sequence})
        digest = entry_hash(previous=stored_previous, table_id=table.pk, hand_number=number, sequence=sequence,
                            kind=kind, event=event, entered_by_id=by, entered_at=at)
        if digest != stored:
            faults.append({"code": "chain_changed", "hand": number, "sequence": sequence})
        last_hash = stored
        if row_shift == shift_id:
            if kind == "undo":
                undo_rows.append((hand_id, number, sequence, event, by, at))
            elif kind == "event":
                events[(hand_id, sequence)] = event
    if not HandEvent.objects.filter(table=table, id__gt=last_id).exists():
        table.refresh_from_db(fields=["last_event_hash"])
        if (table.last_event_hash or GENESIS) != last_hash:
            faults.append({"code": "chain_last"})
    result.update(entries=entries, first=first_id, last=last_id)
    users = _usernames({row[4] for row in undo_rows})
    undos = [{"hand": number, "sequence": sequence,
              "undone": events.get((hand_id, (event or {}).get("undo"))),
              "reason": (event or {}).get("reason", ""), "entered_by": users.get(by), "entered_at": _iso(at)}
             for hand_id, number, sequence, event, by, at in undo_rows]
    return result, undos


def _usernames(ids):
    from django.contrib.auth import get_user_model

    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return {}
    user = get_user_model()
    return dict(user.objects.filter(pk__in=ids).values_list("pk", user.USERNAME_FIELD))


def _audit(table, hands, count, lo, hi, summary, cards, chain, exceptions):
    """The audit exceptions: gaps in the hand numbers, a broken chain, open hands, cards
    unlikely under a uniform deck or outside it."""
    if count:
        start = max(1, lo - 1)
        present = Hand.objects.filter(table=table, number__gte=start, number__lte=hi).count()
        if present != hi - start + 1:
            missing = _missing_numbers(table, start, hi)
            exceptions.append({"code": "gaps", "count": len(missing), "numbers": missing[:LIST_LIMIT]})
    for fault in chain["faults"][:LIST_LIMIT]:
        exceptions.append(fault)
    if len(chain["faults"]) > LIST_LIMIT:
        exceptions.append({"code": "chain_more", "count": len(chain["faults"]) - LIST_LIMIT})
    if summary["open"]:
        numbers = list(hands.filter(status=Hand.Status.OPEN).order_by("number").values_list("number", flat=True))
        exceptions.append({"code": "open_hands", "numbers": numbers})
    for test in cards:
        if test["outside"]:
            exceptions.append({"code": "cards_outside_deck", "deck": test["deck"], "cards": test["outside"]})
        if test["p_value"] is not None and not test["small"] and test["p_value"] < CHI_SQUARE_ALPHA:
            exceptions.append({"code": "cards_not_uniform", "deck": test["deck"], "chi_square": test["chi_square"],
                               "df": test["df"], "p_value": test["p_value"], "alpha": CHI_SQUARE_ALPHA})


def _missing_numbers(table, start, end):
    """The hand numbers in [start, end] the table lacks (window query over the range)."""
    rows = (Hand.objects.filter(table=table, number__gte=start, number__lte=end)
            .annotate(before=Window(Lag("number"), order_by=F("number").asc()))
            .filter(Q(before__isnull=True) | Q(before__lt=F("number") - 1))
            .values_list("number", "before"))
    missing = []
    for number, before in rows:
        first = start if before is None else before + 1
        missing.extend(range(first, number))
        if len(missing) > LIST_LIMIT:
            break
    last = Hand.objects.filter(table=table, number__gte=start, number__lte=end).aggregate(m=Max("number"))["m"]
    if last is not None and last < end:
        missing.extend(range(last + 1, end + 1))
    return missing


# ---------------------------------------------------------------------------------------
# The bank-rotation report


def period_bounds(date_from, date_to):
    """The aware datetimes ``[start, end)`` of the calendar days ``date_from`` to
    ``date_to`` inclusive, in the casino's time zone (``TIME_ZONE``).

    Raises:
        ValueError: ``date_to`` before ``date_from``.
    """
    if date_to < date_from:
        raise ValueError("the period ends before it begins")
    zone = timezone.get_default_timezone()
    start = timezone.make_aware(datetime.combine(date_from, time.min), zone)
    end = timezone.make_aware(datetime.combine(date_to + timedelta(days=1), time.min), zone)
    return start, end


#: The ledger's idempotency keys of a tenure's own postings (``ledger.services``).
TENURE_KEYS = {"capital": "tenure:{}:capital", "price": "tenure:{}:price", "sale": "tenure:{}:sale",
               "distribution": "tenure:{}:close"}


def bank_rotation_report(table, date_from, date_to, progress=None) -> dict:
    """The bank's rotation at a table over a period: each tenure in order, with its
    holder, syndicate, how it began and ended, hands held, capital, net takings,
    commission and what each share received; the chain of holders.

    Args:
        table: a ``tables.models.Table``; date_from, date_to: ``datetime.date``, both
            days included, in the casino's time zone.
        progress: optional ``callable(percent, stage)``.
    Returns:
        dict (JSON-serialisable, amounts strings of euros): ``table``, ``period``,
        ``summary``, ``tenures`` (tenures open at any time in the period, each in full,
        oldest first), ``chain`` (holders in order), ``chart`` (net takings, running,
        tenure by tenure), ``exceptions``.
    Raises:
        ValueError: ``date_to`` before ``date_from``.
    Each tenure's figures come from its settled hands and are reconciled with its
    account's entries: capital in, sale price, hand postings and reversals, the
    distribution to its syndicate, and its balance. [issue 5 "Bank-rotation report";
    issue 3 "Bank tenure"; ledger.services for the postings]
    """
    progress = progress or _nothing
    start, end = period_bounds(date_from, date_to)
    exceptions = []
    progress(5, "tenures")
    selected = (BankTenure.objects.filter(table=table, opened_at__lt=end)
                .filter(Q(closed_at__isnull=True) | Q(closed_at__gte=start)))
    tenures = list(selected.order_by("opened_at", "id")
                   .values("id", "holder__code", "opened_at", "closed_at", "began", "ended", "capital", "price",
                           "seller__code", "previous_id", "account__id", "account__balance"))
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
    sums = _account_sums(Entry.objects.filter(
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
    reversal_sums = defaultdict(lambda: ZERO)
    reversals = (Entry.objects.filter(account_id__in=list(accounts),
                                      transaction__in=Transaction.objects.filter(reverses__isnull=False,
                                                                                 tenure__in=selected))
                 .values("account_id").annotate(total=Sum(_signed())).order_by())
    for row in reversals:
        reversal_sums[accounts[row["account_id"]]] += row["total"]
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
        ledger_hands = hand_ledger[tid] + reversal_sums[tid]
        row = {"id": tid, "holder": tenure["holder__code"], "opened_at": _iso(tenure["opened_at"]),
               "closed_at": _iso(tenure["closed_at"]), "began": tenure["began"], "ended": tenure["ended"] or None,
               "price": money(tenure["price"]) if tenure["price"] is not None else None,
               "seller": tenure["seller__code"], "previous": tenure["previous_id"],
               "hands": figures["hands"], "voided": figures["voided"], "open_hands": figures["open"],
               "first_hand": figures["first_hand"], "last_hand": figures["last_hand"],
               "capital": money(tenure["capital"]), "win": money(figures["bank_net"] + figures["commission"]),
               "commission": money(figures["commission"]), "net_takings": money(figures["bank_net"]),
               "ledger_takings": money(ledger_hands), "sale_price_in": money(moved.get("sale", ZERO)),
               "distributed": money(-distribution) if distribution is not None else None,
               "balance": money(balance), "shares": share_rows, "open": tenure["closed_at"] is None}
        if figures["bank_net"] != ledger_hands:
            exceptions.append({"code": "tenure_differs", "tenure": tid, "holder": tenure["holder__code"],
                               "report": money(figures["bank_net"]), "ledger": money(ledger_hands),
                               "difference": money(figures["bank_net"] - ledger_hands)})
        # capital + price + hands + reversals - distribution = balance (what the account holds)
        expected = (moved.get("capital", ZERO) + moved.get("sale", ZERO) + moved.get("price", ZERO)
                    + ledger_hands + (distribution or ZERO))
        if expected != balance:
            exceptions.append({"code": "tenure_balance", "tenure": tid, "holder": tenure["holder__code"],
                               "movements": money(expected), "balance": money(balance)})
        if moved.get("capital", ZERO) != tenure["capital"]:
            exceptions.append({"code": "tenure_capital", "tenure": tid, "capital": money(tenure["capital"]),
                               "ledger": money(moved.get("capital", ZERO))})
        if tenure["closed_at"] is not None and balance:
            exceptions.append({"code": "closed_tenure_holds", "tenure": tid, "balance": money(balance)})
        if figures["open"]:
            exceptions.append({"code": "tenure_open_hands", "tenure": tid, "count": figures["open"]})
        if previous_row is not None and tenure["began"] != BankTenure.Began.DRAW:
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
    progress(100, "done")
    return {
        "format": FORMAT,
        "kind": "banks",
        "table": {"id": table.pk, "name": table.name, "rules": table.rules},
        "period": {"from": date_from.isoformat(), "to": date_to.isoformat(), "start": _iso(start),
                   "end": _iso(end)},
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
