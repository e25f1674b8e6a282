"""The privilege changes PostgreSQL recorded (``casino.models.PrivilegeChange``), read for
the auditor: by ``manage.py ledger_check`` and on the privileges page.

A lock-out record of django-axes deleted once its cool-off had passed is django-axes'
own clean-up (it deletes expired attempts at each login), not a reset: it is counted apart
(``expired``), so that the list shows what someone did.
"""

from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.db.models import BooleanField
from django.db.models.expressions import RawSQL
from django.utils.translation import gettext as _

from casino.models import PrivilegeChange
from casino.roles import ROLE_LABELS

LOCKOUT_TABLE = "axes_accessattempt"


@dataclass(frozen=True)
class PrivilegeLine:
    """One change in the reader's words: ``change`` (the record), ``what`` (a sentence),
    ``by`` (the app's user, else the database role), ``expired`` (an expired lock-out
    record cleaned up by django-axes)."""

    change: PrivilegeChange
    what: str
    by: str
    expired: bool


def _flags(values: dict | None) -> str:
    if not values:
        return "—"
    names = [("is_superuser", _("superuser")), ("is_staff", _("staff")), ("is_active", _("active"))]
    held = [label for key, label in names if values.get(key)]
    return ", ".join(held) or _("no flag")


def describe(change: PrivilegeChange) -> str:
    """A sentence saying what ``change`` did, in the reader's language."""
    before, after = change.before or {}, change.after or {}
    if change.table_name == "auth_user":
        if change.operation == "INSERT":
            return _("user %(user)s created with: %(flags)s") % {"user": change.subject, "flags": _flags(after)}
        if change.operation == "DELETE":
            return _("user %(user)s deleted (had: %(flags)s)") % {"user": change.subject, "flags": _flags(before)}
        text = _("user %(user)s: %(before)s → %(after)s") % {"user": change.subject, "before": _flags(before),
                                                           "after": _flags(after)}
        if before.get("username") != after.get("username"):
            text += " · " + _("renamed from %(old)s") % {"old": before.get("username")}
        return text
    if change.table_name == LOCKOUT_TABLE:
        if change.operation == "DELETE":
            return _("lock-out record of %(who)s deleted (%(failures)s failures)") % {
                "who": change.subject, "failures": before.get("failures")}
        return _("lock-out record of %(who)s: failures %(before)s → %(after)s") % {
            "who": change.subject, "before": before.get("failures"), "after": after.get("failures")}
    granted, revoked = after or None, before or None
    def thing(values):  # a staff role in the reader's words (casino.roles), else as recorded
        group = values.get("group")
        return str(ROLE_LABELS.get(group, group)) if group else values.get("permission") or str(values)

    if change.operation == "INSERT":
        return _("%(who)s given %(what)s") % {"who": change.subject, "what": thing(granted)}
    if change.operation == "DELETE":
        return _("%(who)s no longer has %(what)s") % {"who": change.subject, "what": thing(revoked)}
    return _("%(who)s: grant rewritten (%(table)s)") % {"who": change.subject, "table": change.table_name}


def privilege_changes(*, expired: bool = False):
    """The recorded privilege changes, newest first, each annotated ``expired`` (a
    lock-out record django-axes deleted once its cool-off had passed).

    Args:
        expired: keep those clean-ups too (else they are left out).
    Returns:
        a QuerySet of ``casino.models.PrivilegeChange``.
    """
    cooloff = getattr(settings, "AXES_COOLOFF_TIME", None) or timedelta(0)
    changes = PrivilegeChange.objects.annotate(expired=RawSQL(
        "(table_name = %s AND operation = 'DELETE' AND before ? 'attempt_time' "
        "AND (before->>'attempt_time')::timestamptz + %s <= at)", [LOCKOUT_TABLE, cooloff],
        output_field=BooleanField())).order_by("-at", "-id")
    return changes if expired else changes.filter(expired=False)


def line(change: PrivilegeChange) -> PrivilegeLine:
    """``change`` (from ``privilege_changes``) in words."""
    return PrivilegeLine(change=change, what=describe(change), by=change.actor or change.db_role,
                         expired=bool(getattr(change, "expired", False)))
