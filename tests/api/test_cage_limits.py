"""The cage's maximum per slip through the API: a 400 naming the amount, as on the forms."""
import pytest

from cage.models import CashierSlip
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


def test_a_slip_reads_with_its_balance_at_issue_and_its_void(api, mesa):
    from decimal import Decimal

    from cage.services.slips import cashier_slip_void
    from casino.roles import CAGE_SUPERVISOR
    from tests.factories import UserFactory

    first = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "10.00"}).json()
    api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "5.00"})
    got = api["auditor"].get(f"/api/slips/{first['number']}/").json()
    assert (got["balance_after"], got["balance"], got["void"]) == ("510.00", "515.00", None)
    supervisor = UserFactory(username="super1", roles=[CAGE_SUPERVISOR])
    void = cashier_slip_void(slip=CashierSlip.objects.get(number=first["number"]), reason="error",
                                      voided_by=supervisor)
    got = api["auditor"].get(f"/api/slips/{first['number']}/").json()
    assert got["void"]["reason"] == "error" and got["void"]["voided_by"] == "super1"
    assert got["void"]["reversal"] == void.reversal_id and got["balance"] == f"{Decimal('505.00'):.2f}"
