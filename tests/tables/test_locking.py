"""The hand read under its table's lock by written SQL (``tables.locking``, the console's
hot path) is the hand the ORM reads: every field of the hand and of the rows read with
it, and its entries in order. What an opening reads under the lock."""

import pytest
from django.db import transaction
from django.forms.models import model_to_dict

from tables import services
from tables.locking import LAST_HAND_FIELDS, hand_entries, lock_hand, lock_table_for_opening
from tables.models import Hand, Table
from tests.factories import TableFactory

pytestmark = pytest.mark.django_db


def _fields(instance):
    """Every concrete field's value, by attribute name (foreign keys as ids)."""
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def _related(hand):
    return [hand, hand.table, hand.bank, hand.tenure, hand.shift, hand.shift.dealer]


def _same_as_the_orm(locked, hand_id):
    hand, entries = locked
    read = Hand.objects.select_related("table", "bank", "tenure", "shift__dealer").get(pk=hand_id)
    for mine, theirs in zip(_related(hand), _related(read), strict=True):
        assert type(mine) is type(theirs)
        assert _fields(mine) == _fields(theirs), type(mine).__name__
        assert mine.__dict__.keys() == theirs.__dict__.keys()
        assert not mine._state.adding and mine._state.db == "default"
    assert hand.shift.table is hand.table
    assert entries == hand_entries(read)
    assert model_to_dict(hand) == model_to_dict(read)


def test_the_locked_read_of_an_open_and_a_settled_hand_is_the_orms(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10",
                     "luis card 2B")
    with transaction.atomic():
        locked = lock_hand(table_id=mesa.table.pk)
        assert locked.hand.pk == hand.pk and len(locked.entries) == 5
        _same_as_the_orm(locked, hand.pk)
    hand = mesa.play(hand, "luis stand", "marta bet 20", "marta card 1O", "marta stand", "bank card 4E",
                     "bank stand")
    assert hand.status == Hand.Status.SETTLED
    with transaction.atomic():
        locked = lock_hand(hand_id=hand.pk)
        assert locked.hand.settlement["players"] and locked.hand.cards  # JSON read back as Python values
        _same_as_the_orm(locked, hand.pk)
        assert lock_hand(table_id=mesa.table.pk) is None  # no open hand


def test_no_such_hand_or_table(mesa):
    with transaction.atomic(), pytest.raises(Hand.DoesNotExist):
        lock_hand(hand_id=987654)
    with transaction.atomic(), pytest.raises(mesa.table.DoesNotExist):
        lock_hand(table_id=987654)


def _opening(table_id):
    """What ``lock_table_for_opening`` reads, checked against plain ORM reads."""
    with transaction.atomic():
        opening = lock_table_for_opening(table_id)
    table = Table.objects.get(pk=table_id)
    assert _fields(opening.table) == _fields(table)
    last = opening.last_hand
    if last is not None:
        assert last.get_deferred_fields() == {f.attname for f in Hand._meta.concrete_fields} - set(LAST_HAND_FIELDS)
    for read, model in ((opening.tenure, "holder"), (opening.shift, "dealer")):
        if read is not None:
            assert read.table is opening.table and getattr(read, model) is not None
    return opening


def test_what_an_opening_reads_under_the_lock(mesa):
    table_id = mesa.table.pk
    read = _opening(table_id)  # a bank and a shift, no hand yet
    assert read.last_hand is None and read.tenure.holder.code == "ana"
    assert read.shift.dealer == mesa.dealer
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 2C", "bank deal 5E")
    assert _opening(table_id).last_hand.status == Hand.Status.OPEN
    mesa.play(hand, "luis bet 10", "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand")
    last = _opening(table_id).last_hand
    assert (last.number, last.status, last.next_bank) == (1, Hand.Status.SETTLED, "luis")  # luis's 7½ takes the bank
    second = mesa.play(mesa.open("ana", "marta"), "ana deal 5O", "marta deal 3C", "bank deal 2E", "ana bet 10",
                       "ana stand", "marta bet 10", "marta stand", "bank stand")
    services.hand_void(hand=second, reason="wrong table", voided_by=mesa.supervisor)
    read = _opening(table_id)
    assert read.last_hand.number == 1 and read.table.last_hand_number == 2  # a voided hand is passed over
    assert read.tenure.holder.code == "luis"


def test_an_opening_reads_a_table_without_bank_or_shift_and_no_table(db):
    read = _opening(TableFactory(name="Mesa vacía").pk)
    assert read.last_hand is read.tenure is read.shift is None
    with transaction.atomic(), pytest.raises(Table.DoesNotExist):
        lock_table_for_opening(987654)
