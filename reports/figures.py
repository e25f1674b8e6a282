"""What the reports share: how their figures are written, and the ledger's sums.

``shift_report`` (``reports.shift``) and ``bank_rotation_report`` (``reports.banks``)
return JSON-serialisable dicts: amounts are strings of ``Decimal`` euros with two places
(``"-12.50"``, ``money``), counts are ints, dates ISO 8601 strings. Exceptions (audit
findings, ``reports.audit``, and reconciliation differences) are ``{"code": ..., **params}``
dicts, put into words at display time (``reports.texts``) in the reader's language.

Every aggregate is one SQL statement grouped finely enough to be rolled up in Python
(players × seats × results × multipliers for the bets; tenures × statuses × chart
buckets for the hands), so the cost is a few scans of the shift's rows, never a Python
loop over its hands. The one exception is the SHA-256 chain of the shift's entries,
which can only be recomputed entry by entry (``tables.services.entry_hash``).

Sign conventions (``ledger.models``): a bet's ``net`` is from the player's side (positive:
the bank paid him); the bank's *win* is minus the players' nets, before the house's
commission; the bank's *net* is after it. Casino terms: *handle* is the sum of stakes,
*win* the bank's result, *hold %* the win over the handle.
[rules.md "Settlement of one bet"]
"""

from decimal import ROUND_HALF_UP, Decimal

from django.db.models import DecimalField, F, Q, Sum, Value
from django.db.models.functions import Coalesce

from ledger.models import Entry

FORMAT = 1
ZERO = Decimal("0.00")
CENT = Decimal("0.01")
MONEY = DecimalField(max_digits=14, decimal_places=2)


def money(amount) -> str:
    """``Decimal`` euros (or None for zero) as the reports write them: ``"-12.50"``."""
    return str((amount or ZERO).quantize(CENT))


def decimal_of(text) -> Decimal:
    return Decimal(text)


def iso(moment):
    return moment.isoformat() if moment is not None else None


def percent(part, whole) -> str | None:
    """``part / whole`` as a percentage with two places, or None when ``whole`` is 0."""
    if not whole:
        return None
    return str((Decimal(part) * 100 / Decimal(whole)).quantize(CENT, rounding=ROUND_HALF_UP))


def no_progress(percent, _stage):
    return None


def account_sums(entries):
    """``{account id: credits − debits}`` (``Decimal`` euros) of ``entries``, one query."""
    rows = (entries.values("account_id")
            .annotate(credits=Coalesce(Sum("amount", filter=Q(side=Entry.Side.CREDIT)), Value(ZERO)),
                      debits=Coalesce(Sum("amount", filter=Q(side=Entry.Side.DEBIT)), Value(ZERO)))
            .order_by())
    return {row["account_id"]: row["credits"] - row["debits"] for row in rows}


def signed_amount():
    from django.db.models import Case, When

    return Case(When(side=Entry.Side.CREDIT, then=F("amount")), default=-F("amount"), output_field=MONEY)
