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
