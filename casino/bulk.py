"""Rows inserted with PostgreSQL's ``COPY ... FROM STDIN`` (psycopg 3's ``cursor.copy``): an
import's hands, entries, bets and postings.

``COPY`` fires every row and statement trigger and checks every constraint as ``INSERT``
does (PostgreSQL's manual, "COPY": "COPY FROM will invoke any triggers and check
constraints on the destination table"): the money's triggers stay in force.

``COPY`` replaced ``bulk_create``, whose ``UNNEST`` arrays escaped each text in Python and
made a model instance per ledger entry (benchmarks/RESULTS.md).

Rows are formatted where they are known (``rows_copy``, ``instances_copy``: a ``CopyIn``,
PostgreSQL's COPY text made by psycopg's own formatter, no I/O) and sent when the batch
writes them (``CopyIn.send``, ``send_all``); ``copy_rows`` does both at once. Within a
``SendQueue``, ``send_later`` sends them without waiting for the server to finish each, on
the same thread and connection.
"""

import io
import json
import select
import time
from collections import deque
from typing import NamedTuple

import orjson
from django.db import connection, models
from psycopg import ClientCursor, pq
from psycopg.copy import Copy, FileWriter
from psycopg.errors import error_from_result

__all__ = ["CopyIn", "IdPool", "SendQueue", "Statement", "copy_rows", "instances_copy", "json_text", "rows_copy",
           "send_all", "send_later", "take_ids", "take_ids_each", "take_one_id_each"]


def json_text(value) -> str:
    """``value`` as JSON text for a ``jsonb`` column that ``copy_rows`` fills.

    orjson's, or ``json``'s where orjson refuses (an integer past 64 bits, a key that is
    not a string): PostgreSQL parses either into the same ``jsonb``. Not for what is
    signed (``tables.chain.entry_body`` keeps ``json``'s exact text). orjson: several times
    faster than ``json`` here (benchmarks/RESULTS.md).

    Raises:
        TypeError: ``value`` holds what JSON cannot (as ``json.dumps``).
    """
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        return json.dumps(value)


class CopyIn(NamedTuple):
    """Rows made ready for one ``COPY table (columns) FROM STDIN``: ``data``, PostgreSQL's
    COPY text of the rows (``rows_copy``), sent by ``send``."""

    table: str
    columns: list[str]
    data: bytes

    @property
    def sql(self) -> str:
        """The ``COPY ... FROM STDIN`` statement."""
        return f"COPY {self.table} ({', '.join(self.columns)}) FROM STDIN"

    def send(self) -> None:
        """Insert the rows with one ``COPY`` on the current thread's connection (after the
        writes a ``SendQueue`` holds, if one is open).

        The statement is logged with Django's queries when they are (``CaptureQueriesContext``:
        the benchmark's statement counts include it). Raises the database's error (a trigger's
        or a constraint's refusal) as ``django.db.Error`` subclasses, like any statement.
        """
        _drain_queue()
        sql = self.sql
        started = time.monotonic()
        with connection.cursor() as cursor, connection.wrap_database_errors:
            with cursor.cursor.copy(sql) as copy:
                copy.write(self.data)
        if connection.queries_logged:
            connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})


class Statement(NamedTuple):
    """One SQL statement made ready (its parameters computed), sent by ``send``: a step
    among ``CopyIn``s (``send_all``)."""

    sql: str
    params: object

    def send(self) -> None:
        """Execute it on the current thread's connection (after the writes a ``SendQueue``
        holds, if one is open: Django's statements wait for them)."""
        with connection.cursor() as cursor:
            cursor.execute(self.sql, self.params)


def send_all(writes) -> None:
    """Send ``writes`` (``CopyIn``, ``Statement``, None for nothing), in order."""
    for write in writes:
        if write is not None:
            write.send()


def send_later(writes) -> None:
    """``writes`` (``CopyIn``, ``Statement``, None for nothing) sent in order without waiting
    for them: queued on the ``SendQueue`` open on the connection, after what it holds
    (the first started at once). Without one, ``send_all``: sent now.

    Raises the database's error of a write sent before (``SendQueue``)."""
    queue = getattr(connection, "send_queue", None)
    if queue is None:
        send_all(writes)
    else:
        queue.add(write for write in writes if write is not None)


def _drain_queue():
    queue = getattr(connection, "send_queue", None)
    if queue is not None:
        queue.drain()


class SendQueue:
    """Writes (``CopyIn``, ``Statement``) sent on the current thread's connection, in order,
    each after the one before has ended, while the caller goes on: ``with SendQueue() as
    queue:`` inside the caller's transaction, ``send_later(writes)`` queues them (and
    starts the first), ``pump()`` — called between the caller's units of work — starts the
    next once the server has ended one, without ever blocking, and ``drain()`` waits for
    all of them. One thread: libpq's asynchronous calls (``psycopg.pq``: a query sent,
    its result read later), never a second thread in the transaction.

    Order is kept: every statement sent through Django while the queue holds writes
    (an execute wrapper: savepoints included), and every ``CopyIn.send``, drains it
    first; leaving the block drains it (before the caller's COMMIT). A ``COPY`` is
    started when its turn comes and its rows put in libpq's buffer when the server asks
    for them, flushed as the socket takes them; a ``Statement``'s parameters are merged into its text by
    psycopg (``ClientCursor.mogrify``), since a query sent without waiting is sent whole.

    Raises (from ``send_later``, ``pump``, ``drain``, the caller's next statement, or
    leaving the block): the database's error of a write (a trigger's or a constraint's
    refusal) as ``django.db.Error`` subclasses, once, the connection ready for the
    caller's ROLLBACK; the writes queued after it are dropped (the transaction is
    aborted). Leaving the block on an exception finishes the write under way, drops the
    others and raises nothing more.
    """

    def __init__(self):
        self.waiting = deque()  # writes not started yet
        self.current = None  # (write, its SQL, started at) while the server has it
        self.error = None  # the database's error of the current write, raised once it has ended
        self.pgconn = None

    def __enter__(self):
        if getattr(connection, "send_queue", None) is not None:
            raise RuntimeError("a SendQueue is already open on this connection")
        connection.ensure_connection()
        self.pgconn = connection.connection.pgconn
        connection.send_queue = self
        self._wrapping = connection.execute_wrapper(self._before_statement)
        self._wrapping.__enter__()
        return self

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.drain()
            else:
                self.waiting.clear()
                try:
                    self.drain()
                except Exception:  # noqa: BLE001, S110 - the error in flight rolls the transaction back
                    pass
        finally:
            self._wrapping.__exit__(exc_type, exc, tb)
            connection.send_queue = None
        return False

    def _before_statement(self, execute, sql, params, many, context):
        self.drain()
        return execute(sql, params, many, context)

    def add(self, writes) -> None:
        """Queue ``writes`` after those held; start the first if the connection is free."""
        self.waiting.extend(writes)
        self.pump()

    def pump(self) -> None:
        """Move the queue on without blocking: read what the server has answered, start
        the next write whenever one has ended. Raises a write's database error."""
        while self.current is not None or self.waiting:
            if self.current is None:
                self._start(self.waiting.popleft())
            elif not self._progress():
                return

    def drain(self) -> None:
        """Wait until every write queued has ended. Raises a write's database error."""
        while self.current is not None or self.waiting:
            self.pump()
            if self.current is not None:
                self._wait()

    def _start(self, write):
        if isinstance(write, CopyIn):
            sql = write.sql
        else:
            sql = ClientCursor(connection.connection).mogrify(write.sql, write.params)
        self.pgconn.send_query(sql.encode())
        self.current = (write, sql, time.monotonic())
        self._progress()

    def _progress(self) -> bool:
        """Flush what libpq holds and read what the server sent, without blocking (a
        ``COPY``'s rows and their end put in libpq's buffer as soon as the server asks for
        them). True when the current write has ended."""
        pgconn = self.pgconn
        pgconn.flush()
        pgconn.consume_input()
        while not pgconn.is_busy():
            result = pgconn.get_result()
            if result is None:
                self._ended()
                return True
            if result.status == pq.ExecStatus.COPY_IN:
                pgconn.put_copy_data(self.current[0].data)
                pgconn.put_copy_end()
                pgconn.flush()
            elif result.status == pq.ExecStatus.FATAL_ERROR and self.error is None:
                self.error = error_from_result(result, encoding=connection.connection.info.encoding)
        return False

    def _ended(self):
        _write, sql, started = self.current
        self.current = None
        if connection.queries_logged:
            connection.queries_log.append({"sql": sql, "time": f"{time.monotonic() - started:.3f}"})
        if self.error is not None:
            error, self.error = self.error, None
            self.waiting.clear()
            with connection.wrap_database_errors:
                raise error

    def _wait(self):
        """Block until the socket can be read (or written, while libpq holds data to send)."""
        fd = self.pgconn.socket
        select.select([fd], [fd] if self.pgconn.flush() else [], [])


def rows_copy(table: str, columns: list[str], rows) -> CopyIn:
    """``rows`` (tuples of Python values, in ``columns``' order: ``None`` for NULL, ``str``
    for a ``jsonb`` column's JSON text) as a ``CopyIn``, formatted now by psycopg's COPY
    formatter (``psycopg.copy.Copy`` over a ``FileWriter``: "to produce COPY data without
    sending it", psycopg's documentation), nothing sent.

    It reads the connection's client encoding.
    """
    connection.ensure_connection()
    buffer = io.BytesIO()
    with Copy(connection.connection.cursor(), writer=FileWriter(buffer)) as copy:
        for row in rows:
            copy.write_row(row)
    return CopyIn(table, columns, buffer.getvalue())


def copy_rows(table: str, columns: list[str], rows) -> None:
    """Insert ``rows`` into ``table`` with one ``COPY`` now: ``rows_copy(...).send()``."""
    rows_copy(table, columns, rows).send()


def take_ids(model, count: int) -> list[int]:
    """``count`` new primary keys of ``model``'s table, ascending, from its sequence
    (``nextval``), in one statement: for rows made in memory and copied in later (a bank
    passed in an import: its tenure and account), whose ids other rows need first
    (``take_ids_each`` of one table).

    Ids taken and never used are gaps, as a rolled-back ``INSERT`` leaves.
    """
    return [pk for (pk,) in take_ids_each(model, count=count)]


def take_one_id_each(*models) -> list[int]:
    """One new primary key of each of ``models``' tables, in their order, from their
    sequences in one statement (``take_ids_each`` once: rows made together, a bank passed,
    its tenure and its account)."""
    return list(take_ids_each(*models, count=1)[0])


def take_ids_each(*models, count: int) -> list[tuple[int, ...]]:
    """``count`` tuples of new primary keys, one of each of ``models``' tables in their
    order, taken from their sequences in one statement (the banks an import's batch
    expects to pass, each a tenure and its account; ``take_ids`` and ``take_one_id_each``
    are its one-table and one-row cases). Each table's ids ascend down the list; those never used are gaps, as
    ``take_ids``'.
    """
    if count <= 0:
        return []
    with connection.cursor() as cursor:
        cursor.execute("SELECT " + ", ".join(["nextval(pg_get_serial_sequence(%s, 'id'))"] * len(models))
                       + " FROM generate_series(1, %s)", [*(model._meta.db_table for model in models), count])
        rows = cursor.fetchall()
    return list(zip(*(sorted(column) for column in zip(*rows, strict=True)), strict=True))


class IdPool:
    """Primary keys of one table taken ahead from its sequence, many at a time, so that rows
    copied in (which ``COPY`` cannot return ids for) get theirs in memory first.

    A sequence never goes back (not even when the transaction rolls back): the ids taken
    and not used are gaps, as a rolled-back ``INSERT`` leaves. Nothing reads ids as a count.
    """

    def __init__(self, model, chunk: int = 0):
        self.model, self.chunk, self.free = model, chunk, []

    def take(self, count: int) -> list[int]:
        """``count`` new ids, ascending (one statement whenever the pool runs dry; it then
        takes at least ``chunk``)."""
        if count > len(self.free):
            self.free += take_ids(self.model, max(self.chunk, count - len(self.free)))
        taken, self.free = self.free[:count], self.free[count:]
        return taken


def _reader(field):
    """A function reading ``field``'s value of an instance as ``COPY`` takes it."""
    attname = field.attname
    if isinstance(field, models.JSONField):
        encoder = field.encoder
        if encoder is None:
            return lambda obj: None if (v := obj.__dict__[attname]) is None else json_text(v)
        return lambda obj: None if (v := obj.__dict__[attname]) is None else json.dumps(v, cls=encoder)
    if field.is_relation:
        # A relation set to an instance saved (or given its id) since: its id, as save() reads it.
        def related(obj):
            value = obj.__dict__[attname]
            if value is None and field.is_cached(obj):
                target = field.get_cached_value(obj)
                value = None if target is None else target.pk
            return value
        return related
    if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
        raise TypeError(f"{field} is set by pre_save: not copied by casino.bulk")
    return lambda obj: obj.__dict__[attname]


def instances_copy(model, objs, ids: IdPool | None = None) -> CopyIn | None:
    """The unsaved ``objs`` of ``model`` as a ``CopyIn`` (None for none), every concrete
    field as the instance holds it now (defaults were applied when it was made; a
    ``db_default`` column is the database's to fill). With
    ``ids``, each gets its primary key from the pool first (set on the instance, which
    then counts as saved); without, instances whose ``pk`` was set (``take_ids``) keep it,
    and the others are numbered by the database (they keep ``pk`` None): all or none of
    them. Later changes to the instances are not copied."""
    objs = list(objs)
    if not objs:
        return None
    keep = ids is not None or objs[0].pk is not None
    # A column only the database fills (``db_default`` and no Python default, e.g. the posting's
    # transaction id) is left to it.
    fields = [f for f in model._meta.concrete_fields
              if (keep or not f.primary_key) and (f.db_default is models.NOT_PROVIDED or f.has_default())]
    if ids is not None:
        for obj, pk in zip(objs, ids.take(len(objs)), strict=True):
            obj.pk = pk
    readers = [_reader(f) for f in fields]
    copy = rows_copy(model._meta.db_table, [connection.ops.quote_name(f.column) for f in fields],
                     (tuple(read(obj) for read in readers) for obj in objs))
    for obj in objs:
        obj._state.adding, obj._state.db = False, connection.alias
    return copy
