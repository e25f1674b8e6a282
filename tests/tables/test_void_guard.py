"""A hand's status cannot change to voided without its reversal (issue 14): PostgreSQL
refuses the UPDATE; ``hand_void`` reverses the posting first, in the same transaction."""

import pytest
from django.db import IntegrityError, connection, transaction

from ledger.models import Transaction
from tables import services
from tables.models import Hand

pytestmark = pytest.mark.django_db

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def test_a_settled_hand_voided_by_sql_without_its_reversal_is_refused(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    assert hand.status == Hand.Status.SETTLED
    with pytest.raises(IntegrityError, match=f"hand {hand.pk} cannot be voided before its posting"):
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("UPDATE tables_hand SET status = 'voided', void_reason = 'by hand' WHERE id = %s",
                           [hand.pk])
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED


def test_the_void_service_reverses_then_voids(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    services.hand_void(hand=hand, reason="wrong seats", voided_by=mesa.supervisor)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    assert Transaction.objects.get(reverses=hand.transaction).kind == "reversal"


def test_an_open_hand_has_nothing_to_reverse(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01[:4])
    with connection.cursor() as cursor:
        cursor.execute("UPDATE tables_hand SET status = 'voided', void_reason = 'by hand' WHERE id = %s", [hand.pk])
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
