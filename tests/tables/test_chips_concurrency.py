"""Two tables cannot spend the same chips at once (issue 14 "Chips"): a bet's check holds
the player's chips row lock, so a bet at another table waits for it and then sees the
first bet's stake at risk."""

import threading
from decimal import Decimal

import pytest
from django.db import transaction

from cage.services.slips import cashier_cash_out
from tables import services
from tables.errors import ChipsNotCovered
from tables.models import HandEvent
from tests.factories import TableFactory, deposit_bank
from tests.hands import event
from tests.tables.test_concurrency import in_thread, waiting_for_a_lock

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_bet_at_another_table_waits_for_the_first_and_is_refused_if_no_longer_covered(mesa):
    cashier_cash_out(player=mesa.players["luis"], amount=Decimal("450.00"), posted_by=mesa.cashier)  # 50.00 left
    other = TableFactory(name="Mesa 2")
    services.table_bank_draw(table=other, holder=mesa.players["rosa"], capital=Decimal("100.00"), by=mesa.supervisor)
    deposit_bank(other)
    here = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    there = services.hand_open(table=other, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    there = mesa.play(there, "luis deal 4O", "bank deal 2E")
    thread = outcome = None
    with transaction.atomic():
        mesa.play(here, "luis bet 40")
        thread, outcome = in_thread(lambda: services.hand_record_event(hand=there, event=event("luis bet 40"),
                                                                       entered_by=mesa.dealer))
        for _ in range(500):
            if waiting_for_a_lock():
                break
            threading.Event().wait(0.01)
        else:
            raise AssertionError("the bet at the other table never waited for luis's chips")
    thread.join(10)
    assert isinstance(outcome.get("error"), ChipsNotCovered), outcome
    assert "luis holds 50.00 € in chips, 40.00 € of them at risk in open hands" in str(outcome["error"]) or \
        "luis tiene 50,00 € en fichas, 40,00 € de ellas en juego" in str(outcome["error"])
    assert HandEvent.objects.filter(hand=there).count() == 2
