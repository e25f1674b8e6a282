"""The pits' rotation plans, set by a pit supervisor: a pit (its name), and each change of
its plan a new version (tables, minutes at a table, relief order) with who set it and when.
Read by ``tables.rotation`` (who is due, who relieves him)."""

from collections.abc import Sequence

from django.db import transaction as db
from django.utils.translation import gettext as _

from casino.roles import DEALER, has_role
from casino.sql import xact_lock
from tables.errors import PlanRefused
from tables.models import Pit, RotationPlan, RotationSlot, Table

#: A dealer's minutes at a table before he is due for relief: a plan's bounds.
LOWEST_MINUTES, HIGHEST_MINUTES = 20, 40


def current_plans() -> dict:
    """``{pit id: RotationPlan}``: each pit's version in force (its latest)."""
    latest = {}
    plans = (RotationPlan.objects.select_related("pit", "set_by").prefetch_related("tables", "slots__dealer")
             .order_by("pit_id", "-version"))
    for plan in plans:
        latest.setdefault(plan.pit_id, plan)
    return latest


def rotation_plan_set(*, pit: Pit | None, name: str = "", minutes: int, tables: Sequence[Table],
                      dealers: Sequence, set_by, note: str = "") -> RotationPlan:
    """Set a pit's rotation plan (pit supervisor): a new version, the last + 1, in force
    from now; the versions before are kept as they were. ``pit`` None: a new pit named
    ``name``, with its first version.

    Args:
        pit: the Pit, or None for a new one; name: the new pit's name (``pit`` None only);
        minutes: a dealer's minutes at a table before he is due (20 to 40);
        tables: the pit's tables (one or more, none in another pit's plan in force);
        dealers: the relief order (users with the dealer role, each once, one or more);
        set_by: the pit supervisor; note: why (optional, up to 200 characters).
    Returns:
        the RotationPlan written, its ``slots`` in order.
    Raises:
        PlanRefused: ``field`` names what is at fault (``name``, ``minutes``, ``tables``,
        ``dealers``); nothing is written.
    """
    name = name.strip()
    if not LOWEST_MINUTES <= minutes <= HIGHEST_MINUTES:
        raise PlanRefused(_("a dealer is due for relief after %(low)s to %(high)s minutes, not %(minutes)s"),
                          params={"low": LOWEST_MINUTES, "high": HIGHEST_MINUTES, "minutes": minutes},
                          field="minutes")
    if not tables:
        raise PlanRefused(_("choose at least one table of the pit"), field="tables")
    if not dealers:
        raise PlanRefused(_("name at least one relief dealer"), field="dealers")
    seen = set()
    for dealer in dealers:
        if not has_role(dealer, DEALER) or not dealer.is_active:
            raise PlanRefused(_("%(user)s is not an active dealer"), params={"user": dealer.get_username()},
                              field="dealers")
        if dealer.pk in seen:
            raise PlanRefused(_("%(user)s is named twice in the relief order"),
                              params={"user": dealer.get_username()}, field="dealers")
        seen.add(dealer.pk)
    with db.atomic():
        # One plan set at a time (two at once cannot both take a table); an advisory lock:
        # the app's role may not lock the append-only pits' rows.
        xact_lock("tables_rotationplan")
        if pit is None:
            if not name:
                raise PlanRefused(_("name the pit"), field="name")
            if Pit.objects.filter(name__iexact=name).exists():
                raise PlanRefused(_("a pit named %(name)s exists already: change its plan instead"),
                                  params={"name": name}, field="name")
            pit = Pit.objects.create(name=name, created_by=set_by)
        chosen = {table.pk for table in tables}
        for other_id, plan in current_plans().items():
            if other_id == pit.pk:
                continue
            taken = sorted(table.name for table in plan.tables.all() if table.pk in chosen)
            if taken:
                raise PlanRefused(_("%(table)s is in the plan of pit %(pit)s: take it out there first"),
                                  params={"table": taken[0], "pit": plan.pit.name}, field="tables")
        last = RotationPlan.objects.filter(pit=pit).order_by("-version").values_list("version", flat=True).first()
        plan = RotationPlan.objects.create(pit=pit, version=(last or 0) + 1, minutes=minutes, note=note.strip(),
                                           set_by=set_by)
        plan.tables.set(tables)
        RotationSlot.objects.bulk_create([RotationSlot(plan=plan, position=index, dealer=dealer)
                                          for index, dealer in enumerate(dealers, start=1)])
        return plan
