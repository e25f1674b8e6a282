"""The pit's rotation plan: who deals at each open table, since when, who is due for
relief (``settings.DEALER_ROTATION_MINUTES`` at the table, 20 to 40, default 30) and the
free dealer suggested to relieve him (the one resting longest). Read only: a relief is
``tables.services.dealer_relieve``.
"""

from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ImproperlyConfigured
from django.db.models import Max
from django.utils import timezone

from casino.roles import DEALER
from tables.models import DealerRelief, Shift

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
    at or above the interval) and ``suggested``: a free dealer, or None."""

    shift: Shift
    dealer: object
    since: datetime
    minutes: int
    due: bool
    suggested: object | None


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


def rotation_plan(shifts, now=None) -> dict:
    """``{table id: Dealing}`` for the open ``shifts`` (with ``current_dealer`` loaded):
    who deals, since when, who is due; the free dealers suggested in turn, the longest
    due table first."""
    now = now or timezone.now()
    interval = rotation_minutes()
    shifts = list(shifts)
    since = {shift.pk: shift.opened_at for shift in shifts}
    since.update(DealerRelief.objects.filter(shift__in=shifts).values("shift").annotate(last=Max("at"))
                 .values_list("shift", "last"))
    plan = {}
    for shift in shifts:
        minutes = max(int((now - since[shift.pk]).total_seconds() // 60), 0)
        plan[shift.table_id] = Dealing(shift, shift.current_dealer, since[shift.pk], minutes, minutes >= interval,
                                       None)
    free = free_dealers(now)
    for dealing in sorted((d for d in plan.values() if d.due), key=lambda d: d.since):
        if not free:
            break
        dealing.suggested = free.pop(0)
    return plan
