"""A slip of a closed, signed drawer voided in Chromium, in Spanish: the void's cash goes
through the cashier's open drawer; the closed drawer keeps its figures and marks the slip
VOID with a link to that drawer, which lists the void with a link back."""

import re
from decimal import Decimal

import pytest

from cage.models import Drawer
from cage.services.drawer import drawer_close, drawer_open
from cage.services.slips import cashier_buy_in, cashier_cash_out
from tests.factories import PlayerFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def _text(page, selector):
    return " ".join(page.inner_text(selector).replace("\u00a0", " ").replace("\u202f", " ").split())


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_a_closed_drawers_slip_voided_shows_in_both_drawers(chromium, live_server, size, tmp_path):
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url)
    page = context.new_page()
    cashier = UserFactory(username="caja", roles=["cashier"])
    supervisor = UserFactory(username="jefa", roles=["cage_supervisor"])
    luis = PlayerFactory(code="luis")
    first = drawer_open(cashier=cashier, count={"50.00": 10})
    cashier_buy_in(player=luis, amount=Decimal("300"), posted_by=cashier)
    slip = cashier_cash_out(player=luis, amount=Decimal("100"), posted_by=cashier)
    drawer_close(drawer=first, cashier=cashier, supervisor=supervisor, count={"50.00": 14})
    second = drawer_open(cashier=cashier, count={"50.00": 2})
    page.goto(f"/accounts/login/?next=/cage/slips/{slip.number}/void/")
    page.fill("input[name=username]", "jefa")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**/cage/slips/{slip.number}/void/")
    page.fill("textarea[name=reason]", "el cambio se hizo dos veces")
    page.get_by_role("button", name="Anular el vale").click()
    page.wait_for_url(f"**/cage/slips/{slip.number}/")
    page.goto(f"/cage/drawers/{first.pk}/")
    page.screenshot(path=str(tmp_path / f"closed-drawer-{size[0]}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    row = _text(page, f"#drawer-slips tr:has-text('{slip}')")
    assert "ANULADO" in row and f"anulado en el cajón n.º {second.pk}" in row
    assert _text(page, "#line-cash_out") == "Cambios de fichas (salida) −100,00 €"
    assert _text(page, "#line-void_in") == "Cambios de fichas anulados (vuelve el efectivo) 0,00 €"
    assert "Ninguna anulación" in _text(page, "#drawer-voids")
    page.click("#drawer-slips a.void-drawer")
    page.wait_for_url(f"**/cage/drawers/{second.pk}/")
    page.screenshot(path=str(tmp_path / f"open-drawer-{size[0]}.png"), full_page=True)
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    void_row = _text(page, "#drawer-voids tbody tr")
    assert str(slip) in void_row and "+100,00 €" in void_row and f"#{first.pk}" in void_row and "jefa" in void_row
    page.click(f"#drawer-voids a:text('#{first.pk}')")
    page.wait_for_url(re.compile(rf"/cage/drawers/{first.pk}/$"))
    first.refresh_from_db()
    assert (first.cash_in, first.cash_out, first.expected, first.variance) == (
        Decimal("300.00"), Decimal("100.00"), Decimal("700.00"), Decimal("0.00"))
    assert Drawer.objects.get(pk=second.pk).is_open
    context.close()
