"""The bank between hands through the API (pit supervisor): draw, sale, transfer."""

from decimal import Decimal

from ledger.selectors import player_balance
from tables.models import BankTenure
from tests.api.conftest import error_of
from tests.api.test_hands import P01, open_hand, post_events
from tests.factories import TableFactory


def test_the_bank_is_drawn_for_with_a_syndicate_then_sold(api, mesa):
    table = TableFactory(name="Mesa 2")
    body = {"holder": "pepe", "capital": "100.00", "shares": [{"player": "pepe", "percent": "60"},
                                                              {"player": "rosa", "percent": "40"}]}
    assert api["dealer"].post(f"/api/tables/{table.pk}/bank/draw/", body).status_code == 403
    drawn = api["supervisor"].post(f"/api/tables/{table.pk}/bank/draw/", body)
    assert drawn.status_code == 201, drawn.json()
    assert (drawn.json()["holder"], drawn.json()["capital"], drawn.json()["began"]) == ("pepe", "100.00", "draw")
    assert player_balance(player=mesa.players["rosa"]) == Decimal("500.00")  # her 40.00 deposited at the cage
    twice = api["supervisor"].post(f"/api/tables/{table.pk}/bank/draw/", body)
    assert twice.status_code == 409 and error_of(twice)["rule"] == "bank"
    no_price = api["supervisor"].post(f"/api/tables/{table.pk}/bank/sell/", {"holder": "luis", "capital": "50"})
    assert no_price.status_code == 400 and error_of(no_price)["field"] == "price"
    sold = api["supervisor"].post(f"/api/tables/{table.pk}/bank/sell/",
                                  {"holder": "luis", "capital": "50", "price": "20"})
    assert sold.status_code == 201 and (sold.json()["holder"], sold.json()["price"]) == ("luis", "20.00")
    assert BankTenure.objects.get(pk=drawn.json()["id"]).ended == "sale"
    assert api["auditor"].get(f"/api/tables/{table.pk}/").json()["bank_holder"] == "luis"


def test_shares_that_do_not_sum_to_100_are_refused_on_the_shares_field(api, mesa):
    table = TableFactory(name="Mesa 3")
    body = {"holder": "pepe", "capital": "100", "shares": [{"player": "pepe", "percent": "60"},
                                                           {"player": "rosa", "percent": "30"}]}
    response = api["supervisor"].post(f"/api/tables/{table.pk}/bank/draw/", body)
    assert response.status_code == 400 and error_of(response)["field"] == "shares"
    bad_percent = api["supervisor"].post(f"/api/tables/{table.pk}/bank/draw/",
                                         {**body, "shares": [{"player": "pepe", "percent": 100.0}]})
    assert bad_percent.status_code == 400 and error_of(bad_percent)["field"] == "shares.0.percent"


def test_the_bank_changes_only_between_hands(api, mesa):
    open_hand(api, mesa, "luis")
    response = api["supervisor"].post(f"/api/tables/{mesa.table.pk}/bank/transfer/",
                                      {"holder": "marta", "capital": "50"})
    assert response.status_code == 409 and error_of(response)["rule"] == "bank"


def test_a_transfer_after_a_hand(api, mesa):
    post_events(api, open_hand(api, mesa, "luis", "marta")["hand"]["id"], P01)
    response = api["supervisor"].post(f"/api/tables/{mesa.table.pk}/bank/transfer/",
                                      {"holder": "marta", "capital": "50"})
    assert response.status_code == 201 and response.json()["began"] == "transfer"
    assert player_balance(player=mesa.players["ana"]) == Decimal("610.00")  # 500 + the tenure's 110
