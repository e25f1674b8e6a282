"""An entry's hand and table: one composite foreign key, (hand, table) to the hand's (id,
table) (migration ``tables.0013_entry_hand_table_key``), checked at COMMIT like Django's
keys (here forced at once with ``connection.check_constraints()``, which sets them
IMMEDIATE as a COMMIT would check them).

An entry's table must be its hand's, and its hand must exist; whatever writes it (the
console's INSERT, an import's COPY).
"""

import pytest
from django.db import IntegrityError, connection, transaction

from tables.models import Hand, HandEvent, Table
from tests.factories import TableFactory
from tests.tables.test_number_guards import COLUMNS, P01, copy_entries, entry_rows


@pytest.fixture
def first(mesa):
    """Mesa 1's hand #1, settled (11 entries)."""
    return mesa.play(mesa.open("luis", "marta"), *P01)


def refused_at_commit(write):
    """``write()`` passes its statement but is refused by the key when checked (as at
    COMMIT); nothing of it stays."""
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        write()
        connection.check_constraints()
    assert "tables_event_hand_table_fk" in str(caught.value)


def test_an_entry_at_another_table_than_its_hands_is_refused(first):
    other = TableFactory(name="Mesa 2")
    row = entry_rows(first, 12)[0]
    refused_at_commit(lambda: copy_entries((other.pk, *row[1:])))
    assert first.events.count() == 11 and not HandEvent.objects.filter(table=other).exists()


def test_an_entry_of_a_hand_or_table_that_does_not_exist_is_refused(first):
    row = entry_rows(first, 1)[0]
    missing_hand = Hand.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000
    missing_table = Table.objects.order_by("-pk").values_list("pk", flat=True).first() + 1000

    def insert(values):
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO tables_handevent ({', '.join(COLUMNS)}) "
                           "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", values)

    refused_at_commit(lambda: insert((row[0], missing_hand, *row[2:])))
    refused_at_commit(lambda: insert((missing_table, first.pk, *entry_rows(first, 12)[0][2:])))
    assert first.events.count() == 11


def test_an_entry_of_its_hands_table_is_accepted(first):
    with transaction.atomic():
        copy_entries(*entry_rows(first, 12, 13))
        connection.check_constraints()
    assert list(first.events.values_list("sequence", flat=True))[-2:] == [12, 13]
    assert set(first.events.values_list("table_id", flat=True)) == {first.table_id}
