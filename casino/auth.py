"""Authentication: Django's ModelBackend, reading a user and his roles in one statement;
django-axes' lock-out counted per user name at an address, and per address at a higher
count (``FloorLockoutHandler``)."""

import functools

from axes.handlers.database import AxesDatabaseHandler
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection
from django.db.models import Sum


class RoleAwareBackend(ModelBackend):
    """``ModelBackend`` whose ``get_user`` (every request of a logged-in user) reads the
    user with the names of his groups — his roles — in one statement (``Manager.raw``),
    which ``casino.roles.roles_of`` reads (the ``role_names`` annotation) instead of a query
    of its own.

    It is the read every request of a logged-in user makes: one raw statement, a fraction
    of the ORM's cost (benchmarks/RESULTS.md, "Measurements behind the code's choices")."""

    def get_user(self, user_id):
        """The active user ``user_id`` with ``role_names`` (a list of group names), or None."""
        user = next(iter(get_user_model()._default_manager.raw(_user_with_roles(), [user_id])), None)
        return user if user is not None and self.user_can_authenticate(user) else None


@functools.cache
def _user_with_roles():
    """The user's row and the names of his groups (``role_names``), by his id."""
    model = get_user_model()
    groups = model._meta.get_field("groups")
    through, group = groups.remote_field.through._meta, groups.related_model._meta
    quote = connection.ops.quote_name
    columns = ", ".join(f"u.{quote(field.column)}" for field in model._meta.concrete_fields)
    return (f"SELECT {columns}, ARRAY(SELECT g.{quote('name')} FROM {quote(through.db_table)} ug "
            f"JOIN {quote(group.db_table)} g ON g.{quote(group.pk.column)} = ug.{quote(groups.m2m_reverse_name())} "
            f"WHERE ug.{quote(groups.m2m_column_name())} = u.{quote(model._meta.pk.column)}) AS role_names "
            f"FROM {quote(model._meta.db_table)} u WHERE u.{quote(model._meta.pk.column)} = %s")


class FloorLockoutHandler(AxesDatabaseHandler):
    """django-axes' database handler with a limit per lock-out parameter.

    ``AXES_LOCKOUT_PARAMETERS`` is ``[["username", "ip_address"], "ip_address"]``: a user
    name is locked at an address after ``AXES_FAILURE_LIMIT`` failures from it (the
    combination), an address for every name only after ``AXES_ADDRESS_FAILURE_LIMIT``
    failures of any names from it. So one person guessing at a shared address (the floor's
    terminals, or every member of staff behind the TLS proxy when the proxy count is
    unset) locks out his own name there, not his colleagues; a script trying many names
    from one address is still stopped. django-axes (8.x) compares one count with one
    limit; this handler gives it that count: the combination's failures, raised to the
    limit once the address alone has reached its own.
    """

    def get_failures(self, request, credentials=None) -> int:
        """The count django-axes compares with ``AXES_FAILURE_LIMIT``: the failures of this
        user name at this address within the cool-off, or ``AXES_FAILURE_LIMIT`` when the
        address's failures (any names) reached ``AXES_ADDRESS_FAILURE_LIMIT``.

        Raises:
            ValueError: ``AXES_LOCKOUT_PARAMETERS`` is not the pair this handler counts.
        """
        parameters = settings.AXES_LOCKOUT_PARAMETERS
        if parameters != [["username", "ip_address"], "ip_address"]:
            raise ValueError("FloorLockoutHandler counts AXES_LOCKOUT_PARAMETERS "
                             "[['username', 'ip_address'], 'ip_address']")
        combination, address = (attempts.aggregate(total=Sum("failures_since_start"))["total"] or 0
                                for attempts in self.get_user_attempts(request, credentials))
        if address >= settings.AXES_ADDRESS_FAILURE_LIMIT:
            return max(combination, settings.AXES_FAILURE_LIMIT)
        return combination
