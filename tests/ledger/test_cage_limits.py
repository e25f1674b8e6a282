"""The cage's limit per slip (``settings.CAGE_SLIP_MAXIMUM``, 100,000.00 € by default):
the same on the forms, the API and the booking service; an amount the database cannot
hold is a clear refusal (a form's error, a 400), never a 500, and nothing is written."""
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from cage.models import CashierSlip
from cage.services.slips import cashier_buy_in, cashier_cash_out, slip_maximum
from ledger.errors import InvalidAmount

pytestmark = pytest.mark.django_db


def _post_form(client, name, data):
    url = client.get(reverse(name))["Location"]
    return client.post(url, data)


def test_the_default_maximum_is_a_hundred_thousand_euros():
    assert slip_maximum() == Decimal("100000.00")


def test_the_service_refuses_above_the_maximum_and_books_it_exactly(players, cashier):
    with pytest.raises(InvalidAmount) as refused:
        cashier_buy_in(player=players["luis"], amount=Decimal("100000.01"), posted_by=cashier)
    assert refused.value.field == "amount" and re.search(r"100\D000,00 €", str(refused.value))
    slip = cashier_buy_in(player=players["luis"], amount=Decimal("100000.00"), posted_by=cashier)
    assert slip.amount == Decimal("100000.00")
    with pytest.raises(InvalidAmount):
        cashier_cash_out(player=players["luis"], amount=Decimal("100000.01"), posted_by=cashier)


@pytest.mark.parametrize("name", ["cage:buy_in", "cage:cash_out"])
@pytest.mark.parametrize(("amount", "says"), [
    ("100000,01", r"100\D000,00 €"),
    ("99999999999999999999", ""),  # more digits than the column holds
    ("1e400", ""), ("NaN", ""), ("-Infinity", ""),
])
def test_every_form_refuses_what_the_cage_or_the_database_cannot_hold(client, cashier, players, name, amount, says):
    client.force_login(cashier)
    response = _post_form(client, name, {"player": "luis", "amount": amount, "confirm": "yes"})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == ["amount"] and re.search(says, " ".join(errors["amount"]))
    assert not CashierSlip.objects.exists()


def test_the_maximum_is_a_setting(client, cashier, players, settings, fund):
    settings.CAGE_SLIP_MAXIMUM = Decimal("500.00")
    client.force_login(cashier)
    response = _post_form(client, "cage:buy_in", {"player": "luis", "amount": "500,01"})
    assert "500,00 €" in " ".join(response.context["form"].errors["amount"])
    assert _post_form(client, "cage:buy_in", {"player": "luis", "amount": "500,00"}).status_code == 302
