"""A transaction's rows sent on a second thread while the thread that made them goes on.

An import spends about a third of its time waiting for PostgreSQL: each batch's ``COPY``s
and their key checks. ``WriteBehind`` lets it enter the next records meanwhile: the rows
are made ready on the import's thread (``casino.bulk.rows_copy``: ids taken, COPY text
formatted), and a writer thread only sends them, on the SAME connection, so in the same
transaction (Django's connection shared with it: ``inc_thread_sharing``; psycopg 3's
connections are thread-safe, "Connection objects are thread-safe: more than one thread at
a time can use the same connection", psycopg's documentation, "Concurrent operations").
The writer holds Python's GIL only between its sends: waiting for the server, it leaves
it to the import's thread. Back from each round trip it needs the GIL again, and waits
for it up to Python's switch interval: ``import_hands`` lowers that interval while it
imports (``SWITCH_INTERVAL``).

Order is kept: the import's thread waits for the writer (``idle``) before anything else it
sends, every statement through Django (an execute wrapper) and every COPY formatted
(``rows_copy``); a writer's error is raised there, and the transaction then rolls back
as for any failed statement.

Measured: see ``tables.services._ImportBatch.send`` and ``import_hands.SWITCH_INTERVAL``.
"""

import threading

from django.db import DEFAULT_DB_ALIAS, connections


class WriteBehind:
    """Within ``with WriteBehind():`` (inside the caller's transaction), ``send(writes)``
    sends ``writes`` (``casino.bulk.CopyIn``, ``Statement``) on a writer thread and
    returns at once; ``idle()`` waits for them.

    Raises (from ``send``, ``idle``, the caller's next statement, or leaving the block):
    the error a write raised, once.
    """

    def __init__(self, alias: str = DEFAULT_DB_ALIAS):
        self.alias = alias
        self.connection = connections[alias]
        self.owner = threading.current_thread()
        self.thread = None
        self.error = None
        self._wrapping = None

    def __enter__(self):
        if getattr(self.connection, "write_behind", None) is not None:
            raise RuntimeError("a WriteBehind is already in use on this connection")
        self.connection.ensure_connection()
        self.connection.inc_thread_sharing()
        self.connection.write_behind = self
        self._wrapping = self.connection.execute_wrapper(self._before_statement)
        self._wrapping.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            self.idle(raise_error=exc_type is None)
        finally:
            self._wrapping.__exit__(exc_type, exc, tb)
            self.connection.write_behind = None
            self.connection.dec_thread_sharing()
        return False

    def send(self, writes) -> None:
        """Send ``writes`` (made ready: nothing left to read or format) in order on the
        writer thread, after what was sent before."""
        self.idle()
        writes = [write for write in writes if write is not None]
        if not writes:
            return

        def run():
            connections[self.alias] = self.connection  # this thread's Django connection: the caller's
            try:
                for write in writes:
                    write.send()
            except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
                self.error = error
            finally:
                del connections[self.alias]

        self.thread = threading.Thread(target=run, name="write-behind", daemon=True)
        self.thread.start()

    def idle(self, raise_error: bool = True) -> None:
        """Wait until what was sent is written; then raise its error, if any (unless
        ``raise_error`` is False: the caller is leaving on an error of its own)."""
        if threading.current_thread() is not self.owner:
            return  # the writer's own statements
        thread, self.thread = self.thread, None
        if thread is not None:
            thread.join()
        error, self.error = self.error, None
        if error is not None and raise_error:
            raise error

    def _before_statement(self, execute, sql, params, many, context):
        self.idle()
        return execute(sql, params, many, context)
