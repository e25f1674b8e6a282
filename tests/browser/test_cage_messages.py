"""A refusal at the cage is said once, above the form it refuses: a buy-in without an open
drawer, a void refused (in Chromium, in Spanish)."""

import re
from decimal import Decimal

import pytest

from cage.models import CashierSlip, SlipVoid
from cage.services.slips import cashier_buy_in, cashier_cash_out
from tests.factories import PlayerFactory, UserFactory, open_drawer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def _log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}**")


def test_a_buy_in_without_an_open_drawer_is_refused_once(browser_page):
    page = browser_page
    UserFactory(username="caja1", roles=["cashier"])
    PlayerFactory(code="luis")
    _log_in(page, "caja1", "/cage/buy-in/")
    page.fill("input[name=player]", "luis")
    page.fill("input[name=amount]", "10")
    page.click("main form button[type=submit]")
    page.wait_for_selector("ul.errorlist")
    main = page.inner_text("main")
    assert main.count("no tiene ningún cajón abierto") == 1, main
    assert page.locator("main ul.errorlist").count() == 1
    assert CashierSlip.objects.count() == 0


def test_a_refused_void_is_said_once(browser_page):
    page = browser_page
    cashier = UserFactory(username="caja1", roles=["cashier"])
    UserFactory(username="super1", roles=["cage_supervisor"])
    open_drawer(cashier)
    luis = PlayerFactory(code="luis")
    slip = cashier_buy_in(player=luis, amount=Decimal("75"), posted_by=cashier)
    cashier_cash_out(player=luis, amount=Decimal("75"), posted_by=cashier)  # his chips are gone
    _log_in(page, "super1", f"/cage/slips/{slip.number}/void/")
    page.fill("textarea[name=reason]", "el jugador no entregó el efectivo")
    page.get_by_role("button", name="Anular el vale").click()
    page.wait_for_selector("ul.errorlist")
    main = page.inner_text("main")
    assert len(re.findall("ya no son de luis", main)) == 1, main
    assert page.locator("main ul.errorlist").count() == 1
    assert not SlipVoid.objects.exists()
