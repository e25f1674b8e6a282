"""Where an alert's or a review line's hands are: the hand history (``/tables/hands/<table>/``)
filtered to exactly those hands, and the hands an alert's evidence names, read without
failing on old evidence. Read only.

The hand history's filters are ``tables.views.hands.HandFilterForm``'s: a grouped large-bet
alert is its shift, its player, the table's large bet as the least stake and its first and
last hand numbers (settled hands); a report's exceptions are ``report`` and ``exception``; a
review line is its selection (table, days, shift, tenure, dealer) and its group or pair.
"""

from urllib.parse import urlencode

from django.urls import reverse

from tables.models import Hand

#: A review line's group or pair as the hand history's filters: ``(kind, code)`` → a
#: function of the line's figures giving the filters (None: its hands cannot be filtered).
_PAIR_FILTERS = {"dealer×bank": ("dealer", "bank"), "dealer×player": ("dealer", "player"),
                 "bank×player": ("bank", "player")}
#: What the hand history shows of an imported hand's dealer (no shift): not a username.
NO_DEALER = "—"


def hands_url(table_id, filters) -> str | None:
    """The hand history of table ``table_id`` with ``filters`` (a dict; None values left
    out), or None without a table."""
    if not table_id:
        return None
    query = urlencode({key: value for key, value in filters.items() if value not in (None, "")})
    url = reverse("tables:hand_list", args=[table_id])
    return f"{url}?{query}" if query else url


def review_line_filters(kind, code, line) -> dict | None:
    """The filters of a review line's group or pair (``reports.detection.review``'s test:
    ``kind``, ``code``, its figures), added to its selection's; None when no filter selects
    exactly its hands (card tests, large stakes lost, an imported hand's missing dealer).

    Returns:
        dict of hand-history filters (``dealer``, ``bank``, ``player``, ``tenure``), {} for
        the whole selection.
    """
    kind = str(kind)
    if kind == "expected":
        if code == "all":
            return {}
        if code == "tenure":
            return {"tenure": line.get("group")}
        if code == "dealer":
            group = line.get("group")
            return None if not group or group == NO_DEALER else {"dealer": group}
        return None
    if kind == "pair" and code in _PAIR_FILTERS:
        first, second = _PAIR_FILTERS[code]
        a, b = line.get("a"), line.get("b")
        if not a or not b or NO_DEALER in (a, b):
            return None
        return {first: a, second: b}
    return None


def selection_filters(data) -> dict:
    """The review form's selection (``ReviewForm.cleaned_data``) as hand-history filters:
    its days, shift, tenure and dealer, settled hands only (the review's)."""
    return {"status": Hand.Status.SETTLED, "date_from": data["date_from"].isoformat(),
            "date_to": data["date_to"].isoformat(), "shift": data.get("shift"), "tenure": data.get("tenure"),
            "dealer": data["dealer"].get_username() if data.get("dealer") else None}


def review_line_url(data, test) -> str | None:
    """The hand history filtered to a review line's hands (``selection_filters`` of the
    page's ``data`` and ``review_line_filters`` of the line ``test``), or None."""
    line = review_line_filters(test.get("kind"), test.get("code"), test)
    if line is None:
        return None
    filters = selection_filters(data)
    if filters.get("dealer") and line.get("dealer") and filters["dealer"] != line["dealer"]:
        return None
    return hands_url(data["table"].pk, {**filters, **line})


def _report_selection(report) -> dict | None:
    """A stored report's hands as filters: its shift, or its period's days."""
    if report is None:
        return None
    if report.shift_id:
        return {"shift": report.shift_id}
    if report.date_from and report.date_to:
        return {"date_from": report.date_from.isoformat(), "date_to": report.date_to.isoformat()}
    return None


def evidence_hands_url(alert) -> str | None:
    """The hand history filtered to exactly the hands of an alert's evidence, or None
    (no table, no hands to filter, or evidence of a shape no filter reproduces).

    - a grouped large-bet alert (``code="stakes"``): its shift, player, the table's large
      bet as the least stake, its first and last hand numbers, settled hands;
    - one large bet (``code="stake"``, raised before the grouping): its hand's number;
    - a report's exceptions (grouped by code): ``report`` and ``exception``, when they
      name hands;
    - an alert of the review (expected, pair): its report's hands and its group or pair.
    """
    evidence = alert.evidence if isinstance(alert.evidence, dict) else {}
    kind = str(alert.kind)
    if kind == "large_bet" and alert.code == "stakes":
        return hands_url(alert.table_id, {
            "status": Hand.Status.SETTLED, "shift": evidence.get("shift"), "player": evidence.get("player"),
            "min_stake": evidence.get("threshold"), "number_from": evidence.get("number_from"),
            "number_to": evidence.get("number_to")})
    if kind == "large_bet":
        number = evidence.get("number")
        if not isinstance(number, int):
            return None
        return hands_url(alert.table_id, {"number_from": number, "number_to": number})
    if kind == "exception":
        from tables.views.hands import exception_hand_numbers

        items = evidence.get("items") if "items" in evidence else [evidence]
        if not alert.report_id or not exception_hand_numbers(items):
            return None
        return hands_url(alert.table_id, {"report": alert.report_id, "exception": alert.code})
    line = review_line_filters(kind, alert.code, evidence)
    selection = _report_selection(alert.report) if alert.report_id else None
    if line is None or selection is None:
        return None
    return hands_url(alert.table_id, {"status": Hand.Status.SETTLED, **selection, **line})


def evidence_hand_links(alert, limit):
    """The hands an alert's evidence names, as ``[(table id, number)]`` (at most ``limit``),
    and how many there are in all.

    ``hand_ids`` are hands' ids. ``hand`` is a hand's id in a large-bet alert (beside its
    ``number``, which is used when the alert has a table) but a hand's *number* in a report's exception (``hand_replay``,
    ``chain_link``…), at the alert's table; a grouped exception's ``items`` name numbers
    too. A value that is no int, or a hand that does not exist, is left out: old or odd
    evidence never breaks the page.
    """
    evidence = alert.evidence if isinstance(alert.evidence, dict) else {}
    ids = [pk for pk in (evidence.get("hand_ids") or []) if isinstance(pk, int) and not isinstance(pk, bool)]
    numbers = []
    if str(alert.kind) == "exception":
        from tables.views.hands import exception_hand_numbers

        items = evidence.get("items") if "items" in evidence else [evidence]
        numbers = sorted(exception_hand_numbers(items if isinstance(items, list) else []))
    elif isinstance(evidence.get("number"), int) and alert.table_id:
        numbers = [evidence["number"]]  # one large bet: its hand's number at the alert's table
    elif isinstance(evidence.get("hand"), int) and not isinstance(evidence.get("hand"), bool):
        ids.append(evidence["hand"])
    total = evidence.get("hand_total")
    if not isinstance(total, int):
        total = len(ids) + len(numbers)
    links = []
    if ids:
        shown = ids[:limit]
        found = {pk: (table, number) for pk, table, number
                 in Hand.objects.filter(pk__in=shown).values_list("pk", "table_id", "number")}
        links = [found[pk] for pk in shown if pk in found]
    if numbers and alert.table_id and len(links) < limit:
        existing = set(Hand.objects.filter(table_id=alert.table_id, number__in=numbers[:limit])
                       .values_list("number", flat=True))
        links += [(alert.table_id, n) for n in numbers[:limit] if n in existing][:limit - len(links)]
    if not ids and not numbers:
        total = 0
    return links, max(total, len(links))
