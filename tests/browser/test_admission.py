"""Admission in a real browser, in Spanish: the compliance officer uploads the regulator's
exclusion file on the register's page; a cashier's buy-in for a patron on it is then
refused on the form, naming the reason, nothing booked; the refusal is on the compliance
officer's list. At 1024×768 and 390×844, nothing scrolls sideways (``SCREENSHOTS=dir``
keeps the pages)."""

import os

import pytest

from cage.models import CashierSlip
from patrons.models import AdmissionRefusal, ExclusionLoad
from tests.factories import PlayerFactory, UserFactory, open_drawer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"
RGIAJ = ("documento;nombre;apellidos;fecha_nacimiento;fecha_alta\n"
         "12345678-Z;Pedro;Gómez Ruiz;02/03/1970;01/01/2020\n"
         "X7654321L;Ana;Sanz;1990-05-05;\n").encode()


def log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}**")


def fits(page, width):
    return page.evaluate("document.documentElement.scrollWidth") <= width


def shot(page, name, width):
    if os.environ.get("SCREENSHOTS"):
        page.screenshot(path=f"{os.environ['SCREENSHOTS']}/{name}-{width}.png", full_page=True)


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_an_uploaded_register_refuses_a_cashiers_buy_in(chromium, live_server, size):
    UserFactory(username="cumple", roles=["compliance_officer"])
    cashier = UserFactory(username="caja", roles=["cashier"])
    open_drawer(cashier)
    PlayerFactory(code="pedro", name="Pedro Gómez Ruiz", document_number="12345678Z")
    width, height = size

    # The compliance officer uploads the RGIAJ's file.
    context = chromium.new_context(locale="es-ES", viewport={"width": width, "height": height},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "cumple", "/cage/exclusions/")
    assert "Registro de exclusiones" in page.inner_text("nav")
    page.select_option("#load-form select[name=source]", "rgiaj")
    page.set_input_files("#load-form input[name=file]", files=[
        {"name": "rgiaj-2026-11.csv", "mimeType": "text/csv", "buffer": RGIAJ}])
    page.get_by_role("button", name="Cargar el fichero").click()
    page.wait_for_selector("#loads td")
    text = page.inner_text("main")
    assert "rgiaj-2026-11.csv se ha cargado: 2 entradas" in text, text
    assert "rgiaj-2026-11.csv" in page.inner_text("#loads") and fits(page, width)
    shot(page, "exclusions", width)
    load = ExclusionLoad.objects.get()
    assert (load.rows, load.loaded_by.username) == (2, "cumple")

    # The cashier's buy-in for Pedro is refused, naming the register.
    cage = context.browser.new_context(locale="es-ES", viewport={"width": width, "height": height},
                                       base_url=live_server.url)
    cage.set_default_timeout(20_000)
    desk = cage.new_page()
    log_in(desk, "caja", "/cage/buy-in/")
    desk.fill("input[name=player]", "pedro")
    desk.fill("input[name=amount]", "100")
    desk.click("main form button[type=submit]")
    desk.wait_for_selector("ul.errorlist")
    text = desk.inner_text("main")
    assert "rechazado: pedro figura en el registro de exclusiones (RGIAJ (España)" in text, text
    assert "coincide por el documento 12345678Z" in text and fits(desk, width)
    shot(desk, "buy-in-excluded", width)
    assert not CashierSlip.objects.exists()
    cage.close()

    # The refusal, on the compliance officer's list.
    page.goto("/cage/exclusions/refusals/")
    row = page.inner_text("#admission-refusals tbody")
    assert "pedro" in row and "compra de fichas en caja" in row and "en el registro de exclusiones" in row, row
    assert "caja" in row and f"carga n.º {load.pk}, línea 2" in row and fits(page, width)
    shot(page, "admission-refusals", width)
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.reason, refusal.attempted_by, refusal.entry.load) == ("excluded", cashier, load)
    context.close()
