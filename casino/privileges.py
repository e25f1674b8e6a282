"""Who in the app made a privilege change: the user of the request, told to PostgreSQL.

The triggers of ``casino/sql/0002_privilege_changes.sql`` record every change of a user's
flags, groups and permissions and every lock-out record deleted, with the database role
that made it; the app's user is the setting ``casino.actor`` of the transaction, which the
signal handlers here set just before Django writes such a change (a user saved, a
many-to-many of groups or permissions changed, a lock-out record deleted), from the request
``PrivilegeActorMiddleware`` saw. A change made outside a request (a command, SQL) is
recorded with no actor: its database role says who connected.
"""

from contextvars import ContextVar

from django.db import connection

#: ``"<username> (#<id>)"`` of the request being served, or None.
_actor: ContextVar[str | None] = ContextVar("casino_privilege_actor", default=None)


class PrivilegeActorMiddleware:
    """Keep the request's authenticated user for the privilege-change triggers (after
    ``AuthenticationMiddleware``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        user = getattr(request, "user", None)
        name = f"{user.get_username()} (#{user.pk})" if user is not None and user.is_authenticated else None
        token = _actor.set(name)
        try:
            return self.get_response(request)
        finally:
            _actor.reset(token)


def tell_database(**_kwargs) -> None:
    """Set ``casino.actor`` to the request's user for the write about to happen: for the
    transaction when there is one (``set_config(..., true)``), else for the session until
    ``forget`` clears it after the write. Connected to the signals in ``casino.apps``."""
    name = _actor.get()
    if name is None:
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('casino.actor', %s, %s)", [name, connection.in_atomic_block])


def forget(**_kwargs) -> None:
    """Clear a session-wide ``casino.actor`` after an autocommit write (``tell_database``)."""
    if _actor.get() is not None and not connection.in_atomic_block:
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('casino.actor', '', false)")


def on_m2m(action, **kwargs) -> None:
    """``m2m_changed``: tell before a grant is added, removed or cleared, forget after."""
    if action.startswith("pre_"):
        tell_database(**kwargs)
    else:
        forget(**kwargs)
