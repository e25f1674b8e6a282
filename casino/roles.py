"""Staff roles, as Django groups: who may do what in the back-office.

- ``dealer``: enters hands, only at the table of his open shift.
- ``pit_supervisor``: opens and closes shifts, relieves dealers and sets each pit's
  rotation plan, changes the bank, voids hands; opens and decides patrons' disputes of
  hands, records incidents at the tables.
- ``cashier``: buy-ins, cash-outs, statements, bank capital.
- ``cage_supervisor``: the cage's supervisor: voids a cashier's slip and co-signs a
  cashier's drawer at its close (never his own).
- ``auditor``: reads everything, changes nothing; starts reports.
- ``compliance_officer``: reads the anti-money-laundering register, reviews its alerts.
- ``admin``: configuration (Django admin); a superuser has every role.
"""

from functools import wraps

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.utils.text import format_lazy
from django.utils.translation import gettext_lazy as _

DEALER = "dealer"
PIT_SUPERVISOR = "pit_supervisor"
CASHIER = "cashier"
CAGE_SUPERVISOR = "cage_supervisor"
AUDITOR = "auditor"
ADMIN = "admin"
COMPLIANCE = "compliance_officer"
ROLES = (DEALER, PIT_SUPERVISOR, CASHIER, CAGE_SUPERVISOR, AUDITOR, ADMIN, COMPLIANCE)
#: Each role as its holders call it, in the reader's language.
ROLE_LABELS = {DEALER: _("dealer"), PIT_SUPERVISOR: _("pit supervisor"), CASHIER: _("cashier"),
               CAGE_SUPERVISOR: _("cage supervisor"), AUDITOR: _("auditor"), ADMIN: _("administrator"),
               COMPLIANCE: _("compliance officer")}


def _labels(roles):
    return ", ".join(str(ROLE_LABELS[role]) for role in roles) or str(_("none"))


def roles_of(user):
    """The set of role names a user holds (every role for a superuser; none if anonymous).

    A request's user (``casino.auth.RoleAwareBackend``) was read with his roles: the
    ``role_names`` annotation of his raw query. Any other user's are read from his groups
    (a query each time)."""
    if not user.is_authenticated:
        return frozenset()
    if user.is_superuser:
        return frozenset(ROLES)
    names = getattr(user, "role_names", None)
    return frozenset(user.groups.values_list("name", flat=True) if names is None else names)


def has_role(user, *roles):
    """True if the user holds any of ``roles``."""
    return bool(roles_of(user).intersection(roles))


def role_required(*roles, read_roles=()):
    """View decorator: the user must hold one of ``roles``; on GET/HEAD, one of
    ``read_roles`` also suffices (an auditor reads but never posts).

    Anonymous users are sent to the login page; others without the role get 403.
    """
    def decorator(view):
        @wraps(view)
        def wrapper(request, *args, **kwargs):
            if not request.user.is_authenticated:
                return redirect_to_login(request.get_full_path())
            allowed = roles + (read_roles if request.method in ("GET", "HEAD") else ())
            if not has_role(request.user, *allowed):
                raise PermissionDenied(format_lazy(
                    _("This page is for: {allowed}. Your roles: {held}."), allowed=_labels(allowed),
                    held=_labels(sorted(roles_of(request.user), key=ROLES.index))))
            return view(request, *args, **kwargs)
        return wrapper
    return decorator


def ensure_role_groups():
    """Create the role groups if missing; returns ``{name: Group}``."""
    from django.contrib.auth.models import Group

    return {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
