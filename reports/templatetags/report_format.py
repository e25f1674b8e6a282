"""Filters for the stored reports' pages: their JSON keeps instants as ISO 8601 strings,
days as ``2026-11-01``, p-values as floats and rules as JSON; these show them the way the
rest of the back-office does (``casino.formatting``, ``tables.rules_words``)."""

from datetime import datetime

from django import template

from casino import formatting
from tables.rules_words import rules_words

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
def day(value):
    """A stored day (``"2026-11-01"``) in the reader's language (``1 de noviembre de 2026``)."""
    return formatting.day(value)


@register.filter
def rules_text(value):
    """A table's ``rules`` (``{"profile": "reglamento"}``) in words: the profile's name
    and its options, in the reader's language."""
    return rules_words(value)


@register.filter
def p_value(value):
    """A p-value for a reader: ``0,97``, ``0,012``, ``< 0,001`` (``—`` for none)."""
    return formatting.p_value(value)


@register.filter
def significant(value, digits=3):
    """A float with a few significant digits in the reader's format (``0,316``,
    ``5,31e-240``); ``—`` for none (``casino.formatting.significant``)."""
    return formatting.significant(value, digits)


@register.filter
def probability(value):
    """A p-value or q-value in the reader's locale, three significant digits (``0,0123``)."""
    return formatting.significant(value, 3)


@register.filter
def seat_label(value):
    """Who a card test is about, in words: the bank, the seats, la loca, seat 2."""
    from reports.texts import place_words

    return place_words(value)


@register.filter
def whole(value):
    """A count in the reader's format (``1.234.567``; ``casino.formatting.count``)."""
    return formatting.count(value)


@register.filter
def decimal(value, places=1):
    """A number with ``places`` decimals in the reader's format (``12,3``;
    ``casino.formatting.number``)."""
    return formatting.number(value, places)
