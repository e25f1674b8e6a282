"""Amounts typed as the reader writes them: ``1.250,50`` and ``1 250,50`` in Spanish (the site
prints ``1 250,50 €``), ``1,250.50`` in English; an ambiguous grouping is refused with an
example, never guessed (``1.250`` could be 1250 or 1,25)."""
from decimal import Decimal

import pytest
from django import forms
from django.utils import translation

from cage.models import CashierSlip
from ledger.forms import EurosField
from ledger.selectors import player_balance
from tests.ledger.test_pages import draw

READ = [
    ("es", "1.250,50", Decimal("1250.50")),
    ("es", "1\xa0250,50", Decimal("1250.50")),
    ("es", "1 250,50", Decimal("1250.50")),
    ("es", "1.250.000,00", Decimal("1250000.00")),
    ("es", "1250,50", Decimal("1250.50")),
    ("es", "12,50", Decimal("12.50")),
    ("es", "12.50", Decimal("12.50")),  # a decimal point, as Django reads it in every language
    ("en", "1,250.50", Decimal("1250.50")),
    ("en", "1 250.50", Decimal("1250.50")),
    ("en", "12.50", Decimal("12.50")),
]


@pytest.mark.parametrize(("language", "typed", "amount"), READ)
def test_a_grouped_amount_is_read_in_the_readers_format(language, typed, amount):
    with translation.override(language):
        assert EurosField().clean(typed) == amount


@pytest.mark.parametrize(("language", "typed", "example"), [
    ("es", "1.250", "1.250,50"), ("es", "12.500", "1.250,50"), ("es", "1,250.50", "1.250,50"),
    ("es", "1.250 000,00", "1.250,50"), ("es", "12.50,5", "1.250,50"), ("es", "1.2345", "1.250,50"),
    ("en", "1,250", "1,250.50"), ("en", "12,50", "1,250.50"), ("en", "1.250,50", "1,250.50"),
])
def test_an_ambiguous_or_malformed_grouping_is_refused_with_an_example(language, typed, example):
    with translation.override(language), pytest.raises(forms.ValidationError) as refused:
        EurosField().clean(typed)
    assert refused.value.code == "grouping"
    with translation.override(language):
        assert example in " ".join(refused.value.messages)


@pytest.mark.parametrize(("language", "example"), [("es", "1250,50"), ("en", "1250.50")])
def test_words_are_refused_with_an_example_in_the_readers_format(language, example):
    with translation.override(language), pytest.raises(forms.ValidationError) as refused:
        EurosField().clean("doce")
    with translation.override(language):
        assert example in " ".join(refused.value.messages)


def test_the_field_asks_phones_for_the_decimal_keypad():
    assert 'inputmode="decimal"' in str(EurosField().widget.render("amount", ""))


@pytest.mark.django_db
def test_the_cashier_books_a_buy_in_typed_with_thousands_grouping(as_cashier, players):
    url = draw(as_cashier, "cage:buy_in")
    response = as_cashier.post(url, {"player": "luis", "amount": "1.250,50"}, follow=True,
                               HTTP_ACCEPT_LANGUAGE="es")
    assert CashierSlip.objects.get().amount == Decimal("1250.50")
    assert player_balance(player=players["luis"]) == Decimal("1250.50")
    assert "1250,50" in response.content.decode().replace("\xa0", "").replace("&nbsp;", "")


@pytest.mark.django_db
def test_an_ambiguous_buy_in_books_nothing_and_names_the_amount(as_cashier, players):
    response = as_cashier.post(draw(as_cashier, "cage:buy_in"), {"player": "luis", "amount": "1.250"},
                               HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["amount"]
    assert not CashierSlip.objects.exists()


@pytest.mark.parametrize(("language", "typed", "shown"), [
    ("es", "20.00", "20,00"), ("es", "1.250,50", "1250,50"), ("en", "1,250.50", "1250.50"), ("es", "doce", "doce"),
    ("es", "1.250", "1.250")])
def test_a_typed_amount_is_drawn_again_in_the_readers_format(language, typed, shown):
    class Form(forms.Form):
        amount = EurosField()

    with translation.override(language):
        assert f'value="{shown}"' in str(Form({"amount": typed})["amount"])


@pytest.mark.parametrize("typed", ["1e5", "1E3", "1e-2", "2,5e3", "1_000", "1_000,00", "0x10", "NaN", "Infinity",
                                   "--5", "5-", "1,2,3", "12.5.0"])
@pytest.mark.parametrize(("language", "example"), [("es", "1250,50"), ("en", "1250.50")])
def test_an_exponent_or_an_underscore_is_refused_as_words_are(language, example, typed):
    """``Decimal`` reads ``1e5`` as 100000 and ``1_000`` as 1000: a cashier's typo must not
    book a hundred thousand euros (seen at the cage: ``1e5`` booked slip 19 for 100 000,00 €)."""
    with translation.override(language), pytest.raises(forms.ValidationError) as refused:
        EurosField().clean(typed)
    assert refused.value.code in ("invalid", "grouping")
    with translation.override(language):
        assert example in " ".join(refused.value.messages)


@pytest.mark.parametrize(("typed", "amount"), [("5", Decimal("5")), ("5,5", Decimal("5.5")), ("0,01", Decimal("0.01")),
                                               (",50", Decimal("0.50"))])
def test_a_plain_amount_still_reads(typed, amount):
    with translation.override("es"):
        assert EurosField().clean(typed) == amount


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["1e5", "1_000"])
def test_a_buy_in_typed_with_an_exponent_books_nothing(as_cashier, players, typed):
    response = as_cashier.post(draw(as_cashier, "cage:buy_in"), {"player": "luis", "amount": typed},
                               HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200
    assert list(response.context["form"].errors) == ["amount"]
    assert "1250,50" in " ".join(response.context["form"].errors["amount"])
    assert not CashierSlip.objects.exists()
