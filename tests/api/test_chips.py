"""Chips through the API (issue 14 "Chips"): a bet the player's chips do not cover is a
400 naming his holding, and nothing is written; the pit records chip transfers."""

from decimal import Decimal

from cage.services.slips import cashier_cash_out
from ledger.models import Transaction
from ledger.selectors import player_balance
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


def test_the_pit_records_a_chip_transfer_through_the_api(api, mesa):
    body = {"giver": "luis", "receiver": "marta", "amount": "25.50", "reason": "paga una apuesta"}
    response = api["supervisor"].post("/api/chips/transfer/", body)
    assert response.status_code == 201, response.json()
    data = response.json()
    assert (data["giver"], data["receiver"], data["amount"], data["reason"], data["posted_by"]) == (
        "luis", "marta", "25.50", "paga una apuesta", "pit1")
    assert data["balances"] == {"luis": "474.50", "marta": "525.50"}
    assert player_balance(player=mesa.players["marta"]) == Decimal("525.50")


def test_a_chip_transfer_the_giver_cannot_cover_is_a_409_as_a_cash_out_and_others_than_the_pit_get_403(api, mesa):
    body = {"giver": "luis", "receiver": "marta", "amount": "600.00", "reason": "x"}
    response = api["supervisor"].post("/api/chips/transfer/", body)
    assert response.status_code == 409  # as a cash-out above the chips
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("amount", "insufficient_chips")
    assert "luis tiene 500,00 € en fichas" in error["message"]
    same = api["supervisor"].post("/api/chips/transfer/", {**body, "amount": "1.00", "receiver": "luis"})
    assert same.status_code == 400 and error_of(same)["field"] == "receiver"
    for role in ("cashier", "dealer", "auditor"):
        assert api[role].post("/api/chips/transfer/", {**body, "amount": "1.00"}).status_code == 403
    assert not Transaction.objects.filter(kind="transfer").exists()
