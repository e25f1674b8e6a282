"""Authentication: Django's ModelBackend, reading a user and his roles in one query."""

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.db import connection
from django.db.models import Q


class RoleAwareBackend(ModelBackend):
    """``ModelBackend`` whose ``get_user`` (every request of a logged-in user) also reads
    the names of his groups — his roles — in the same query on PostgreSQL, so that
    ``casino.roles.roles_of`` needs no query of its own."""

    def get_user(self, user_id):
        users = get_user_model()._default_manager
        if connection.vendor == "postgresql":
            from django.contrib.postgres.aggregates import ArrayAgg

            users = users.annotate(role_names=ArrayAgg("groups__name", distinct=True,
                                                       filter=Q(groups__isnull=False)))
        try:
            user = users.get(pk=user_id)
        except get_user_model().DoesNotExist:
            return None
        if hasattr(user, "role_names"):
            user._role_names = frozenset(user.role_names or ())
        return user if self.user_can_authenticate(user) else None
