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
