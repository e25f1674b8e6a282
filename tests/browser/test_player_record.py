"""A patron's record at the cage, in Chromium, in Spanish, at 1024×768 and 390×844: the cashier
registers him on the page (a DNI with the wrong letter refused on its field first), and his
record then reads in the reader's words — the document type's and the country's names, the
date of birth in his format — and nothing scrolls sideways, whatever his name (a name of 300
letters without a space once widened the page to 5,104 px)."""

import pytest

from patrons.models import Player
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"
LONG = "Zé" + "Ñ" * 300


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_a_patron_registered_reads_in_the_readers_words_and_fits(chromium, live_server, size):
    UserFactory(username="caja", roles=["cashier"], password=PASSWORD)
    width, height = size
    context = chromium.new_context(locale="es-ES", viewport={"width": width, "height": height},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    page.goto("/accounts/login/?next=/cage/register/")
    page.fill("input[name=username]", "caja")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/cage/register/**")
    page.fill("input[name=code]", "largo")
    page.fill("input[name=name]", LONG)
    page.select_option("select[name=document_type]", "dni")
    page.fill("input[name=document_number]", "12345678A")
    page.select_option("select[name=nationality]", "ES")
    page.fill("input[name=date_of_birth]", "1980-01-31")
    page.click("main form button[type=submit]")
    page.wait_for_selector(".errorlist")
    assert "12345678A no es un número de DNI" in page.inner_text("main")
    assert not Player.objects.filter(code="largo").exists()
    page.fill("input[name=document_number]", "12345678Z")
    page.click("main form button[type=submit]")
    page.wait_for_url("**/cage/players/largo/**")
    history = page.inner_text("#history")
    assert "DNI" in history and "España" in history and "31/01/1980" in history
    assert ": dni" not in history and ": ES" not in history and "1980-01-31" not in history
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    context.close()
