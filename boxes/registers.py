"""The cagnotte registers: each levy of a session, numbered per table and session, and the
daily control register totalling every table. Reads only. [France, arrêté of 14 May 2007
art. 69: every levy written per table per session, totalled daily in a control register]
"""

from dataclasses import dataclass, field
from decimal import Decimal

from django.db.models import Count

from boxes.models import BoxCount
from boxes.services import CENT
from casino.periods import period_bounds
from tables.models import Hand, Shift

ZERO = Decimal("0.00")


@dataclass
class Levy:
    """One hand's levy: ``number`` (1, 2, … within its table's session), the hand, when,
    the bank's holder, ``amount`` and ``running`` (Decimal euros)."""

    number: int
    hand: int
    settled_at: object
    bank: str
    amount: Decimal
    running: Decimal


def cagnotte_register(shift: Shift) -> list[Levy]:
    """Every levy of the session's settled hands (a voided hand's was reversed: left out),
    in hand order, numbered from 1, with the running total."""
    levies, running = [], ZERO
    hands = (Hand.objects.filter(shift=shift, status=Hand.Status.SETTLED).select_related("bank")
             .order_by("number").values_list("number", "settled_at", "bank__code", "settlement"))
    for number, settled_at, bank, settlement in hands:
        amount = Decimal(settlement.get("commission") or "0").quantize(CENT)
        if amount:
            running += amount
            levies.append(Levy(len(levies) + 1, number, settled_at, bank, amount, running))
    return levies


@dataclass
class SessionLine:
    """One session in the daily register: its cagnotte by the hands and as counted, its
    drop by the buy-ins and as counted, its tips counted (Decimal euros; None: not
    counted), and its counts' variances explained or not."""

    shift: Shift
    levies: int = 0
    cagnotte: Decimal = ZERO
    cagnotte_counted: Decimal | None = None
    drop: Decimal = ZERO
    drop_counted: Decimal | None = None
    tips_counted: Decimal | None = None
    open_variances: int = 0

    @property
    def cagnotte_variance(self):
        return None if self.cagnotte_counted is None else self.cagnotte_counted - self.cagnotte

    @property
    def drop_variance(self):
        return None if self.drop_counted is None else self.drop_counted - self.drop


@dataclass
class DailyRegister:
    """The control register of one gaming day (``day``, a calendar day in the casino's
    time zone): its sessions, opened that day, by table, and the totals of all tables."""

    day: object
    lines: list = field(default_factory=list)

    def total(self, name):
        values = [getattr(line, name) for line in self.lines if getattr(line, name) is not None]
        return sum(values, ZERO)


def daily_register(day) -> DailyRegister:
    """The sessions opened on ``day`` (a ``date``, the casino's time zone) with their
    cagnotte (hands' levies and count), drop (buy-ins and count) and tips."""
    start, end = period_bounds(day, day)
    shifts = list(Shift.objects.filter(opened_at__gte=start, opened_at__lt=end)
                  .select_related("table", "dealer", "opened_by", "closed_by")
                  .annotate(hand_count=Count("hands")).order_by("table__name", "opened_at", "id"))
    register = DailyRegister(day)
    by_id = {}
    for shift in shifts:
        line = SessionLine(shift)
        by_id[shift.pk] = line
        register.lines.append(line)
    if not by_id:
        return register
    for shift_id, settlement in (Hand.objects.filter(shift_id__in=by_id, status=Hand.Status.SETTLED)
                                 .values_list("shift_id", "settlement")):
        amount = Decimal(settlement.get("commission") or "0").quantize(CENT)
        if amount:
            by_id[shift_id].levies += 1
            by_id[shift_id].cagnotte += amount
    from boxes.models import TableBuyIn

    for shift_id, amount in TableBuyIn.objects.filter(shift_id__in=by_id).values_list("shift_id", "amount"):
        by_id[shift_id].drop += amount
    for count in BoxCount.objects.latest_counts().filter(shift_id__in=by_id).select_related("note"):
        line = by_id[count.shift_id]
        setattr(line, {"drop": "drop_counted", "cagnotte": "cagnotte_counted", "tips": "tips_counted"}[count.box],
                count.total)
        if count.variance and not hasattr(count, "note"):
            line.open_variances += 1
    return register
