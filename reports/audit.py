"""The audit of a shift: the chi-square of the dealt cards, the keyed chain of its
entries (with its undos), gaps in the hand numbers, hands left open.

Findings are exceptions as ``reports.figures`` describes them.
"""

import json
from collections import defaultdict
from datetime import UTC
from decimal import Decimal
from itertools import islice

from django.db import connection
from django.db.models import F, Max, Min, Q, TextField
from django.db.models.expressions import Window
from django.db.models.functions import Cast, Lag

from game.cards import CARD_NAME, DECKS
from reports.figures import iso, money
from tables.chain import GENESIS, AtUtc, EntryChecker
from tables.models import Hand, HandEvent

#: Card frequencies whose p-value is below this are an audit exception.
CHI_SQUARE_ALPHA = 0.001
#: The audit exception of each of ``tables.chain.entry_fault``'s answers.
CHAIN_CODES = {"changed": "chain_changed", "unkeyed": "chain_unkeyed", "unknown_key": "chain_unknown_key"}
#: Lists longer than this (gaps, chain faults) are cut, with their full count kept.
LIST_LIMIT = 1000
#: Entries read per round trip of the chain check's server-side cursor.
CHAIN_CHUNK = 5000


def card_test(dealt: dict, deck: str, initial: dict | None = None) -> dict:
    """The dealt cards against a uniform deck: Pearson's chi-square over the initial deal.

    The test counts the first cards of each hand, as many as its seats and one for the
    bank: its initial deal (la loca's card may be among them, in place of a seat's), all
    dealt before anyone decides anything, so that from a fair, shuffled deck each card
    of the deck is equally likely there. The cards drawn later
    are not a uniform sample even from a fair deck (a hand stops drawing when its points
    are high, so low cards and figures come out more often, and an exchanged 4 may come
    back), so they are counted and shown, never tested. [rules.md "Cards and points",
    "People and order of play"]

    Args:
        dealt: ``{card name: times dealt}`` (``"7O": 12``): every card out of the stock.
        deck: ``"spanish-40"`` or ``"spanish-36"``.
        initial: ``{card name: times}`` of the initial deals (default: ``dealt``).
    Returns:
        dict: ``deck``, ``size`` (cards in the deck), ``dealt`` and ``counts`` (every
        card), ``initial`` and ``initial_counts`` (the tested cards), ``rows``
        (``[card, dealt, in the initial deals]`` in the deck's order: a list, since
        jsonb keeps an object's keys in its own order, not the deck's),
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
            "rows": [[name, int(dealt.get(name, 0)), first] for name, first in zip(names, observed, strict=True)],
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


def card_tests(shift, decks):
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


def chain_check(table, shift_id, hands, count):
    """Recompute the keyed chain (``tables.chain``) over the table's entries from the first entry of the
    shift's first hand to the last entry of its last hand, and collect the undos.

    Returns ({"entries", "first", "last", "faults"}, undos)."""
    result = {"entries": 0, "first": None, "last": None, "head": None, "key_id": None, "faults": []}
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
    # Tuples through a server-side cursor, the event as the database's text: the checker
    # makes its canonical JSON once per distinct event (``tables.chain.EntryChecker``).
    rows = (HandEvent.objects.filter(table=table, id__gte=first_id, id__lte=last_id).order_by("id")
            .values_list("hand__number", "sequence", "kind", Cast("event", TextField()), "entered_by_id",
                         AtUtc("entered_at"), "previous_hash", "hash", "id", "key_id", "hand_id", "hand__shift_id"))
    checker = EntryChecker()
    faults = result["faults"]
    undo_rows = []
    entries = 0
    last_hash, last_key = previous, None
    stream = rows.iterator(chunk_size=CHAIN_CHUNK)
    while batch := list(islice(stream, CHAIN_CHUNK)):
        entries += len(batch)
        found, last_hash = checker.check_rows(table_id=table.pk, rows=batch, previous=last_hash)
        faults += [{"code": "chain_link" if what == "link" else CHAIN_CODES[what], "hand": row[0],
                    "sequence": row[1]} for row, what in found]
        last_key = batch[-1][9]
        undo_rows += [(hand_id, number, sequence, json.loads(text), by, at.replace(tzinfo=UTC))
                      for number, sequence, kind, text, by, at, _p, _h, _pk, _key, hand_id, row_shift in batch
                      if kind == "undo" and row_shift == shift_id]
    if not HandEvent.objects.filter(table=table, id__gt=last_id).exists():
        table.refresh_from_db(fields=["last_event_hash"])
        if (table.last_event_hash or GENESIS) != last_hash:
            faults.append({"code": "chain_last"})
    result.update(entries=entries, first=first_id, last=last_id, head=last_hash, key_id=last_key)
    # The events the undos took back, read afterwards (kept during the scan, they would
    # be every event of the shift).
    events = {}
    if undo_rows:
        for hand_id, sequence, event in (HandEvent.objects.filter(hand_id__in={row[0] for row in undo_rows},
                                                                  kind="event")
                                         .values_list("hand_id", "sequence", "event").iterator(chunk_size=CHAIN_CHUNK)):
            events[(hand_id, sequence)] = event
    users = _usernames({row[4] for row in undo_rows})
    undos = [{"hand": number, "sequence": sequence,
              "undone": events.get((hand_id, (event or {}).get("undo"))),
              "reason": (event or {}).get("reason", ""), "entered_by": users.get(by), "entered_at": iso(at)}
             for hand_id, number, sequence, event, by, at in undo_rows]
    return result, undos


def seal_faults(table) -> list[dict]:
    """The chain heads sealed into the table's stored shift reports, against the chain now.

    Each stored shift report seals the hash of its shift's last entry (``result["seal"]``;
    the version ``at_close`` at the shift's close). An entry at or before a sealed head
    rewritten later, even by someone holding the chain's key who recomputed every hash
    after it, changes that head's hash: the stored report no longer matches.
    Returns:
        ``{"code": "seal_broken", "shift", "version", "at_close", "entry", "sealed",
        "now"}`` per stored version whose sealed head differs (``now`` None: the entry is
        gone).
    """
    from reports.models import Report, ReportKind

    seals = [(shift_id, version, at_close, seal) for shift_id, version, at_close, seal in
             Report.objects.filter(table=table, kind=ReportKind.SHIFT).order_by("shift_id", "version")
             .values_list("shift_id", "version", "at_close", "result__seal")
             if isinstance(seal, dict) and seal.get("entry")]
    now = dict(HandEvent.objects.filter(table=table, pk__in={seal["entry"] for *_rest, seal in seals})
               .values_list("pk", "hash"))
    return [{"code": "seal_broken", "shift": shift_id, "version": version, "at_close": at_close,
             "entry": seal["entry"], "sealed": seal["hash"], "now": now.get(seal["entry"])}
            for shift_id, version, at_close, seal in seals if now.get(seal["entry"]) != seal["hash"]]


def _usernames(ids):
    from django.contrib.auth import get_user_model

    ids = {pk for pk in ids if pk is not None}
    if not ids:
        return {}
    user = get_user_model()
    return dict(user.objects.filter(pk__in=ids).values_list("pk", user.USERNAME_FIELD))


def audit(table, hands, count, lo, hi, summary, cards, chain, exceptions):
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


def box_checks(shift, exceptions):
    """The session's boxes as counted at its close (``boxes.BoxCount``): each box's count,
    what the records say it holds and the variance, with its explanation if any. A
    variance no supervisor has explained is an exception (``box_variance``); an explained
    one is listed in the section only. A count a recount superseded is listed (``latest``
    false, the recount's ``reason`` on the recount's row) and is no exception: the latest
    count is the one that counts.

    Returns:
        dict: ``buy_ins`` (the session's table buy-ins), ``commission`` (its hands'
        cagnotte), ``tips`` (the tips recorded at the console), ``counts`` (one row per
        count: box, counted, expected, variance, counters, when, note, noted_by, latest,
        reason) and ``not_counted`` (boxes with no count yet, once the session is closed).
        Amounts strings of euros with two places.
    """
    from boxes.models import BoxCount
    from boxes.services import session_buy_ins, session_commission, session_tips

    counts = list(BoxCount.objects.filter(shift=shift).select_related("note", "superseded_by").order_by("box", "id"))
    users = _usernames({c.first_counter_id for c in counts} | {c.second_counter_id for c in counts}
                       | {c.note.explained_by_id for c in counts if hasattr(c, "note")})
    rows = []
    for count in counts:
        note = getattr(count, "note", None)
        row = {"box": count.box, "counted": money(count.total),
               "expected": None if count.expected is None else money(count.expected),
               "variance": None if count.variance is None else money(count.variance),
               "counters": [users.get(count.first_counter_id), users.get(count.second_counter_id)],
               "counted_at": iso(count.counted_at), "note": note.text if note else None,
               "noted_by": users.get(note.explained_by_id) if note else None,
               "noted_at": iso(note.explained_at) if note else None,
               "latest": count.is_latest, "reason": count.reason or None}
        rows.append(row)
        if count.variance and note is None and count.is_latest:
            exceptions.append({"code": "box_variance", "box": count.box, "counted": row["counted"],
                               "expected": row["expected"], "variance": row["variance"]})
    counted = {count.box for count in counts}
    return {"buy_ins": money(session_buy_ins(shift)), "commission": money(session_commission(shift)),
            "tips": money(session_tips(shift)), "counts": rows,
            "not_counted": [] if shift.closed_at is None else [box for box in BoxCount.Box.values
                                                                 if box not in counted]}


def drawer_exceptions(start, end) -> list[dict]:
    """The cashiers' drawers closed in ``[start, end)`` (aware datetimes) with a variance
    beyond the tolerance stored at their close (``CAGE_DRAWER_TOLERANCE`` then), oldest
    first: ``{"code": "drawer_variance", "drawer", "cashier", "supervisor", "closed_at",
    "expected", "counted", "variance", "tolerance"}`` (amounts strings of euros).
    A variance beyond the set tolerance is an audit exception.
    """
    from cage.models import Drawer

    rows = (Drawer.objects.filter(closed_at__gte=start, closed_at__lt=end)
            .filter(Q(variance__gt=F("tolerance")) | Q(variance__lt=-F("tolerance")))
            .order_by("closed_at", "id")
            .values_list("pk", "cashier__username", "supervisor__username", "closed_at", "expected", "counted",
                         "variance", "tolerance"))
    return [{"code": "drawer_variance", "drawer": pk, "cashier": cashier, "supervisor": supervisor,
             "closed_at": iso(closed_at), "expected": money(expected), "counted": money(counted),
             "variance": money(variance), "tolerance": money(tolerance)}
            for pk, cashier, supervisor, closed_at, expected, counted, variance, tolerance in rows[:LIST_LIMIT]]
