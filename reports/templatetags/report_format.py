"""Filters for the stored reports' pages: their JSON keeps instants as ISO 8601 strings
and rules as JSON; these show them the way the rest of the back-office does."""

import json
from datetime import datetime

from django import template

register = template.Library()


@register.filter
def moment(value):
    """An ISO 8601 instant of a stored report as an aware datetime, which the template
    shows in the casino's time zone and the reader's language (text that is not an
    instant is returned as it is)."""
    if not value:
        return value
    try:
        return datetime.fromisoformat(value)
    except (TypeError, ValueError):
        return value


@register.filter
def rules_text(value):
    """A table's ``rules`` as written in a hand record: ``reglamento`` or its JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


@register.filter
def significant(value, digits=3):
    """A float with a few significant digits (a p-value: ``0.316``, ``5.31e-240``)."""
    if value is None or value == "":
        return "—"
    try:
        return f"{float(value):.{int(digits)}g}"
    except (TypeError, ValueError):
        return value


@register.filter
def probability(value):
    """A p-value or q-value in the reader's locale, three significant digits (``0,0123``)."""
    from reports.texts import probability as text

    return text(value)


@register.filter
def seat_label(value):
    """Who a card test is about, in words: the bank, the seats, la loca, seat 2."""
    from reports.texts import _who

    return _who(value)
