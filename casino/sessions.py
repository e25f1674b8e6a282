"""Django's database sessions, read by one SQL statement written once.

Every request of a logged-in user reads his session. Django's ``db`` backend asks the ORM,
which compiles the query each time; on PostgreSQL this backend sends the same SELECT as
written SQL, which psycopg prepares once per connection (``DATABASE_PREPARE_THRESHOLD``).
Everything else — saving, expiry, rotation, ``clearsessions`` — is Django's.
"""

from django.contrib.sessions.backends.db import SessionStore as DatabaseSessionStore
from django.db import connections, router
from django.utils import timezone


class SessionStore(DatabaseSessionStore):
    """``django.contrib.sessions.backends.db.SessionStore`` with a written-once read."""

    def _get_session_from_db(self):
        """The unexpired ``Session`` row of ``session_key`` (only its key and data
        loaded), or None (and the key forgotten, as Django's backend does)."""
        connection = connections[router.db_for_read(self.model)]
        if connection.vendor != "postgresql":
            return super()._get_session_from_db()
        table = connection.ops.quote_name(self.model._meta.db_table)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT session_data FROM {table} WHERE session_key = %s AND expire_date > %s",
                           [self.session_key, timezone.now()])
            row = cursor.fetchone()
        if row is None:
            self._session_key = None
            return None
        return self.model(session_key=self.session_key, session_data=row[0])
