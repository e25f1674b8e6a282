"""The cage's maximum per slip through the API: a 400 naming the amount, as on the forms."""
import pytest

from ledger.models import CashierSlip
from tests.api.conftest import error_of


@pytest.mark.parametrize("path", ["/api/cashier/buy-in/", "/api/cashier/cash-out/"])
@pytest.mark.parametrize("amount", ["100000.01", "999999999999.99", "99999999999999999999.00", 10**30])
def test_the_api_refuses_above_the_maximum_with_a_400(api, mesa, path, amount):
    slips = CashierSlip.objects.count()
    response = api["cashier"].post(path, {"player": "luis", "amount": amount})
    assert response.status_code == 400, response.content
    assert error_of(response)["field"] == "amount"
    assert CashierSlip.objects.count() == slips


def test_the_api_books_the_maximum(api, mesa):
    assert api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "100000.00"}).status_code == 201
