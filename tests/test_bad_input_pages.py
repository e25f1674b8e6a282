"""Bad input in the pages' forms never answers 500 (issue 14): amounts past the column
(``numeric(14,2)``) and NUL characters are form errors naming the field, a write whose
sum overflows a balance is a 400 page in Spanish saying nothing was written."""

import pytest
from django.db import DataError
from django.test import Client
from django.urls import reverse

from ledger.models import Transaction
from ledger.selectors import ledger_faults
from tables.models import BankTenure
from tests.factories import TableFactory, UserFactory
from tests.tables.conftest import mesa  # noqa: F401

pytestmark = pytest.mark.django_db


def as_user(user):
    client = Client()
    client.force_login(user)
    return client


def buy_in_form(client):
    """The address of a fresh buy-in form (its one-time token in it, ``cage.form_tokens``)."""
    response = client.get(reverse("cage:buy_in"))
    assert response.status_code == 302
    return response.url


@pytest.mark.parametrize("amount", ["1000000000000", "99999999999999999", "1e400", "NaN", "12345678901,345"])
def test_an_amount_past_the_column_in_the_cage_form_is_a_form_error(mesa, amount):  # noqa: F811
    before = Transaction.objects.count()
    client = as_user(mesa.cashier)
    response = client.post(buy_in_form(client), {"player": "luis", "amount": amount})
    assert response.status_code == 200
    assert "amount" in response.context["form"].errors
    assert Transaction.objects.count() == before


@pytest.mark.parametrize("capital", ["1000000000000", "1e400", "Infinity"])
def test_an_amount_past_the_column_in_the_bank_form_is_a_form_error(mesa, capital):  # noqa: F811
    mesa2 = TableFactory(name="Mesa 2")
    response = as_user(mesa.supervisor).post(reverse("tables:bank_draw", args=[mesa2.pk]),
                                             {"holder": "pepe", "capital": capital, "confirm": "yes"})
    assert response.status_code == 200 and "capital" in response.context["form"].errors
    assert not BankTenure.objects.filter(table=mesa2).exists()


def test_a_nul_character_in_a_form_field_is_a_form_error(mesa):  # noqa: F811
    client = as_user(mesa.cashier)
    response = client.post(buy_in_form(client), {"player": "lu\x00is", "amount": "5"})
    assert response.status_code == 200 and "player" in response.context["form"].errors


def test_a_nul_or_a_broken_character_at_login_is_the_form_again(db):
    UserFactory(username="dealer1", roles=["dealer"])
    for username in ("dealer\x00", "dealer\ufffd"):
        response = Client().post("/accounts/login/", {"username": username, "password": "x\x00"})
        assert response.status_code == 200
    # Percent-encoded bytes that are no UTF-8 (a lone surrogate's encoding, a NUL).
    encoded = Client().post("/accounts/login/", "username=%ED%A0%80&password=%00",
                            content_type="application/x-www-form-urlencoded")
    assert encoded.status_code == 200


def test_a_balance_that_would_overflow_is_a_400_page_not_a_500(mesa, monkeypatch):  # noqa: F811
    """What the forms cannot see (the cage's balance past numeric(14,2)): PostgreSQL
    refuses it, the service's transaction rolls back and the page says so."""

    def overflowing(**kwargs):
        raise DataError("numeric field overflow")

    from cage.services import slips

    monkeypatch.setattr(slips, "cashier_buy_in", overflowing)
    before = Transaction.objects.count()
    client = as_user(mesa.cashier)
    client.raise_request_exception = False
    response = client.post(buy_in_form(client), {"player": "luis", "amount": "5"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "No se ha aceptado esta entrada" in page and "No se ha cambiado nada" in page
    assert "Traceback" not in page and "DataError" not in page
    assert Transaction.objects.count() == before and ledger_faults() == []


@pytest.mark.parametrize("amount", ["1e400", "NaN", "Infinity", "9999999999999999", "-0", "1\x00"])
def test_a_stake_past_any_column_at_the_console_is_refused_naming_the_field(mesa, amount):  # noqa: F811
    from tables.models import Hand, HandEvent
    from tests.tables.test_console_views import Console, refusal_of

    client = as_user(mesa.dealer)
    screen = Console(client, mesa.table)
    screen.load()
    assert screen.send("form-open", seats="luis marta").status_code == 302
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    hand = Hand.objects.get(table=mesa.table, status=Hand.Status.OPEN)
    events = HandEvent.objects.filter(hand=hand).count()
    response = screen.send("form-bet", "bet", amount=amount)
    assert response.status_code == 200, response.status_code
    assert (refusal_of(response) or "").startswith("No anotado: Apuesta (€): ")  # the field named
    assert HandEvent.objects.filter(hand=hand).count() == events


@pytest.mark.parametrize("amount", ["５", "５,00", "1٥,00", "１２.50"])
def test_an_amount_with_other_digits_than_0_to_9_is_a_form_error_naming_it(mesa, amount):  # noqa: F811
    """Python's ``Decimal`` reads a full-width "５" as 5: the form refuses it on its field."""
    before = Transaction.objects.count()
    client = as_user(mesa.cashier)
    response = client.post(buy_in_form(client), {"player": "luis", "amount": amount})
    assert response.status_code == 200 and "amount" in response.context["form"].errors
    assert Transaction.objects.count() == before
    mesa2 = TableFactory(name="Mesa 2")
    response = as_user(mesa.supervisor).post(reverse("tables:bank_draw", args=[mesa2.pk]),
                                             {"holder": "pepe", "capital": amount, "confirm": "yes"})
    assert response.status_code == 200 and "capital" in response.context["form"].errors
    assert not BankTenure.objects.filter(table=mesa2).exists()
