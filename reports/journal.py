"""The accounting journal of a gaming day: the ledger's postings of the day summed per
transaction kind and per account of the casino's chart into balanced journal entries, for
an accounting system (CSV in the reader's locale, JSON with amounts as strings), and
reconciled with the ledger's balances.

One journal entry per transaction kind posted that day ("buy-ins at the cage", "hands
settled", …), each with one line per chart account its postings touched: the day's debits
and credits on that account, never netted (an accountant sees the gross flows). Every
entry balances because every posting does; the day's net per chart account equals the
movement of the ledger's balances over the day (``reconcile``).

The chart maps each kind of ledger account (the cage's cash, the tables' drop and tips
boxes, the patrons' chips, the banks' funds, the house's commission, the tronc, the count
variances) to the casino's account code and name: ``ACCOUNTING_CHART`` (a setting,
``{account kind: [code, name]}``), default the Spanish general chart of accounts' groups
(Plan General de Contabilidad, RD 1514/2007: 570 cash, 438 customer advances, 465 staff
remuneration payable, 705 services rendered, 659 other operating losses).
"""

import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Q, Sum
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino import formatting
from casino.periods import gaming_day_bounds
from ledger.models import Account, Entry, Transaction

ZERO = Decimal("0.00")

#: The default chart: ledger account kind → (code, name). ``ACCOUNTING_CHART`` overrides.
DEFAULT_CHART = {
    Account.Kind.CAGE: ("5700", gettext_lazy("Cage cash")),
    Account.Kind.DROP: ("5701", gettext_lazy("Tables' drop boxes")),
    Account.Kind.TIPS_BOX: ("5702", gettext_lazy("Tables' tips boxes")),
    Account.Kind.PLAYER: ("4380", gettext_lazy("Patrons' chips outstanding")),
    Account.Kind.TENURE: ("4381", gettext_lazy("Banks' funds (bank holders)")),
    Account.Kind.TRONC: ("4650", gettext_lazy("Tronc (staff tips payable)")),
    Account.Kind.HOUSE: ("7050", gettext_lazy("Commission revenue (cagnotte)")),
    Account.Kind.VARIANCE: ("6590", gettext_lazy("Count variances (over and short)")),
    Account.Kind.FLOATS: ("5709", gettext_lazy("Cage floats (house cash lent to drawers)")),
    Account.Kind.CHIPS_OUT: ("4382", gettext_lazy("Chips outstanding elsewhere than recorded")),
}


def chart() -> dict[str, tuple[str, str]]:
    """``{ledger account kind: (code, name)}``: ``DEFAULT_CHART`` with ``ACCOUNTING_CHART``'s
    entries over it (``{"cage": ["570000", "Caja"]}``; a kind left out keeps its default).

    Raises:
        ValueError: ``ACCOUNTING_CHART`` names an account kind the ledger does not have, or
        an entry is not ``[code, name]``.
    """
    mapping = {kind: (code, str(name)) for kind, (code, name) in DEFAULT_CHART.items()}
    for kind, value in (getattr(settings, "ACCOUNTING_CHART", None) or {}).items():
        if kind not in Account.Kind.values:
            raise ValueError(f"ACCOUNTING_CHART: {kind!r} is no ledger account kind ({', '.join(Account.Kind.values)})")
        if not isinstance(value, (list, tuple)) or len(value) != 2:
            raise ValueError(f"ACCOUNTING_CHART[{kind!r}] is [code, name], not {value!r}")
        mapping[kind] = (str(value[0]), str(value[1]))
    return mapping


@dataclass
class JournalLine:
    """One chart account's debits and credits within a journal entry (Decimal euros)."""

    code: str
    name: str
    debit: Decimal = ZERO
    credit: Decimal = ZERO


@dataclass
class JournalEntry:
    """The day's postings of one transaction kind: ``kind`` (the ledger's), ``label`` (in
    words), ``postings`` (how many), ``lines`` (by account code)."""

    kind: str
    label: str
    postings: int
    lines: list[JournalLine] = field(default_factory=list)

    @property
    def debit(self) -> Decimal:
        return sum((line.debit for line in self.lines), ZERO)

    @property
    def credit(self) -> Decimal:
        return sum((line.credit for line in self.lines), ZERO)


@dataclass
class Journal:
    """A gaming day's journal: ``day``, ``start`` and ``end`` (aware, ``[start, end)``),
    ``entries`` (JournalEntry, in the ledger's order of kinds), ``accounts`` (``{code:
    {"name", "debit", "credit", "net", "ledger_movement"}}``: the day's totals per chart
    account, ``net`` = credits − debits, and the movement of the ledger's balances of its
    accounts over the day), ``faults`` (``reconcile``'s: empty when sound)."""

    day: date
    start: object
    end: object
    entries: list[JournalEntry]
    accounts: dict
    faults: list[str]

    @property
    def debit(self) -> Decimal:
        return sum((entry.debit for entry in self.entries), ZERO)

    @property
    def credit(self) -> Decimal:
        return sum((entry.credit for entry in self.entries), ZERO)


def journal_day(*, day: date) -> Journal:
    """The journal of gaming day ``day`` (``casino.periods.gaming_day_bounds``): three
    aggregate queries over the day's entries and transactions.

    Returns:
        a ``Journal``, reconciled (``faults`` empty when the journal balances and each
        chart account's net equals its ledger movement).
    Raises:
        ValueError: as ``chart``.
    """
    mapping = chart()
    start, end = gaming_day_bounds(day)
    rows = (Entry.objects.filter(transaction__posted_at__gte=start, transaction__posted_at__lt=end)
            .values("transaction__kind", "account__kind", "side").annotate(total=Sum("amount")).order_by())
    counts = dict(Transaction.objects.filter(posted_at__gte=start, posted_at__lt=end).values("kind")
                  .annotate(n=Count("id")).values_list("kind", "n").order_by())
    sums = defaultdict(lambda: defaultdict(lambda: [ZERO, ZERO]))  # kind -> account kind -> [debit, credit]
    for row in rows:
        sums[row["transaction__kind"]][row["account__kind"]][0 if row["side"] == Entry.Side.DEBIT else 1] += row["total"]
    labels = dict(Transaction.Kind.choices)
    entries = []
    for kind in [k for k in Transaction.Kind.values if k in sums]:
        by_code = {}
        for account_kind, (debit, credit) in sums[kind].items():
            code, name = mapping[account_kind]
            line = by_code.setdefault(code, JournalLine(code=code, name=name))
            line.debit += debit
            line.credit += credit
        entries.append(JournalEntry(kind=kind, label=str(labels[kind]), postings=counts.get(kind, 0),
                                    lines=sorted(by_code.values(), key=lambda line: line.code)))
    accounts = {}
    for entry in entries:
        for line in entry.lines:
            total = accounts.setdefault(line.code, {"name": line.name, "debit": ZERO, "credit": ZERO})
            total["debit"] += line.debit
            total["credit"] += line.credit
    movements = ledger_movements(start=start, end=end)
    for account_kind, movement in movements.items():
        code, name = mapping[account_kind]
        accounts.setdefault(code, {"name": name, "debit": ZERO, "credit": ZERO})
        accounts[code]["ledger_movement"] = accounts[code].get("ledger_movement", ZERO) + movement
    for total in accounts.values():
        total["net"] = total["credit"] - total["debit"]
        total.setdefault("ledger_movement", ZERO)
    journal = Journal(day=day, start=start, end=end, entries=entries, accounts=dict(sorted(accounts.items())),
                      faults=[])
    journal.faults = reconcile(journal)
    return journal


def ledger_movements(*, start, end) -> dict[str, Decimal]:
    """``{account kind: Decimal euros}``: how far the ledger's accounts of each kind moved
    over ``[start, end)`` (credits − debits of their entries, read per account, apart from
    the journal's grouping by transaction kind); kinds that did not move are left out."""
    rows = (Entry.objects.filter(transaction__posted_at__gte=start, transaction__posted_at__lt=end)
            .values("account__kind")
            .annotate(credit=Sum("amount", filter=Q(side=Entry.Side.CREDIT), default=ZERO),
                      debit=Sum("amount", filter=Q(side=Entry.Side.DEBIT), default=ZERO)).order_by())
    return {row["account__kind"]: row["credit"] - row["debit"] for row in rows if row["credit"] != row["debit"]}


def reconcile(journal: Journal) -> list[str]:
    """The journal's faults, in words: an entry whose debits and credits differ, or a chart
    account whose net differs from the ledger's movement. Empty when sound."""
    faults = []
    for entry in journal.entries:
        if entry.debit != entry.credit:
            faults.append(_("%(label)s: debits %(debit)s, credits %(credit)s") % {
                "label": entry.label, "debit": entry.debit, "credit": entry.credit})
    for code, total in journal.accounts.items():
        if total["net"] != total["ledger_movement"]:
            faults.append(_("account %(code)s: the journal nets %(net)s, the ledger's balances moved %(moved)s") % {
                "code": code, "net": total["net"], "moved": total["ledger_movement"]})
    return faults


def journal_rows(journal: Journal) -> list[dict]:
    """The journal as flat rows for an accounting system: ``{"date", "entry" (1, 2, …),
    "kind", "description", "account", "account_name", "debit", "credit"}`` (amounts
    Decimal euros)."""
    rows = []
    for number, entry in enumerate(journal.entries, start=1):
        for line in entry.lines:
            rows.append({"date": journal.day, "entry": number, "kind": entry.kind, "description": entry.label,
                         "postings": entry.postings, "account": line.code, "account_name": line.name,
                         "debit": line.debit, "credit": line.credit})
    return rows


def journal_json(journal: Journal) -> dict:
    """The journal as JSON-ready data (amounts as strings with two places)."""
    return {"day": journal.day.isoformat(), "start": journal.start.isoformat(), "end": journal.end.isoformat(),
            "entries": [{"entry": number, "kind": entry.kind, "description": entry.label, "postings": entry.postings,
                         "lines": [{"account": line.code, "account_name": line.name, "debit": f"{line.debit:.2f}",
                                    "credit": f"{line.credit:.2f}"} for line in entry.lines]}
                        for number, entry in enumerate(journal.entries, start=1)],
            "accounts": [{"account": code, "account_name": total["name"], "debit": f"{total['debit']:.2f}",
                          "credit": f"{total['credit']:.2f}", "net": f"{total['net']:.2f}",
                          "ledger_movement": f"{total['ledger_movement']:.2f}"}
                         for code, total in journal.accounts.items()],
            "debit": f"{journal.debit:.2f}", "credit": f"{journal.credit:.2f}", "faults": journal.faults}


def journal_csv(journal) -> str:
    """The journal as CSV text in the reader's language and locale: a first line naming the
    separator, a header, one row per journal line (date, entry, description, account, its
    name, debit, credit), then the totals."""
    buffer = io.StringIO()
    writer, description = formatting.csv_writer(buffer)
    writer.writerow([f"# {description}"])
    writer.writerow([_("Date"), _("Journal entry"), _("Description"), _("Postings"), _("Account"), _("Account name"),
                     _("Debit"), _("Credit")])
    for row in journal_rows(journal):
        writer.writerow([formatting.day(row["date"], "SHORT_DATE_FORMAT"), row["entry"], row["description"], row["postings"],
                         row["account"], row["account_name"], formatting.csv_amount(row["debit"]),
                         formatting.csv_amount(row["credit"])])
    writer.writerow(["", "", _("Total"), "", "", "", formatting.csv_amount(journal.debit),
                     formatting.csv_amount(journal.credit)])
    return buffer.getvalue()
