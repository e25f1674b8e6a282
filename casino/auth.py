"""Authentication: Django's ModelBackend, reading a user and his roles in one query."""

import functools

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection

from casino.rows import row_loader, select_list


class RoleAwareBackend(ModelBackend):
    """``ModelBackend`` whose ``get_user`` (every request of a logged-in user) also reads
    the names of his groups — his roles — in the same query on PostgreSQL, so that
    ``casino.roles.roles_of`` needs no query of its own. The query is written once, not
    compiled by the ORM on every request (psycopg prepares it once per connection)."""

    def get_user(self, user_id):
        """The active user ``user_id`` with ``_role_names`` (a frozenset of group names)
        on PostgreSQL, else as ``ModelBackend`` reads him; None if there is none."""
        if connection.vendor != "postgresql":
            return super().get_user(user_id)
        sql, load = _user_with_roles_sql()
        with connection.cursor() as cursor:
            cursor.execute(sql, [user_id])
            row = cursor.fetchone()
        if row is None:
            return None
        user = load(row[:-1])
        user._role_names = frozenset(row[-1])
        return user if self.user_can_authenticate(user) else None


@functools.cache
def _user_with_roles_sql():
    model = get_user_model()
    fields, columns = select_list(model, "u")
    groups = model._meta.get_field("groups")
    through = groups.remote_field.through._meta
    group = groups.related_model._meta
    quote = connection.ops.quote_name
    user_column = groups.m2m_column_name()
    group_column = groups.m2m_reverse_name()
    sql = (f"SELECT {columns}, ARRAY(SELECT g.{quote('name')} FROM {quote(through.db_table)} ug "
           f"JOIN {quote(group.db_table)} g ON g.{quote(group.pk.column)} = ug.{quote(group_column)} "
           f"WHERE ug.{quote(user_column)} = u.{quote(model._meta.pk.column)}) "
           f"FROM {quote(model._meta.db_table)} u WHERE u.{quote(model._meta.pk.column)} = %s")
    return sql, row_loader(model, fields)
