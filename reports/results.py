"""The casino's results by gaming day, month to date and year to date, against the same
period a year before: for the casino, each table and each game profile, the drop, the
handle, the house's commission (its revenue), the tips, the banks' results and the house
hold %.

Casino terms, as the shift report's (``reports.house``): the *drop* is the cash taken at the
tables for chips (table buy-ins, into the drop boxes); the *handle* the sum of the stakes of
settled hands; the *commission* what the house levied on the banks' winnings (the
cagnotte); the *banks' result* what the bank holders won from the players, before the
commission (money between players: the house's only revenue is the commission); the
*house hold %* the commission over the handle. Periods are gaming days
(``casino.periods.gaming_day_bounds``); a hand counts on the day it was opened, a buy-in
or a tip on the day it was recorded.
"""

import io
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal

from django.db.models import DecimalField, Sum
from django.db.models.fields.json import KeyTextTransform
from django.db.models.functions import Cast
from django.utils.translation import gettext as _

from boxes.models import TableBuyIn, TableTip
from casino import formatting
from casino.periods import gaming_day_bounds
from game import Profile
from tables.models import Hand, HandBet, Table

ZERO = Decimal("0.00")
FIGURES = ("drop", "handle", "commission", "tips", "banks_result")


@dataclass
class Figures:
    """One row's figures over one period, Decimal euros; ``hold`` the house hold % (Decimal,
    two places, or None without a handle)."""

    drop: Decimal = ZERO
    handle: Decimal = ZERO
    commission: Decimal = ZERO
    tips: Decimal = ZERO
    banks_result: Decimal = ZERO

    @property
    def hold(self) -> Decimal | None:
        if not self.handle:
            return None
        return (self.commission * 100 / self.handle).quantize(Decimal("0.01"))

    def add(self, other: "Figures") -> None:
        for name in FIGURES:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class PeriodResults:
    """A period's results: ``first`` and ``last`` (gaming days, inclusive), ``casino``
    (Figures), ``tables`` (``{table name: Figures}``), ``profiles`` (``{profile: Figures}``)."""

    first: date
    last: date
    casino: Figures = field(default_factory=Figures)
    tables: dict = field(default_factory=dict)
    profiles: dict = field(default_factory=dict)


def year_before(day: date) -> date:
    """The same calendar day a year before (29 February → 28 February)."""
    try:
        return day.replace(year=day.year - 1)
    except ValueError:
        return day.replace(year=day.year - 1, day=28)


def period_results(*, first: date, last: date) -> PeriodResults:
    """The results of gaming days ``first`` to ``last`` inclusive (four aggregate queries).

    Returns:
        a ``PeriodResults`` (every table that played, took a buy-in or a tip; every profile
        its hands were played under).
    Raises:
        ValueError: ``last`` before ``first``.
    """
    if last < first:
        raise ValueError("the period ends before it begins")
    start, _ = gaming_day_bounds(first)
    _, end = gaming_day_bounds(last)
    results = PeriodResults(first=first, last=last)
    names = dict(Table.objects.values_list("id", "name"))
    table_profiles = {table.pk: table.profile.name for table in Table.objects.all()}
    per_table = defaultdict(Figures)
    per_profile = defaultdict(Figures)
    settled = Hand.objects.filter(status=Hand.Status.SETTLED, opened_at__gte=start, opened_at__lt=end)
    bets = (HandBet.objects.filter(hand__in=settled).values("hand__table_id", "hand__rules")
            .annotate(handle=Sum("stake"), players=Sum("net")).order_by())
    commission = (settled.values("table_id", "rules")
                  .annotate(total=Sum(Cast(KeyTextTransform("commission", "settlement"),
                                           DecimalField(max_digits=14, decimal_places=2)))).order_by())
    profiles = {}

    def profile_of(rules):
        key = repr(rules)
        if key not in profiles:
            profiles[key] = Profile.from_rules(rules).name
        return profiles[key]

    for row in bets:
        figures = Figures(handle=row["handle"] or ZERO, banks_result=-(row["players"] or ZERO))
        per_table[row["hand__table_id"]].add(figures)
        per_profile[profile_of(row["hand__rules"])].add(figures)
    for row in commission:
        figures = Figures(commission=row["total"] or ZERO)
        per_table[row["table_id"]].add(figures)
        per_profile[profile_of(row["rules"])].add(figures)
    for model, kind in ((TableBuyIn, "drop"), (TableTip, "tips")):
        for row in (model.objects.filter(recorded_at__gte=start, recorded_at__lt=end).values("shift__table_id")
                    .annotate(total=Sum("amount")).order_by()):
            figures = Figures(**{kind: row["total"] or ZERO})
            per_table[row["shift__table_id"]].add(figures)
            per_profile[table_profiles[row["shift__table_id"]]].add(figures)
    for figures in per_table.values():
        results.casino.add(figures)
    results.tables = {names[pk]: per_table[pk] for pk in sorted(per_table, key=lambda pk: names[pk])}
    results.profiles = dict(sorted(per_profile.items()))
    return results


def results_for(day: date) -> list[dict]:
    """The results page's periods for gaming day ``day``: the day, the month to date and
    the year to date, each with the same period a year before.

    Returns:
        ``[{"name": words, "now": PeriodResults, "before": PeriodResults}]``.
    """
    periods = [(_("Gaming day"), day, day), (_("Month to date"), day.replace(day=1), day),
               (_("Year to date"), day.replace(month=1, day=1), day)]
    return [{"name": name, "now": period_results(first=first, last=last),
             "before": period_results(first=year_before(first), last=year_before(last))}
            for name, first, last in periods]


def period_json(results: PeriodResults) -> dict:
    """A period's results as JSON (a stored monthly statement's): ``first``, ``last`` (ISO
    days), ``casino``, ``tables``, ``profiles``, each figure a string of euros with two
    places and ``hold`` a percent string or None. ``period_from_json`` reads it back."""
    def figures(values: Figures) -> dict:
        return {**{name: str(getattr(values, name)) for name in FIGURES},
                "hold": None if values.hold is None else str(values.hold)}

    return {"first": results.first.isoformat(), "last": results.last.isoformat(), "casino": figures(results.casino),
            "tables": {name: figures(values) for name, values in results.tables.items()},
            "profiles": {name: figures(values) for name, values in results.profiles.items()}}


def period_from_json(data: dict) -> PeriodResults:
    """The ``PeriodResults`` ``period_json`` wrote (``hold`` is worked out again from the
    commission and the handle, as it was)."""
    def figures(values: dict) -> Figures:
        return Figures(**{name: Decimal(values[name]) for name in FIGURES})

    return PeriodResults(first=date.fromisoformat(data["first"]), last=date.fromisoformat(data["last"]),
                         casino=figures(data["casino"]),
                         tables={name: figures(values) for name, values in data["tables"].items()},
                         profiles={name: figures(values) for name, values in data["profiles"].items()})


def results_rows(period: dict) -> list[dict]:
    """One period's rows for the pages and the CSVs: the casino, each table, each
    profile, each ``{"level": "casino"|"table"|"profile", "name", "now": Figures, "before":
    Figures, "change": {"handle": %, "commission": %}}`` (a row with no figures a year
    before gets empty ones; a change from zero is None)."""
    now, before = period["now"], period["before"]
    rows = [{"level": "casino", "name": _("Casino"), "now": now.casino, "before": before.casino}]
    for level, current, previous in (("table", now.tables, before.tables), ("profile", now.profiles, before.profiles)):
        for name in sorted(set(current) | set(previous)):
            rows.append({"level": level, "name": name, "now": current.get(name, Figures()),
                         "before": previous.get(name, Figures())})
    for row in rows:
        row["change"] = {name: change(getattr(row["now"], name), getattr(row["before"], name))
                         for name in ("handle", "commission")}
    return rows


def change(now: Decimal, before: Decimal) -> Decimal | None:
    """The change from a year before, in percent (two places), or None from zero."""
    if not before:
        return None
    return ((now - before) * 100 / abs(before)).quantize(Decimal("0.01"))


def results_csv(day: date) -> str:
    """The results page as CSV text in the reader's language and locale: a first line
    naming the separator, then per period and row the figures now and a year before."""
    buffer = io.StringIO()
    writer, description = formatting.csv_writer(buffer)
    writer.writerow([f"# {description}"])
    header = [_("Period"), _("From"), _("To"), _("Level"), _("Name")]
    words = {"drop": _("Drop"), "handle": _("Handle"), "commission": _("Commission"), "tips": _("Tips"),
             "banks_result": _("Banks' result")}
    for name in FIGURES:
        header += [words[name], _("%(figure)s a year before") % {"figure": words[name]}]
    header += [_("House hold %"), _("House hold % a year before")]
    writer.writerow(header)
    levels = {"casino": _("casino"), "table": _("table"), "profile": _("profile")}
    plain = formatting.csv_amount
    for period in results_for(day):
        for row in results_rows(period):
            line = [period["name"], formatting.day(period["now"].first, "SHORT_DATE_FORMAT"),
                    formatting.day(period["now"].last, "SHORT_DATE_FORMAT"), levels[row["level"]], row["name"]]
            for name in FIGURES:
                line += [plain(getattr(row["now"], name)), plain(getattr(row["before"], name))]
            line += [plain(row["now"].hold), plain(row["before"].hold)]
            writer.writerow(line)
    return buffer.getvalue()
