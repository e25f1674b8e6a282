"""The site lives within its Content-Security-Policy (only its own scripts and styles, no
'unsafe-inline'): in Chromium, a dealer plays a whole hand at the console by keyboard,
and the other desks' pages work (the phone's menu, the language selector, a drawer's
count adding up as it is typed, a report's progress), with no violation reported."""

import pytest

from tables.models import Hand
from tests.browser.test_console import keys, log_in, open_console
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Each violation, as the page's own ``securitypolicyviolation`` event tells it (the init
#: script is Playwright's, outside the page's policy).
WATCH = """window.__violations = [];
document.addEventListener("securitypolicyviolation", (e) =>
    window.__violations.push(e.violatedDirective + " " + (e.blockedURI || "inline")));"""


def watched(page):
    """Record the page's CSP violations and its console's messages about them."""
    page.context.add_init_script(WATCH)
    messages = []
    page.on("console", lambda message: messages.append(message.text))
    return messages


def violations(page, messages):
    found = page.evaluate("window.__violations || []")
    return found + [text for text in messages if "Content Security Policy" in text or "Permissions-Policy" in text]


def test_the_console_plays_a_hand_within_the_policy(browser_page, mesa):
    page = browser_page
    messages = watched(page)
    page.set_viewport_size({"width": 1024, "height": 768})
    response = page.goto("/accounts/login/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy
    open_console(page, mesa)
    page.keyboard.type("luis marta")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-status="open"]')
    for card in ("1o", "2c", "5b"):
        keys(page, card)
    keys(page, "10{Enter}")
    keys(page, "2o")
    keys(page, "p")
    keys(page, "w{Enter}")
    keys(page, "3c")
    keys(page, "p")
    keys(page, "12o")
    keys(page, "p")
    page.wait_for_selector('#console[data-status="settled"]')
    assert Hand.objects.get(table=mesa.table, number=1).status == Hand.Status.SETTLED
    assert violations(page, messages) == []


def test_the_desks_pages_work_within_the_policy(browser_page, mesa):
    page = browser_page
    messages = watched(page)
    UserFactory(username="cajajefe", roles=["cage_supervisor"])
    page.set_viewport_size({"width": 390, "height": 844})
    log_in(page, "caja1", "/")
    # The phone's menu folds and opens (the site's script, not an inline one).
    toggle = page.locator("header.top .menu-toggle")
    assert toggle.get_attribute("aria-expanded") == "false" and not page.locator("#site-menu").is_visible()
    toggle.click()
    assert page.locator("#site-menu").is_visible()
    # A drawer's count adds up as it is typed (cage's count script).
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto("/cage/drawer/close/")
    pieces = page.locator("input.pieces").first
    assert pieces.count() == 1
    before = page.inner_text("#count-total")
    assert "€" in before  # computed by the script on load ("—" without it)
    pieces.fill("3")
    page.wait_for_function("(before) => document.getElementById('count-total').textContent !== before", arg=before)
    page.goto("/cage/")
    # The language selector sends its form on a choice.
    with page.expect_navigation():
        page.select_option("select[name=language]", "en")
    assert page.locator("html").get_attribute("lang") == "en"
    assert violations(page, messages) == []
