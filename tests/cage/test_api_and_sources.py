"""The cage's refusals through the API (409, the rule named), and which postings the AML
check may refuse: a staff member's at the cage or the pit, never the game's own."""

from decimal import Decimal

from cage.models import CashierSlip
from cage.services.aml import refusable
from tests.api.conftest import Api
from tests.factories import open_drawer


def test_the_api_refuses_a_slip_without_a_drawer_and_an_unidentified_patron_at_the_threshold(cashier, anon):
    api = Api(cashier)
    refused = api.post("/api/cashier/buy-in/", {"player": "anon", "amount": "10.00"})
    assert refused.status_code == 409 and refused.json()["error"]["rule"] == "drawer"
    open_drawer(cashier)
    assert api.post("/api/cashier/buy-in/", {"player": "anon", "amount": "1999.99"}).status_code == 201
    refused = api.post("/api/cashier/buy-in/", {"player": "anon", "amount": "0.01"})
    assert refused.status_code == 409
    assert refused.json()["error"]["rule"] == "aml_identity" and refused.json()["error"]["field"] == "player"
    assert [slip.amount for slip in CashierSlip.objects.all()] == [Decimal("1999.99")]


def test_only_a_staff_members_choice_is_refused(cashier):
    assert refusable(posted_by=cashier, source="cashier") and refusable(posted_by=cashier, source="pit")
    assert not refusable(posted_by=None, source="system:cashier")
    assert not refusable(posted_by=cashier, source="console")  # a 7½ takeover entered at the table
    assert not refusable(posted_by=cashier, source="import")
