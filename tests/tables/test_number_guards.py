"""PostgreSQL's own guards on hand numbers and entry sequences (``tables/sql/0002_guards.sql``):
checked once per statement, over all its rows,
whatever writes them (the ORM's INSERT of many rows, an import's COPY, raw SQL).

A table's hands are numbered 1, 2, 3… and a hand's entries 1, 2, 3…, with no gap and no
repeat; a statement may bring many of them, for several tables or hands at once.
"""

import uuid
from datetime import UTC, datetime

import pytest
from django.db import IntegrityError, connection, transaction

from casino.bulk import copy_rows
from tables.models import Hand, HandEvent, Table
from tests.factories import TableFactory

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def hands_like(hand, *numbers, table=None):
    """Unsaved hands like ``hand`` (its tenure, bank, rules), numbered ``numbers``; voided, since
    a table has one open hand at most (``tables_one_open_hand_per_table``)."""
    return [Hand(table=table or hand.table, number=number, tenure=hand.tenure, bank=hand.bank, seats=hand.seats,
                 rules=hand.rules, min_bet=hand.min_bet, max_bet=hand.max_bet, status=Hand.Status.VOIDED,
                 void_reason="numbering test")
            for number in numbers]


def refused(message, write):
    """``write()`` is refused by the database with ``message``; nothing of it stays."""
    with pytest.raises(IntegrityError) as caught, transaction.atomic():
        write()
    assert message in str(caught.value)


@pytest.fixture
def first(mesa):
    """Mesa 1's hand #1, settled (11 entries)."""
    return mesa.play(mesa.open("luis", "marta"), *P01)


def test_hands_written_many_at_a_time_must_follow_the_tables_last_number(first):
    refused(f"hand number 3 at table {first.table_id}: the next hand is number 2",
            lambda: Hand.objects.bulk_create(hands_like(first, 3)))
    refused(f"hand number 5 at table {first.table_id}: the next hand is number 4",
            lambda: Hand.objects.bulk_create(hands_like(first, 2, 3, 5)))
    refused(f"hand number 4 at table {first.table_id}: the next hand is number 3",  # in any order
            lambda: Hand.objects.bulk_create(hands_like(first, 4, 2)))
    with pytest.raises(IntegrityError), transaction.atomic():  # a number twice: the unique constraint
        Hand.objects.bulk_create(hands_like(first, 2, 2))
    with pytest.raises(IntegrityError), transaction.atomic():  # one already there
        Hand.objects.bulk_create(hands_like(first, 1, 2))
    assert list(first.table.hands.values_list("number", flat=True)) == [1]

    Hand.objects.bulk_create(hands_like(first, 2, 3, 4))
    assert sorted(first.table.hands.values_list("number", flat=True)) == [1, 2, 3, 4]


def test_a_tables_first_hand_is_number_one_and_each_table_is_checked_on_its_own(first):
    other = TableFactory(name="Mesa 2")
    refused(f"hand number 2 at table {other.pk}: the next hand is number 1",
            lambda: Hand.objects.bulk_create(hands_like(first, 2, table=other)))
    refused(f"hand number 3 at table {other.pk}: the next hand is number 2",  # Mesa 1's 2 is fine
            lambda: Hand.objects.bulk_create(hands_like(first, 2) + hands_like(first, 1, 3, table=other)))
    Hand.objects.bulk_create(hands_like(first, 1, 2, table=other) + hands_like(first, 2))
    assert sorted(Table.objects.get(pk=other.pk).hands.values_list("number", flat=True)) == [1, 2]
    assert sorted(first.table.hands.values_list("number", flat=True)) == [1, 2]


def entry_rows(hand, *sequences):
    """``tables_handevent`` rows of ``hand`` numbered ``sequences`` (hashes made up: the
    chain is the audit's to check, not these guards')."""
    at = datetime.now(UTC)
    return [(hand.table_id, hand.pk, sequence, "event", '{"do": "stand"}', None, at, None, "0" * 64,
             uuid.uuid4().hex * 2, "1") for sequence in sequences]


COLUMNS = ["table_id", "hand_id", "sequence", "kind", "event", "entered_by_id", "entered_at", "form_token",
           "previous_hash", "hash", "key_id"]


def copy_entries(*rows):
    copy_rows(HandEvent._meta.db_table, COLUMNS, rows)


def test_entries_copied_many_at_a_time_must_follow_their_hands_last_entry(first):
    refused(f"entry 13 of hand {first.pk}: the next entry is 12",
            lambda: copy_entries(*entry_rows(first, 13)))
    refused(f"entry 15 of hand {first.pk}: the next entry is 14",
            lambda: copy_entries(*entry_rows(first, 12, 13, 15)))
    with pytest.raises(IntegrityError), transaction.atomic():  # an entry already there
        copy_entries(*entry_rows(first, 11, 12))
    (second,) = Hand.objects.bulk_create(hands_like(first, 2))
    refused(f"entry 2 of hand {second.pk}: the next entry is 1",  # a new hand's first entry is 1
            lambda: copy_entries(*entry_rows(first, 12), *entry_rows(second, 2, 3)))
    assert first.events.count() == 11 and second.events.count() == 0

    copy_entries(*entry_rows(second, 2, 1, 3), *entry_rows(first, 12))  # two hands, any order
    assert list(second.events.values_list("sequence", flat=True)) == [1, 2, 3]
    assert first.events.count() == 12


def test_an_entry_written_alone_is_checked_as_before(first):
    def insert(sequence):
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO tables_handevent ({', '.join(COLUMNS)}) "
                           "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", entry_rows(first, sequence)[0])

    refused(f"entry 14 of hand {first.pk}: the next entry is 12", lambda: insert(14))
    insert(12)
    assert first.events.count() == 12
