"""The drawer's close in Chromium, in Spanish: each kind of slip on its own line (buy-ins,
bank deposits, cash-outs), never a bank deposit under the buy-ins; the closed drawer's
page the same."""

from decimal import Decimal

import pytest

from cage.models import Drawer
from cage.services.slips import cashier_bank_deposit, cashier_buy_in, cashier_cash_out
from tables import services
from tests.factories import PlayerFactory, TableFactory, UserFactory, open_drawer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def _text(page, selector):
    return " ".join(page.inner_text(selector).replace("\u00a0", " ").replace("\u202f", " ").split())


def test_the_close_shows_each_kind_of_slip_on_its_own_line(browser_page):
    page = browser_page
    cashier = UserFactory(username="caja", roles=["cashier"])
    UserFactory(username="jefa", roles=["cage_supervisor"])
    pit = UserFactory(username="pit1", roles=["pit_supervisor"])
    open_drawer(cashier)  # a float of 1 000,00 €
    luis, ana = PlayerFactory(code="luis"), PlayerFactory(code="ana")
    cashier_buy_in(player=luis, amount=Decimal("300"), posted_by=cashier)
    tenure = services.table_bank_draw(table=TableFactory(name="Mesa 1"), holder=ana, capital=Decimal("100"), by=pit)
    cashier_bank_deposit(tenure=tenure, player=ana, amount=Decimal("100"), posted_by=cashier)
    cashier_cash_out(player=luis, amount=Decimal("120.50"), posted_by=cashier)
    page.goto("/accounts/login/?next=/cage/drawer/close/")
    page.fill("input[name=username]", "caja")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/cage/drawer/close/")
    for name, pieces in {"d50_00": "25", "d20_00": "1", "d5_00": "1", "d2_00": "2", "d0_50": "1"}.items():
        page.fill(f"input[name={name}]", pieces)
    page.click("main form button[type=submit]")
    page.wait_for_selector("#sign-close")
    assert "Entradas (compras de fichas)" not in _text(page, "#close-figures")
    assert _text(page, "#line-buy_in") == "Compras de fichas (entrada) +300,00 €"
    assert _text(page, "#line-bank_deposit") == "Depósitos de banca (entrada) +100,00 €"
    assert _text(page, "#line-cash_out") == "Cambios de fichas (salida) −120,50 €"
    assert _text(page, "#expected") == "1 279,50 €"
    page.fill("input[name=supervisor]", "jefa")
    page.fill("input[name=password]", PASSWORD)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#sign-close button[type=submit]")
    page.wait_for_url("**/cage/drawers/*/")
    assert _text(page, "#line-buy_in") == "Compras de fichas (entrada) +300,00 €"
    assert _text(page, "#line-bank_deposit") == "Depósitos de banca (entrada) +100,00 €"
    assert _text(page, "#line-cash_out") == "Cambios de fichas (salida) −120,50 €"
    drawer = Drawer.objects.get()
    assert (drawer.cash_in, drawer.cash_out, drawer.expected, drawer.variance) == (
        Decimal("400.00"), Decimal("120.50"), Decimal("1279.50"), Decimal("0.00"))
