"""Authentication: Django's ModelBackend, reading a user and his roles in one statement."""

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection


class RoleAwareBackend(ModelBackend):
    """``ModelBackend`` whose ``get_user`` (every request of a logged-in user) reads the
    user with the names of his groups — his roles — in one statement (``Manager.raw``),
    which ``casino.roles.roles_of`` reads (the ``role_names`` annotation) instead of a query
    of its own.

    Its measured gain: in-process, the user and his roles cost 0.25 ms so, 0.75–0.90 ms
    through the ORM in one statement (``annotate`` with an ``ArraySubquery``), 0.80 ms with
    ``ModelBackend.get_user`` and a query of the groups, 1.96 ms with the groups
    prefetched (2026-11-24, medians of five runs of 600); on ``benchmarks/console.py``'s
    entries the ORM's one statement took 15% of the server's samples per entry (py-spy:
    1.33 per entry against 0.28 for this read), the prefetch about a fifth."""

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
