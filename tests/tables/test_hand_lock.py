"""The hand read under its table's lock by written SQL (``tables.hand_lock``, the console's
hot path) is the hand the ORM reads: every field of the hand and of the rows read with
it, and its entries in order."""

import pytest
from django.db import transaction
from django.forms.models import model_to_dict

from tables.hand_lock import _lock_hand_orm, hand_entries, lock_hand
from tables.models import Hand

pytestmark = pytest.mark.django_db


def _fields(instance):
    """Every concrete field's value, by attribute name (foreign keys as ids)."""
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.concrete_fields}


def _related(hand):
    return [hand, hand.table, hand.bank, hand.tenure, hand.shift, hand.shift.dealer]


def _same_as_the_orm(locked, hand_id):
    read = Hand.objects.select_related("table", "bank", "tenure", "shift__dealer").get(pk=hand_id)
    for mine, theirs in zip(_related(locked), _related(read), strict=True):
        assert type(mine) is type(theirs)
        assert _fields(mine) == _fields(theirs), type(mine).__name__
        assert not mine._state.adding and mine._state.db == "default"
    assert locked.shift.table is locked.table
    assert locked.entries == hand_entries(read)
    assert model_to_dict(locked) == model_to_dict(read)


def test_the_locked_read_of_an_open_and_a_settled_hand_is_the_orms(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10",
                     "luis card 2B")
    with transaction.atomic():
        locked = lock_hand(table_id=mesa.table.pk)
        assert locked.pk == hand.pk and len(locked.entries) == 5
        _same_as_the_orm(locked, hand.pk)
        assert _fields(_lock_hand_orm(hand_id=None, table_id=mesa.table.pk)) == _fields(locked)
    hand = mesa.play(hand, "luis stand", "marta bet 20", "marta card 1O", "marta stand", "bank card 4E",
                     "bank stand")
    assert hand.status == Hand.Status.SETTLED
    with transaction.atomic():
        locked = lock_hand(hand_id=hand.pk)
        assert locked.settlement["players"] and locked.cards  # JSON read back as Python values
        _same_as_the_orm(locked, hand.pk)
        assert lock_hand(table_id=mesa.table.pk) is None  # no open hand


def test_no_such_hand_or_table(mesa):
    with transaction.atomic(), pytest.raises(Hand.DoesNotExist):
        lock_hand(hand_id=987654)
    with transaction.atomic(), pytest.raises(mesa.table.DoesNotExist):
        lock_hand(table_id=987654)
