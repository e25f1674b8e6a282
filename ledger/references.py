"""What caused a ledger transaction, stored as data and put into words when shown.

A transaction's ``cause`` (``Transaction.cause``, JSON) names its kind and the ids it
refers to; the words are drawn in the reader's language at display time
(``reference_text``), never stored. The kinds and their arguments:

=====================  ==========================================================
``slip``               ``number`` (the cashier slip's number); a bank deposit's also
                       ``tenure`` (the bank it went into)
``hand``               ``table`` (name), ``table_id``, ``number`` (the hand's)
``bank_capital``       ``tenure``, ``table`` (name)
``bank_price``         ``tenure`` (the price a buyer paid the seller at a takeover)
``bank_sale``          ``tenure``, ``buyer`` (player code)
``bank_distribution``  ``tenure``, ``table`` (name)
``reversal``           ``of`` (the transaction reversed), ``original`` (its cause),
                       ``void`` (``{"table", "number"}`` when a hand's void made it)
``opening``            ``player`` (code: his opening chips)
``transfer``           ``giver``, ``receiver`` (player codes: a chip transfer)
``table_buy_in``       ``table`` (name), ``number`` (the table's buy-in)
``tips``               ``shift`` (the session whose tips box was counted)
``tronc``              ``counts`` (how many tips counts the distribution pays out)
``bank_withdrawal``    ``number``, ``tenure``, ``table`` (name)
``bank_rebuild``       ``number``, ``tenure``, ``table`` (name)
``drawer_float``       ``drawer`` (the drawer whose float was lent at its opening)
``drawer_close``       ``drawer`` (its float back and its variance at the close)
=====================  ==========================================================

The ``reference`` column keeps its text (the API's and the idempotency's plain key,
``"slip 000021"``); pages read ``cause``. ``parse_reference`` turns the text the
services used to write into a cause (a reversal of a posting written before causes
were stored reads its original's so). The channel a posting came from (``source``: ``console``, ``cashier``…)
is put into words by ``source_text``.
"""

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

SOURCES = {
    "console": gettext_lazy("table console"),
    "cashier": gettext_lazy("cashier"),
    "import": gettext_lazy("import"),
    "api": gettext_lazy("API"),
    "reversal": gettext_lazy("reversal"),
    "pit": gettext_lazy("pit"),
    "demo": gettext_lazy("demo"),
}


def source_text(source: str) -> str:
    """A posting's channel in words: ``console`` → ``consola de mesa``; ``system:import`` →
    ``sistema (importación)``; an unknown channel as written."""
    if not source:
        return ""
    if source.startswith("system"):
        _system, _colon, rest = source.partition(":")
        return _("system (%(channel)s)") % {"channel": SOURCES.get(rest, rest)} if rest else _("system")
    return str(SOURCES.get(source, source))


def cause_text(cause: dict | None) -> str | None:
    """A cause in words in the active language, or None when it is empty or unknown."""
    if not cause:
        return None
    kind = cause.get("kind")
    if kind == "slip" and cause.get("tenure"):
        return _("bank deposit slip %(number)s into tenure #%(tenure)s") % {
            "number": f"{int(cause['number']):06d}", "tenure": cause["tenure"]}
    if kind == "slip":
        return _("slip %(number)s") % {"number": f"{int(cause['number']):06d}"}
    if kind == "hand":
        return _("hand #%(number)s at %(table)s") % cause
    if kind == "bank_capital":
        return _("bank capital, tenure #%(tenure)s at %(table)s") % cause
    if kind == "bank_price":
        return _("bank sale price, tenure #%(tenure)s") % cause
    if kind == "bank_sale":
        return _("bank sale, tenure #%(tenure)s to %(buyer)s") % cause
    if kind == "bank_distribution":
        return _("bank distribution, tenure #%(tenure)s at %(table)s") % cause
    if kind == "reversal":
        original = cause_text(cause.get("original")) or f"#{cause['of']}"
        if cause.get("void"):
            return _("void of hand #%(number)s at %(table)s: reversal of #%(of)s (%(original)s)") % {
                **cause["void"], "of": cause["of"], "original": original}
        return _("reversal of #%(of)s: %(original)s") % {"of": cause["of"], "original": original}
    if kind == "opening":
        return _("opening chips of %(player)s") % cause
    if kind == "transfer":
        return _("chip transfer from %(giver)s to %(receiver)s") % cause
    if kind == "table_buy_in":
        return _("table buy-in #%(number)s at %(table)s") % cause
    if kind == "tips":
        return _("tips of session #%(shift)s") % cause
    if kind == "tip":
        return _("tip #%(number)s of %(player)s at %(table)s, session #%(shift)s") % cause
    if kind == "box_count":
        words = {"drop": _("drop box"), "cagnotte": _("cagnotte box"), "tips": _("tips box")}
        text = (_("%(box)s recounted at %(table)s, session #%(shift)s") if cause.get("recount")
                else _("%(box)s counted at %(table)s, session #%(shift)s"))
        return text % {**cause, "box": words.get(cause["box"], cause["box"])}
    if kind == "tronc":
        return ngettext("tronc distribution of %(counts)s tips count", "tronc distribution of %(counts)s tips counts",
                        int(cause["counts"])) % cause
    if kind == "bank_withdrawal":
        return _("bank withdrawal %(number)s, tenure #%(tenure)s at %(table)s") % cause
    if kind == "bank_rebuild":
        return _("bank rebuilt %(number)s, tenure #%(tenure)s at %(table)s") % cause
    if kind == "drawer_float":
        return _("float of drawer #%(drawer)s") % cause
    if kind == "drawer_close":
        return _("close of drawer #%(drawer)s") % cause
    return None


def reference_text(transaction) -> str:
    """What caused ``transaction`` (a ``Transaction``), in the reader's language, from its
    ``cause``; its stored ``reference`` text only when it has no cause."""
    return cause_text(getattr(transaction, "cause", None)) or transaction.reference


_PATTERNS = [
    (re.compile(r"^slip (?P<number>\d+)$"), lambda m: {"kind": "slip", "number": int(m["number"])}),
    (re.compile(r"^hand (?P<table>.+) #(?P<number>\d+)$"),
     lambda m: {"kind": "hand", "table": m["table"], "number": int(m["number"])}),
    (re.compile(r"^bank capital, tenure #(?P<tenure>\d+) at (?P<table>.+)$"),
     lambda m: {"kind": "bank_capital", "tenure": int(m["tenure"]), "table": m["table"]}),
    (re.compile(r"^bank sale, tenure #(?P<tenure>\d+) to (?P<buyer>.+)$"),
     lambda m: {"kind": "bank_sale", "tenure": int(m["tenure"]), "buyer": m["buyer"]}),
    (re.compile(r"^bank sale, tenure #(?P<tenure>\d+)$"), lambda m: {"kind": "bank_price", "tenure": int(m["tenure"])}),
    (re.compile(r"^bank distribution, tenure #(?P<tenure>\d+) at (?P<table>.+)$"),
     lambda m: {"kind": "bank_distribution", "tenure": int(m["tenure"]), "table": m["table"]}),
    (re.compile(r"^opening chips (?P<player>.+)$"), lambda m: {"kind": "opening", "player": m["player"]}),
    (re.compile(r"^(?P<giver>.+?) → (?P<receiver>.+)$"),
     lambda m: {"kind": "transfer", "giver": m["giver"], "receiver": m["receiver"]}),
    (re.compile(r"^table buy-in (?P<table>.+) #(?P<number>\d+)$"),
     lambda m: {"kind": "table_buy_in", "table": m["table"], "number": int(m["number"])}),
    (re.compile(r"^tips, session #(?P<shift>\d+)$"), lambda m: {"kind": "tips", "shift": int(m["shift"])}),
    (re.compile(r"^tronc distribution of (?P<counts>\d+) tips count\(s\)$"),
     lambda m: {"kind": "tronc", "counts": int(m["counts"])}),
    (re.compile(r"^bank withdrawal (?P<number>\d+), tenure #(?P<tenure>\d+) at (?P<table>.+)$"),
     lambda m: {"kind": "bank_withdrawal", "number": int(m["number"]), "tenure": int(m["tenure"]), "table": m["table"]}),
    (re.compile(r"^bank rebuilt (?P<number>\d+), tenure #(?P<tenure>\d+) at (?P<table>.+)$"),
     lambda m: {"kind": "bank_rebuild", "number": int(m["number"]), "tenure": int(m["tenure"]), "table": m["table"]}),
]
_SLIP_VOID = re.compile(r"^void of slip (?P<number>\d+)$")
_REVERSAL = re.compile(r"^reversal of #(?P<of>\d+): (?P<original>.*)$", re.S)
_VOID_MEMO = re.compile(r"^void of hand (?P<table>.+) #(?P<number>\d+): (?P<reason>.*)$", re.S)


def parse_reference(reference: str, memo: str = "", reverses: int | None = None) -> tuple[dict, str]:
    """``(cause, memo)`` of a transaction from the English text the services wrote
    before causes were stored: ``"slip 000021"`` → ``{"kind": "slip", "number": 21}``;
    a void's reversal (memo ``"void of hand Mesa 1 #17: <reason>"``) gets ``void`` and
    its memo becomes the reason alone; a slip's void (``"void of slip 000021"``, with
    ``reverses`` the transaction it reverses) is a reversal of that slip. ``({}, memo)``
    for a text it does not know."""
    found = _SLIP_VOID.match(reference or "")
    if found and reverses is not None:
        return {"kind": "reversal", "of": int(reverses), "original": {"kind": "slip", "number": int(found["number"])}}, memo
    found = _REVERSAL.match(reference or "")
    if found:
        original, _memo = parse_reference(found["original"])
        cause = {"kind": "reversal", "of": int(found["of"]), "original": original}
        void = _VOID_MEMO.match(memo or "")
        if void:
            cause["void"] = {"table": void["table"], "number": int(void["number"])}
            memo = void["reason"]
        return cause, memo
    for pattern, build in _PATTERNS:
        found = pattern.match(reference or "")
        if found:
            return build(found), memo
    return {}, memo


def unparse(cause: dict, memo: str = "") -> str:
    """The memo as the services used to write it (the migration's way back): a void's
    reversal gets its ``void of hand … : `` prefix again."""
    if cause.get("kind") == "reversal" and cause.get("void"):
        return f"void of hand {cause['void']['table']} #{cause['void']['number']}: {memo}"
    return memo
