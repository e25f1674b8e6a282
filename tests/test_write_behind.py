"""``casino.write_behind.WriteBehind``: writes sent on a second thread, on the caller's
connection and in its transaction, the caller's own statements kept after them, and a
writer's error raised to the caller."""

import threading

import pytest
from django.db import DataError, connection, transaction

from casino.bulk import Statement, rows_copy
from casino.write_behind import WriteBehind


@pytest.fixture
def scratch(db):
    """A temporary table of the test's database session: visible only on that
    connection, so only a writer that shares it can fill it."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE scratch (n integer NOT NULL)")
    return "scratch"


def count(table):
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT count(*), coalesce(sum(n), 0) FROM {table}")
        return cursor.fetchone()


class Seen:
    """A write that records the thread and the database session it was sent on."""

    def send(self):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            self.pid = cursor.fetchone()[0]
        self.thread = threading.current_thread()


def test_writes_go_on_another_thread_on_the_callers_connection_and_before_its_next_statement(scratch):
    seen = Seen()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    with WriteBehind() as writer:
        writer.send([rows_copy(scratch, ["n"], [(1,), (2,)]), Statement("INSERT INTO scratch VALUES (%s)", [4]),
                     None, seen])
        assert count(scratch) == (3, 7)  # waited for the writer: everything it was sent is there
        writer.send([rows_copy(scratch, ["n"], [(8,)])])
    assert count(scratch) == (4, 15)
    assert seen.thread is not threading.current_thread() and seen.pid == pid


def test_what_the_writer_wrote_rolls_back_with_the_callers_transaction(scratch):
    with pytest.raises(ZeroDivisionError), transaction.atomic(), WriteBehind() as writer:
        writer.send([rows_copy(scratch, ["n"], [(1,), (2,)])])
        1 / 0  # noqa: B018 - the caller fails while the writer writes
    assert count(scratch) == (0, 0)


def test_a_writers_error_is_raised_on_the_callers_next_statement_and_the_transaction_rolls_back(scratch):
    with pytest.raises(DataError), transaction.atomic(), WriteBehind() as writer:
        writer.send([rows_copy(scratch, ["n"], [(1,)]), rows_copy(scratch, ["n"], [("many",)])])
        count(scratch)  # raises the writer's error, before it is sent
    assert count(scratch) == (0, 0)


def test_a_writers_error_is_raised_on_leaving_the_block_at_the_latest(scratch):
    with pytest.raises(DataError), transaction.atomic(), WriteBehind() as writer:
        writer.send([rows_copy(scratch, ["n"], [("many",)])])
    assert count(scratch) == (0, 0)
    with WriteBehind():  # the connection is free for the next one
        assert count(scratch) == (0, 0)
