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
=====================  ==========================================================

The ``reference`` column keeps its text (the API's and the idempotency's plain key,
``"slip 000021"``); pages read ``cause``. ``parse_reference`` turns the text the
services used to write into a cause (the migration that filled ``cause`` for existing
rows uses it). The channel a posting came from (``source``: ``console``, ``cashier``…)
is put into words by ``source_text``. [issue 17 "Every word is drawn in the reader's
language from structured data at display time"]
"""

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
]
_REVERSAL = re.compile(r"^reversal of #(?P<of>\d+): (?P<original>.*)$", re.S)
_VOID_MEMO = re.compile(r"^void of hand (?P<table>.+) #(?P<number>\d+): (?P<reason>.*)$", re.S)


def parse_reference(reference: str, memo: str = "") -> tuple[dict, str]:
    """``(cause, memo)`` of a transaction from the English text the services wrote
    before causes were stored: ``"slip 000021"`` → ``{"kind": "slip", "number": 21}``;
    a void's reversal (memo ``"void of hand Mesa 1 #17: <reason>"``) gets ``void`` and
    its memo becomes the reason alone. ``({}, memo)`` for a text it does not know."""
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
