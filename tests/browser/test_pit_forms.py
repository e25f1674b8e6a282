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


@pytest.mark.parametrize("size", [(390, 844), (1024, 768)], ids=["phone", "tablet"])
def test_each_refusal_stands_under_the_field_it_is_about(chromium, live_server, mesa, size, tmp_path):
    """The chip transfer sent empty: each message follows its own field (Django's as_p drew
    it above the label, where it read as the field before's)."""
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    page.goto("/accounts/login/?next=/tables/pit/chips/transfer/")
    page.fill("input[name=username]", "pit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url("**/pit/chips/transfer/")
    page.click("main form button[type=submit]")
    page.wait_for_selector(".field-errors")
    page.screenshot(path=str(tmp_path / f"chip-transfer-refused-{size[0]}.png"), full_page=True)
    after = page.evaluate("""() => Array.from(document.querySelectorAll('main form p')).map(p => {
        const field = p.querySelector('input, select, textarea');
        const next = p.nextElementSibling;
        return [field && field.name, next && next.classList.contains('field-errors') ? next.innerText.trim() : null];
    })""")
    refused = {name: text for name, text in after if text}
    assert set(refused) >= {"giver", "receiver", "amount", "reason"}, after
    assert "motivo" in refused["reason"].lower() or "por qué" in refused["reason"].lower()
    context.close()
