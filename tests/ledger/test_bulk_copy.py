"""``casino.bulk``: rows copied in (``COPY``) meet the same triggers as rows inserted, and
their refusals are Django's errors; ids taken ahead come from the table's own sequence."""

import pytest
from django.db import IntegrityError, transaction

from casino.bulk import IdPool, copy_rows
from ledger.models import Transaction

pytestmark = pytest.mark.django_db


def test_a_copied_entry_meets_the_ledgers_triggers():
    with pytest.raises(IntegrityError, match="closed: nothing more is posted"), transaction.atomic():
        copy_rows("ledger_entry", ["transaction_id", "account_id", "side", "amount"], [(None, None, "D", 1)])


def test_ids_taken_ahead_are_the_sequences_next_and_ascending():
    pool = IdPool(Transaction)
    first = pool.take(3)
    assert first == sorted(first) and len(set(first)) == 3
    assert pool.take(2)[0] > first[-1]


def test_ids_taken_one_at_a_time_follow_each_sequence():
    from casino.bulk import take_ids, take_one_id_each
    from ledger.models import Account
    from tables.models import BankTenure

    first = take_ids(BankTenure, 2)
    tenure_id, account_id = take_one_id_each(BankTenure, Account)
    assert first == sorted(first) and tenure_id > first[-1]
    assert take_ids(Account, 1)[0] > account_id
    assert take_ids(Account, 0) == []


def test_ids_taken_in_pairs_follow_each_sequence():
    from casino.bulk import take_ids, take_ids_each
    from ledger.models import Account
    from tables.models import BankTenure

    pairs = take_ids_each(BankTenure, Account, count=3)
    assert len(pairs) == 3 and all(len(pair) == 2 for pair in pairs)
    tenures, accounts = [t for t, _a in pairs], [a for _t, a in pairs]
    assert tenures == sorted(tenures) and len(set(tenures)) == 3
    assert accounts == sorted(accounts) and len(set(accounts)) == 3
    assert take_ids(BankTenure, 1)[0] > tenures[-1] and take_ids(Account, 1)[0] > accounts[-1]
    assert take_ids_each(BankTenure, Account, count=0) == []


def test_writes_sent_later_keep_their_order_and_a_statement_waits_for_them():
    from django.db import connection

    from casino.bulk import SendQueue, Statement, rows_copy, send_later

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE queued (n int, at text) ON COMMIT DROP")
        with SendQueue() as queue:
            send_later([rows_copy("queued", ["n", "at"], [(1, "a\tb"), (2, None)]), None,
                        Statement("INSERT INTO queued SELECT n + 2, %(at)s FROM unnest(%(ns)s::int[]) AS n",
                                  {"ns": [1, 2], "at": "it's"})])
            queue.pump()
            cursor.execute("SELECT n, at FROM queued ORDER BY n")  # waits for the queue first
            assert cursor.fetchall() == [(1, "a\tb"), (2, None), (3, "it's"), (4, "it's")]
            assert not queue.waiting and queue.current is None


def test_a_write_sent_later_is_refused_as_django_error_and_those_after_it_are_dropped():
    from django.db import connection

    from casino.bulk import SendQueue, Statement, rows_copy, send_later

    with pytest.raises(IntegrityError, match="closed: nothing more is posted"), transaction.atomic():
        with SendQueue() as queue:
            send_later([rows_copy("ledger_entry", ["transaction_id", "account_id", "side", "amount"],
                                  [(None, None, "D", 1)]),
                        Statement("SELECT 1/0", {})])
            queue.drain()
    with connection.cursor() as cursor:  # the transaction rolled back, the connection ready
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


def test_a_queue_left_on_an_error_finishes_its_write_and_raises_that_error():
    from django.db import connection

    from casino.bulk import SendQueue, Statement, rows_copy, send_later

    with pytest.raises(ZeroDivisionError), transaction.atomic():
        with SendQueue():
            # The write under way is refused only after a while, so that the caller fails
            # first (a refusal answered at once would be raised by send_later itself).
            send_later([Statement("SELECT pg_sleep(0.3); INSERT INTO ledger_entry (transaction_id, account_id, "
                                  "side, amount) VALUES (NULL, NULL, 'D', 1)", {}),
                        rows_copy("ledger_entry", ["transaction_id", "account_id", "side", "amount"],
                                  [(None, None, "D", 1)]),
                        Statement("SELECT 1", {})])
            raise ZeroDivisionError
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
