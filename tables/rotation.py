"""The pit's rotation plan: who deals at each open table, since when, when he is due for
relief and the free dealer to relieve him. A table in a pit's plan in force
(``tables.models.RotationPlan``, set by the pit supervisor) follows that plan: its minutes,
and its relief order (the first free dealer in it relieves the table due first); any other
table ``settings.DEALER_ROTATION_MINUTES`` (20 to 40, default 30) and the free dealer
resting longest. Read only: a relief is ``tables.services.dealer_relieve``; a plan is set
by ``tables.services.rotation_plan_set``.
"""

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Max
from django.utils import timezone

from casino.roles import DEALER
from tables.models import DealerRelief, RotationPlan, Shift
from tables.services.rotation import current_plans

#: The rotation interval's bounds and default, in minutes.
LOWEST, HIGHEST, DEFAULT = 20, 40, 30


def rotation_minutes() -> int:
    """``settings.DEALER_ROTATION_MINUTES`` (default 30).

    Raises:
        ImproperlyConfigured: outside 20–40 minutes.
    """
    minutes = int(getattr(settings, "DEALER_ROTATION_MINUTES", DEFAULT))
    if not LOWEST <= minutes <= HIGHEST:
        raise ImproperlyConfigured(f"DEALER_ROTATION_MINUTES must be {LOWEST} to {HIGHEST}, not {minutes}")
    return minutes


@dataclass
class Dealing:
    """An open shift's current dealer as the pit's plan shows him: ``since`` he took the
    table (the last relief, else the shift's opening), ``minutes`` there, ``due`` (minutes
    at or above the interval), ``due_at`` (when he is due) and ``suggested``: the free
    dealer who relieves him (the pit's relief order first), or None; ``plan``: the pit's
    RotationPlan in force, or None (the setting's interval)."""

    shift: Shift
    dealer: object
    since: datetime
    minutes: int
    due: bool
    suggested: object | None
    due_at: datetime | None = None
    plan: RotationPlan | None = None


@dataclass
class PitRotation:
    """A pit's plan in force and its open tables' dealings, the one due first first
    (``dealings``); ``idle``: its tables with no open shift."""

    plan: RotationPlan
    slots: list
    dealings: list
    idle: list

    @property
    def next(self):
        """The dealing due first, or None."""
        return self.dealings[0] if self.dealings else None


def free_dealers(now=None):
    """Active dealers dealing at no open shift, the one resting longest first (never
    relieved or opened a shift today: first, by username)."""
    users = get_user_model()
    busy = Shift.objects.filter(closed_at__isnull=True).values("current_dealer_id")
    free = list(users.objects.filter(is_active=True, groups__name=DEALER).exclude(pk__in=busy)
                .order_by("username").distinct())
    day = timezone.localtime(now or timezone.now()).replace(hour=0, minute=0, second=0, microsecond=0)
    last = dict(DealerRelief.objects.filter(at__gte=day, relieved__in=free).values("relieved")
                .annotate(last=Max("at")).values_list("relieved", "last"))
    return sorted(free, key=lambda user: (last.get(user.pk) is not None, last.get(user.pk) or day, user.username))


def plans_by_table(plans=None) -> dict:
    """``{table id: RotationPlan}``: the pit plan in force each table is in (of
    ``plans``, ``current_plans()``'s values by default)."""
    plans = current_plans().values() if plans is None else plans
    return {table.pk: plan for plan in plans for table in plan.tables.all()}


def rotation_plan(shifts, now=None, plans=None) -> dict:
    """``{table id: Dealing}`` for the open ``shifts`` (with ``current_dealer`` loaded):
    who deals, since when, when he is due; the free dealers assigned in turn, the table
    due first first (a pit's table from its plan's relief order, any other from the free
    dealers resting longest). ``plans``: the plans in force (read if None)."""
    now = now or timezone.now()
    default = rotation_minutes()
    by_table = plans_by_table(plans)
    shifts = list(shifts)
    since = {shift.pk: shift.opened_at for shift in shifts}
    since.update(DealerRelief.objects.filter(shift__in=shifts).values("shift").annotate(last=Max("at"))
                 .values_list("shift", "last"))
    plan = {}
    for shift in shifts:
        in_plan = by_table.get(shift.table_id)
        interval = in_plan.minutes if in_plan else default
        minutes = max(int((now - since[shift.pk]).total_seconds() // 60), 0)
        plan[shift.table_id] = Dealing(shift, shift.current_dealer, since[shift.pk], minutes, minutes >= interval,
                                       None, since[shift.pk] + timedelta(minutes=interval), in_plan)
    free = free_dealers(now)
    free_ids = {user.pk for user in free}
    orders = {}
    taken = set()
    for dealing in sorted(plan.values(), key=lambda d: (d.due_at, d.shift.table_id)):
        if dealing.plan is not None:
            if dealing.plan.pk not in orders:
                orders[dealing.plan.pk] = [slot.dealer for slot in dealing.plan.slots.all()]
            candidates = [user for user in orders[dealing.plan.pk] if user.pk in free_ids]
        else:
            candidates = free
        chosen = next((user for user in candidates if user.pk not in taken), None)
        if chosen is not None:
            dealing.suggested = chosen
            taken.add(chosen.pk)
    return plan


def pit_rotations(shifts, now=None) -> list[PitRotation]:
    """Each pit's plan in force with its tables' dealings (``rotation_plan`` of the open
    ``shifts``), by pit name."""
    return rotation_overview(shifts, now)[0]


def rotation_overview(shifts, now=None) -> tuple[list[PitRotation], dict]:
    """``(pit_rotations, rotation_plan)`` of the open ``shifts`` from one reading: each
    free dealer is suggested once, at a pit's table or another."""
    plans = list(current_plans().values())
    for plan in plans:
        plan.prefetched_tables = sorted(plan.tables.all(), key=lambda t: t.name)
    dealings = rotation_plan(shifts, now=now, plans=plans)
    rotations = []
    for plan in sorted(plans, key=lambda p: p.pit.name):
        tables = plan.prefetched_tables
        rows = sorted((dealings[t.pk] for t in tables if t.pk in dealings), key=lambda d: (d.due_at, d.shift.table_id))
        rotations.append(PitRotation(plan, list(plan.slots.all()), rows,
                                     [t for t in tables if t.pk not in dealings]))
    return rotations, dealings
