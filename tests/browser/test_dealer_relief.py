"""Dealer relief in Debian's Chromium at 1024x768 and 390x844 (issue 34, item 2): the pit
relieves dealer1 with dealer2 at Mesa 1 from the table's page (a choice, then a
confirmation), dealer1's console says at once that he was relieved, by whom and when,
dealer2 enters a whole hand at the console, and the hand history shows dealer2 as its
dealer. The pit's pages fit the width (``SCREENSHOT_DIR`` keeps the pit's page)."""

import os
import re

import pytest
from django.utils import timezone

from tables.models import DealerRelief, Hand
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def new_page(chromium, live_server, width, height):
    context = chromium.new_context(locale="es-ES", viewport={"width": width, "height": height},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    return context, context.new_page()


def log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}")


def keys(page, text):
    """Type ``text`` at the console (``{Enter}``-style names between braces) and wait for
    the entry recorded (the console's version one up)."""
    before = int(page.get_attribute("#console", "data-version") or -1)
    for part in re.findall(r"\{(\w+)\}|(.)", text):
        page.keyboard.press(part[0] or part[1])
    page.wait_for_selector(f'#console[data-version="{before + 1}"]')


def fits(page, width):
    return page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["1024x768", "390x844"])
def test_the_pit_relieves_a_dealer_and_the_console_moves(chromium, live_server, mesa, size):
    width, height = size
    second = UserFactory(username="dealer2", roles=["dealer"])
    for user in (mesa.dealer, second, mesa.supervisor):
        user.set_password(PASSWORD)
        user.save()
    console = f"/tables/console/{mesa.table.pk}/"

    first_context, first = new_page(chromium, live_server, width, height)
    log_in(first, "dealer1", console)
    first.wait_for_selector("#form-open")

    pit_context, pit = new_page(chromium, live_server, width, height)
    log_in(pit, "pit1", f"/tables/pit/tables/{mesa.table.pk}/")
    assert fits(pit, width)
    pit.select_option("form.relieve select[name=dealer]", label="dealer2")
    pit.click("form.relieve button[type=submit]")
    pit.wait_for_selector("p.confirm-relief")
    assert "dealer2 toma Mesa 1 de dealer1" in pit.inner_text("p.confirm-relief")
    assert fits(pit, width)
    pit.click("main form button[type=submit]")
    pit.wait_for_url(f"**/tables/pit/tables/{mesa.table.pk}/")
    assert "dealer2 relevó a dealer1 en Mesa 1." in pit.inner_text("main")
    relief = DealerRelief.objects.get()
    at = timezone.localtime(relief.at).strftime("%H:%M")

    pit.goto("/tables/pit/")
    assert "dealer2" in pit.inner_text("table.tables td.dealing")
    assert fits(pit, width)
    if os.environ.get("SCREENSHOT_DIR"):
        pit.screenshot(path=os.path.join(os.environ["SCREENSHOT_DIR"], f"pit-relief-{width}.png"), full_page=True)
        pit.goto(f"/tables/pit/tables/{mesa.table.pk}/")
        pit.screenshot(path=os.path.join(os.environ["SCREENSHOT_DIR"], f"pit-table-relief-{width}.png"),
                       full_page=True)

    # dealer1's console is gone at once: the page says by whom and when.
    first.reload()
    assert f"Le relevó en Mesa 1 dealer2 a las {at}" in first.inner_text("main")
    assert first.locator("#form-open").count() == 0

    # dealer2 enters a whole hand: luis 7 wins, marta 4 loses, the bank stands on 6.
    second_context, page = new_page(chromium, live_server, width, height)
    log_in(page, "dealer2", console)
    page.wait_for_selector("#form-open")
    page.fill("#form-open input[name=seats]", "luis marta")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-status="open"]')
    for card in ("5o", "3c", "2e"):
        keys(page, card)
    for line in ("10{Enter}", "2b", "p", "20{Enter}", "1o", "p", "4e", "p"):
        keys(page, line)
    page.wait_for_selector('#console[data-status="settled"]')
    hand = Hand.objects.get(table=mesa.table, number=1)
    assert hand.status == Hand.Status.SETTLED and hand.dealer == second

    # The hand history: dealer2 dealt hand #1.
    pit.goto(f"/tables/hands/{mesa.table.pk}/")
    row = pit.locator("table.hands tbody tr").first
    assert "dealer2" in row.inner_text()
    pit.goto(f"/tables/hands/{mesa.table.pk}/1/")
    assert pit.inner_text("td.hand-dealer") == "dealer2"
    assert fits(pit, width)
    for context in (first_context, pit_context, second_context):
        context.close()
