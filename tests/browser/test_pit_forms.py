"""The pit's forms with a free-text reason (a hand's void, a chip transfer) on a phone
(390 × 844): the reason's box fits the screen, nothing scrolls sideways."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.mark.parametrize("size", [(390, 844), (1024, 768)], ids=["phone", "tablet"])
def test_the_void_forms_reason_fits_the_screen(chromium, live_server, mesa, size):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    address = f"/tables/pit/tables/{mesa.table.pk}/hands/{hand.number}/void/"
    page.goto(f"/accounts/login/?next={address}")
    page.fill("input[name=username]", "pit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{address}")
    box = page.locator("textarea[name=reason]").bounding_box()
    assert box["x"] + box["width"] <= size[0]
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    context.close()
