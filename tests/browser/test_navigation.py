"""The site's menu: on a phone (390 × 844) it folds behind its "Menú" button, so a page's
content starts near the top; on a tablet (1024 × 768) its links are in view as they were.
Without the script the links stay in view (nothing to open, nothing hidden)."""

import pytest
from django.urls import reverse

from tables import services

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"  # the factories' (tests/factories.py)
PHONE, TABLET = {"width": 390, "height": 844}, {"width": 1024, "height": 768}


def auditor_page(chromium, live_server, viewport, **options):
    """A fresh context at ``viewport`` with the auditor ``audit1`` logged in, on the home page."""
    context = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url, **options)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "audit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    return context, page


def test_on_a_phone_the_menu_folds_and_opens_with_the_keyboard(chromium, live_server, staff):
    context, page = auditor_page(chromium, live_server, PHONE)
    links = page.locator("#site-menu a")
    assert links.count() >= 8  # the auditor reads nearly everything: a long menu
    toggle = page.get_by_role("button", name="Menú")
    assert toggle.is_visible() and toggle.get_attribute("aria-expanded") == "false"
    assert page.locator("#site-menu").is_hidden()
    assert page.locator("main h1").bounding_box()["y"] < 200
    # The language and leaving stay in the bar, menu folded.
    assert page.locator("header.top select[name=language]").is_visible()
    assert page.get_by_role("button", name="Cerrar sesión").is_visible()

    toggle.focus()
    page.keyboard.press("Enter")
    assert toggle.get_attribute("aria-expanded") == "true"
    assert all(links.nth(i).is_visible() for i in range(links.count()))
    page.keyboard.press("Tab")  # into the menu; Escape folds it and gives the button back its focus
    page.keyboard.press("Escape")
    assert page.locator("#site-menu").is_hidden()
    assert page.evaluate("document.activeElement.classList.contains('menu-toggle')")

    hands = reverse("tables:hands")
    toggle.click()
    page.click(f"#site-menu a[href='{hands}']")
    page.wait_for_url(f"**{hands}")
    assert page.locator("#site-menu").is_hidden()  # folded again on the new page
    assert page.locator("main h1").bounding_box()["y"] < 200
    page.get_by_role("button", name="Menú").click()
    current = page.locator("#site-menu a[aria-current=page]")
    assert current.count() == 1 and current.get_attribute("href") == hands and current.is_visible()
    context.close()


def test_on_a_tablet_the_links_are_in_view_without_a_button(chromium, live_server, staff):
    context, page = auditor_page(chromium, live_server, TABLET)
    links = page.locator("#site-menu a")
    assert links.count() >= 8
    assert all(links.nth(i).is_visible() for i in range(links.count()))
    assert page.locator("header.top .menu-toggle").is_hidden()
    assert page.locator("#site-menu a[aria-current=page]").count() == 0  # the home page is none of them
    context.close()


def test_without_the_script_a_phone_shows_the_links(chromium, live_server, staff):
    context, page = auditor_page(chromium, live_server, PHONE, java_script_enabled=False)
    links = page.locator("#site-menu a")
    assert links.count() >= 8 and links.first.is_visible()
    assert page.locator("header.top .menu-toggle").is_hidden()  # it could open nothing
    context.close()


def test_an_amount_keeps_its_euro_sign_on_its_line(chromium, live_server, staff):
    """A narrow amount cell (a phone's) never puts "€" on a line of its own."""
    context, page = auditor_page(chromium, live_server, PHONE)
    heights = page.evaluate("""() => {
        const table = document.createElement("table"); table.className = "data";
        table.innerHTML = '<tbody><tr><td class="num" style="width:2em">1.234.567,89 €</td></tr></tbody>';
        document.querySelector("main").append(table);
        const cell = table.querySelector("td");
        return [cell.getClientRects()[0].height, parseFloat(getComputedStyle(cell).lineHeight)];
    }""")
    assert heights[0] < 2 * heights[1], heights
    context.close()


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_a_dealers_home_links_his_open_shifts_console(chromium, live_server, mesa, viewport):
    """Issue 31: the dealer's home names his table's console, one click away (it was two:
    the table consoles, then the table)."""
    context = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "dealer1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    console = reverse("tables:console", args=[mesa.table.pk])
    link = page.locator(f"main a[href='{console}']")
    assert link.count() == 1 and link.is_visible() and link.inner_text() == "Consola de Mesa 1"
    assert link.bounding_box()["y"] + link.bounding_box()["height"] <= viewport["height"]
    link.click()
    page.wait_for_selector("#console")
    assert page.url.endswith(console)
    context.close()


def test_a_dealer_without_an_open_shift_has_no_console_link(chromium, live_server, mesa):
    services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    context = chromium.new_context(viewport=TABLET, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", "dealer1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"{live_server.url}/")
    assert page.locator("#my-tables").count() == 0
    context.close()
