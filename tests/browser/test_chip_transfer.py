"""A pit supervisor records a chip transfer in a real browser (issue 14 "Chips"): from the
pit's page, the form with the focus on its first field, the confirmation, the result;
on a phone nothing scrolls sideways."""

from decimal import Decimal

import pytest

from ledger.models import Transaction
from ledger.selectors import player_balance

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def test_the_pit_records_a_transfer_with_its_confirmation(browser_page, mesa):
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})  # a phone
    page.goto("/accounts/login/?next=/tables/pit/")
    page.fill("input[name=username]", "pit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/tables/pit/")
    page.click("text=Traspaso de fichas")
    page.wait_for_url("**/tables/pit/chips/transfer/")
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'giver'", timeout=2000)
    page.keyboard.type("luis")
    page.fill("input[name=receiver]", "marta")
    page.fill("input[name=amount]", "75,25")
    page.fill("textarea[name=reason]", "le presta para la banca")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.click("main form button[type=submit]")
    page.wait_for_selector("text=Confirmar el traspaso de fichas")
    text = page.inner_text("main")
    assert "75,25 €" in text and "tiene 500,00 €" in text and "le presta para la banca" in text
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert not Transaction.objects.filter(kind="transfer").exists()
    page.click("text=Confirmar: traspasar las fichas")
    page.wait_for_selector("text=75,25 € de luis a marta")
    assert player_balance(player=mesa.players["marta"]) == Decimal("575.25")
    assert Transaction.objects.get(kind="transfer").memo == "le presta para la banca"


def test_a_giver_short_of_chips_is_told_on_the_amount(browser_page, mesa):
    page = browser_page
    page.goto("/accounts/login/?next=/tables/pit/chips/transfer/")
    page.fill("input[name=username]", "pit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/tables/pit/chips/transfer/")
    page.fill("input[name=giver]", "luis")
    page.fill("input[name=receiver]", "marta")
    page.fill("input[name=amount]", "900")
    page.fill("textarea[name=reason]", "x")
    page.click("main form button[type=submit]")  # refused on the form itself: no confirmation page
    page.wait_for_selector("text=luis tiene 500,00 € en fichas")
    assert page.locator("text=Confirmar: traspasar las fichas").count() == 0
    assert page.input_value("input[name=amount]") == "900"
    assert not Transaction.objects.filter(kind="transfer").exists()
