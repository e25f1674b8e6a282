"""Chips through the API (issue 14 "Chips"): a bet the player's chips do not cover is a
400 naming his holding, and nothing is written."""

from ledger.selectors import player_balance
from ledger.services import cashier_cash_out
from tables.models import HandEvent
from tests.api.conftest import error_of
from tests.hands import event

DEAL = ["luis deal 5O", "marta deal 3C", "bank deal 2E"]


def test_the_api_refuses_the_bet_with_a_400_naming_the_holding(api, mesa):
    luis = mesa.players["luis"]
    cashier_cash_out(player=luis, amount=player_balance(player=luis), posted_by=mesa.cashier)
    opened = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis", "marta"]}).json()
    hand_id = opened["hand"]["id"]
    for line in DEAL:
        assert api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event(line)}).status_code == 201
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis bet 100")},
                                  HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 400
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("amount", "chips")
    assert "luis tiene 0,00 € en fichas" in error["message"]
    assert HandEvent.objects.filter(hand_id=hand_id).count() == 3
