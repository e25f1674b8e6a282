"""The game's words for what a hand's entries say, in the reader's language: an event
(``{"seat": "luis", "do": "card", "card": "1C"}``) is stored as data and put into words
only when shown (``luis · carta · 1C``), never stored as English text.
"""

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino import formatting
from game.cards import CARD_NAME, parse_card
from game.hand import parse_amount
from ledger.money import euros

#: What each ``do`` is called on a page.
ACTIONS = {
    "deal": gettext_lazy("deal"), "bet": gettext_lazy("bet"), "card": gettext_lazy("card"),
    "reveal": gettext_lazy("reveal"), "stand": gettext_lazy("stand"), "split": gettext_lazy("split"),
    "exchange": gettext_lazy("exchange of a four"), "fusilar": gettext_lazy("fusilar"),
    "muerto": gettext_lazy("muerto"), "shuffle": gettext_lazy("shuffle"), "identify": gettext_lazy("identify"),
}


def card_words(value):
    """A card as written on the felt (``1C``), ``?`` for a card not yet named."""
    if value is None:
        return "?"
    code = parse_card(value)
    return CARD_NAME[code] if code is not None else str(value)


def amount_words(value):
    """A stake as the reader's locale writes it."""
    amount = parse_amount(value)
    return formatting.money(euros(amount)) if amount is not None else str(value)


def seat_words(seat):
    """A seat: a player's code, or ``la banca``/``la loca`` in words."""
    return {"bank": _("bank"), "loca": _("la loca"), None: ""}.get(seat, seat)


def describe(event):
    """``(seat, action, detail)`` of an engine event, in words."""
    do = event.get("do")
    details = []
    if "card" in event:
        details.append(card_words(event["card"]) if event["card"] is not None else _("face down, unknown"))
    if event.get("down"):
        details.append(_("face down"))
    if "amount" in event:
        details.append(amount_words(event["amount"]))
    if event.get("player"):
        details.append(_("by %(player)s") % {"player": event["player"]})
    if "hand" in event:
        details.append(_("hand %(number)s") % {"number": event["hand"]})
    return seat_words(event.get("seat")), str(ACTIONS.get(do, do)), " · ".join(details)


def event_words(event) -> str:
    """An event in one line for a list: ``luis · carta · 1C``; ``—`` for none."""
    if not event:
        return "—"
    return " · ".join(part for part in describe(event) if part)
