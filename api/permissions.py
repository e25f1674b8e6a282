"""The API's roles: one DRF permission per role of ``casino.roles``, the same as the pages.

Combine them with ``|``: ``[IsPitSupervisor | IsAuditor]``. A superuser holds every role.

- ``IsDealer``: a dealer, and on an object (a table, its shift or its hand) only at the
  table of his open shift (``tables.services.dealer_shift``).
- ``IsPitSupervisor``, ``IsCashier``, ``IsAdmin``: the role, on any object.
- ``IsAuditor``: the auditor reads (GET, HEAD, OPTIONS) and changes nothing.
- ``IsStaff``: any role at all (reads open to every role, the dry-run settlement).
"""

from rest_framework.permissions import SAFE_METHODS, BasePermission

from casino.roles import ADMIN, AUDITOR, CASHIER, DEALER, PIT_SUPERVISOR, ROLES, has_role
from tables.models import Hand, Shift, Table
from tables.services import dealer_shift


class RolePermission(BasePermission):
    """The user holds one of ``roles``; with ``read_only``, only for safe methods."""

    roles: tuple[str, ...] = ()
    read_only = False

    def has_permission(self, request, view):
        if self.read_only and request.method not in SAFE_METHODS:
            return False
        return has_role(request.user, *self.roles)


class IsDealer(RolePermission):
    """A dealer, acting only at the table of his open shift."""

    roles = (DEALER,)
    message = "a dealer acts only at the table of his open shift"

    def has_object_permission(self, request, view, obj):
        table = table_of(obj)
        return table is not None and dealer_shift(table=table, user=request.user) is not None


class IsPitSupervisor(RolePermission):
    """A pit supervisor: shifts, voids, imports, every table."""

    roles = (PIT_SUPERVISOR,)


class IsCashier(RolePermission):
    """A cashier: buy-ins, cash-outs, statements."""

    roles = (CASHIER,)


class IsAuditor(RolePermission):
    """An auditor: reads everything, changes nothing."""

    roles = (AUDITOR,)
    read_only = True


class IsAdmin(RolePermission):
    """The admin role (configuration)."""

    roles = (ADMIN,)


class IsStaff(RolePermission):
    """Any role of the back-office."""

    roles = ROLES


def table_of(obj):
    """The Table an object belongs to (a Table, a Shift, a Hand), or None."""
    if isinstance(obj, Table):
        return obj
    if isinstance(obj, Shift | Hand):
        return obj.table
    return None


def dealer_only(user):
    """True if the user reads as a dealer only (no role that reads every table): lists are
    then limited to the tables of his open shifts."""
    return not has_role(user, PIT_SUPERVISOR, AUDITOR, ADMIN) and has_role(user, DEALER)


class StartsReports(RolePermission):
    """An auditor starting a report: the one POST an auditor makes (as on the pages)."""

    roles = (AUDITOR,)


class AcknowledgesAlerts(RolePermission):
    """An auditor acknowledging an alert with his note (as on the alert's page)."""

    roles = (AUDITOR,)
