"""The cage in Chromium, as a cashier works it: one slip per intention (Back and resend,
a double tap, a second tab)."""

import re

import pytest

from ledger.models import CashierSlip
from tests.factories import PlayerFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


@pytest.fixture
def cashier_page(browser_page):
    UserFactory(username="caja1", roles=["cashier"])
    PlayerFactory(code="luis", name="Luis")
    page = browser_page
    page.goto("/accounts/login/?next=/ledger/buy-in/")
    page.fill("input[name=username]", "caja1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(re.compile(r"/ledger/buy-in/[^/]+/"))
    return page


def _fill_buy_in(page, amount):
    page.fill("input[name=player]", "luis")
    page.fill("input[name=amount]", amount)


def test_back_and_resend_books_one_slip(cashier_page):
    page = cashier_page
    assert page.evaluate("document.activeElement.name") == "player"  # the focus where the first entry is typed
    _fill_buy_in(page, "20,00")
    page.get_by_role("button", name="Asentar la compra").click()
    page.wait_for_url("**/ledger/slips/1/")
    page.go_back()
    page.wait_for_load_state()
    # Whatever the browser shows on Back (the slip, or the form refilled from its history),
    # sending that form again books nothing more.
    if page.get_by_role("button", name="Asentar la compra").count():
        _fill_buy_in(page, "20,00")
        page.get_by_role("button", name="Asentar la compra").click()
    page.wait_for_url("**/ledger/slips/1/")
    assert "ya está asentado" in page.inner_text("main")
    page.reload()  # a resend of the slip's page is a read
    assert CashierSlip.objects.count() == 1


def test_a_second_tab_on_the_same_form_shows_the_slip_it_booked(cashier_page):
    page = cashier_page
    other = page.context.new_page()
    other.goto(page.url)
    _fill_buy_in(page, "30,00")
    page.get_by_role("button", name="Asentar la compra").click()
    page.wait_for_url("**/ledger/slips/1/")
    _fill_buy_in(other, "30,00")
    other.get_by_role("button", name="Asentar la compra").click()
    other.wait_for_url("**/ledger/slips/1/")
    assert "ya está asentado" in other.inner_text("main")
    assert CashierSlip.objects.count() == 1


def test_a_double_tap_books_one_slip(cashier_page):
    page = cashier_page
    _fill_buy_in(page, "40,00")
    page.get_by_role("button", name="Asentar la compra").dblclick()
    page.wait_for_url("**/ledger/slips/1/")
    page.wait_for_load_state("networkidle")
    assert CashierSlip.objects.count() == 1
    assert CashierSlip.objects.get().amount == 40


def test_the_form_pages_are_not_kept_by_the_browser(cashier_page):
    page = cashier_page
    response = page.goto("/ledger/cash-out/")
    assert "no-store" in response.headers["cache-control"]
