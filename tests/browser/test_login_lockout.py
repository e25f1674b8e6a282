"""The login page in a real browser after too many wrong passwords: the lock-out page in
Spanish says how long to wait and whom to ask, and the right password is refused until
the cool-off ends (issue 14, "Doors")."""

import pytest

from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def try_password(page, username, password):
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()


def test_five_wrong_passwords_lock_the_login_with_a_spanish_page(browser_page, settings):
    UserFactory(username="caja1", roles=["cashier"])
    page = browser_page
    for _attempt in range(settings.AXES_FAILURE_LIMIT - 1):
        try_password(page, "caja1", "adivina")
        assert page.locator(".errorlist").is_visible()
    try_password(page, "caja1", "adivina")
    alert = page.get_by_role("alert")
    assert page.get_by_role("heading", level=1).inner_text() == "Acceso bloqueado durante un tiempo"
    text = alert.inner_text()
    assert "Espere 15 minutos" in text and "administrador" in text and "Usuario: caja1" in text

    page.get_by_role("link", name="Volver a la página de acceso").click()
    try_password(page, "caja1", "secret-pass-1")
    assert page.get_by_role("heading", level=1).inner_text() == "Acceso bloqueado durante un tiempo"
    page.goto("/")
    assert "/accounts/login/" in page.url  # still not logged in


def test_the_lock_out_page_fits_a_phone(browser_page, settings):
    UserFactory(username="dealer1", roles=["dealer"])
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    for _attempt in range(settings.AXES_FAILURE_LIMIT):
        try_password(page, "dealer1", "adivina")
    assert page.get_by_role("heading", level=1).inner_text() == "Acceso bloqueado durante un tiempo"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing scrolls sideways
    assert page.get_by_role("link", name="Volver a la página de acceso").is_visible()
