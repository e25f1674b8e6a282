"""La loca's call "dobla" doubles every stake on it without bet events: like a bet, it is
refused when a bettor's chips on record do not cover what it puts at risk, by the service
and by the import, and nothing of it is written. [rules.md "Calls of la loca"]"""

from decimal import Decimal

import pytest
from django.utils import translation

from cage.services.slips import cashier_cash_out
from tables import importing, services
from tables.errors import ChipsNotCovered, RecordRefused
from tables.models import HandEvent
from tests.hands import record

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def language_back():
    yield
    translation.deactivate()


def set_rules(mesa, **rules):
    mesa.table.rules = rules
    mesa.table.save(update_fields=["rules"])


def test_la_locas_dobla_is_refused_when_a_bettors_chips_do_not_cover_it(mesa):
    set_rules(mesa, profile="profesional", loca_calls=True)
    cashier_cash_out(player=mesa.players["rosa"], amount=Decimal("470.00"), posted_by=mesa.cashier)  # 30.00 left
    hand = mesa.play(mesa.open("luis"), "luis deal 2O", "loca deal 6C", "bank deal 3E", "loca bet 10 by pepe",
                     "loca bet 20 by rosa", "luis bet 10", "luis card 5C", "luis stand")
    dobla = {"do": "loca_call", "seat": "loca", "call": "dobla", "responsable": "pepe"}
    with translation.override("en"), pytest.raises(ChipsNotCovered) as caught:
        services.hand_record_event(hand=hand, event=dobla, entered_by=mesa.dealer, expected_version=hand.version)
    assert "rosa holds 30.00 €" in str(caught.value) and "40.00 €" in str(caught.value)
    hand.refresh_from_db()
    assert hand.version == 8 and HandEvent.objects.filter(hand=hand).count() == 8  # nothing written
    # The import refuses it the same way.
    services.hand_void(hand=hand, reason="entered again by import", voided_by=mesa.supervisor)
    body = record("luis deal 2O", "loca deal 6C", "bank deal 3E", "loca bet 10 by pepe", "loca bet 20 by rosa",
                  "luis bet 10", "luis card 5C", "luis stand", "loca stand", "bank card 5O",
                  rules={"profile": "profesional", "loca_calls": True}, seats=["luis"], table="Mesa 1")
    body["events"][8] = dobla  # dobla, then its stand
    body["events"].insert(9, {"do": "stand", "seat": "loca"})
    del body["events"][10]
    with translation.override("en"), pytest.raises(RecordRefused) as refused:
        importing.hand_import_record(record=body, imported_by=mesa.supervisor)
    assert "rosa holds 30.00 €" in str(refused.value) and refused.value.event == 9
