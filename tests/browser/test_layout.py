"""Every page a role opens, on a phone (390 × 844) and a tablet (1024 × 768): nothing scrolls
sideways. The pages are
those of the demo data, reached from the menu and one step further, as a person would."""

from urllib.parse import urlparse

import pytest
from django.core.management import call_command
from playwright.sync_api import Error as PlaywrightError

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROLES = {"dealer": "demo-dealer", "pit": "demo-pit", "cashier": "demo-cashier", "cage": "demo-cage",
         "auditor": "demo-auditor", "cajajefe": "demo-cajajefe", "compliance": "demo-compliance"}
#: Addresses that are no page to look at: downloads, the API, leaving.
SKIP = ("/logout", "/admin", "/api/", "/i18n/", ".csv", ".pdf", ".json", "download", "format=", "page=")


#: The innermost elements that reach past the viewport's right edge, for the failure's message.
_OVERFLOWING = """() => Array.from(document.querySelectorAll("body *")).filter(el =>
    el.getBoundingClientRect().right > innerWidth + 1 &&
    !Array.from(el.children).some(k => k.getBoundingClientRect().right > innerWidth + 1))
  .slice(0, 5).map(el => `${el.tagName}.${el.className}#${el.id} ${Math.round(el.getBoundingClientRect().right)}px`)"""


@pytest.fixture
def demo(db):
    call_command("demo", verbosity=0)


#: The screens each role's pages are walked on: a phone and a tablet.
SIZES = {"phone": (390, 844), "tablet": (1024, 768)}


def walk(chromium, live_server, username, size):
    """The pages ``username`` reaches from the menu and one step further on a screen of
    ``size``: the addresses seen, and those wider than the screen (address, width, the
    innermost elements past its edge)."""
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", ROLES[username])
    page.click("main form button[type=submit]")
    page.wait_for_url("**/")
    seen, queue, wide = set(), [("/", 0)], []
    while queue and len(seen) < 25:
        url, depth = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        try:
            page.goto(url)
        except PlaywrightError:  # a page that sends the browser on at once (a report's progress)
            continue
        width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width > viewport:
            wide.append((url, width, page.evaluate(_OVERFLOWING)))
        if depth < 2:
            for href in page.eval_on_selector_all("main a[href], header a[href]", "as => as.map(a => a.href)"):
                address = urlparse(href)
                path = address.path + (f"?{address.query}" if address.query else "")
                if address.netloc == urlparse(live_server.url).netloc and not any(s in path for s in SKIP):
                    queue.append((path, depth + 1))
    context.close()
    return seen, wide


@pytest.mark.parametrize("username", sorted(ROLES))
def test_no_page_scrolls_sideways(chromium, live_server, demo, username):
    """Each role on a phone, then on a tablet, on one load of the demo (each in a fresh
    browser context: logged in anew)."""
    walks = {name: walk(chromium, live_server, username, size) for name, size in SIZES.items()}
    for name, (seen, _wide) in walks.items():
        assert len(seen) > 3, (name, seen)
    wides = {name: wide for name, (_seen, wide) in walks.items()}
    assert wides == {name: [] for name in SIZES}, f"{username}: pages wider than the screen {SIZES}: {wides}"


def test_every_screen_of_a_hand_at_the_console_fits_a_phone(chromium, live_server, mesa):
    """A dealer's phone (390 × 844) through a hand with every kind of screen: the first
    hand's seats, the deal and its question out of order, a stake with its chips, a card
    with the picker, a refusal, the showdown, the settlement on the felt, the keys' help,
    the undo page and another table's refusal page: nothing scrolls sideways."""
    from tests.factories import TableFactory

    other = TableFactory(name="Mesa 2")
    page = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES",
                                base_url=live_server.url).new_page()
    page.goto(f"/accounts/login/?next=/tables/console/{mesa.table.pk}/")
    page.fill("input[name=username]", "dealer1")
    page.fill("input[name=password]", "secret-pass-1")
    page.click("main form button[type=submit]")
    page.wait_for_selector("#form-open")
    wide = []

    def look(what):
        width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width > viewport:
            wide.append((what, width, page.evaluate(_OVERFLOWING)))

    def enter(text, version):
        page.keyboard.type(text)
        page.wait_for_selector(f'#console[data-version="{version}"]')

    look("no hand yet")
    # The keys go where the console puts the focus once its script has run (typed before
    # that, under load, they went nowhere and the deal never came).
    page.wait_for_function("() => document.activeElement && document.activeElement.id === 'id_seats'")
    page.keyboard.type("luis marta")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-deal")
    look("the deal")
    page.keyboard.press("ArrowDown")
    page.keyboard.type("11o")
    page.wait_for_selector(".confirm:not([hidden])")
    look("a deal out of order, asked")
    page.keyboard.press("Escape")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    page.keyboard.press("Backspace")
    enter("11o", 1)
    page.keyboard.press("x")  # marta's card unknown
    page.wait_for_selector('#console[data-version="2"]')
    enter("4e", 3)
    look("a stake with its chips")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help[open]")
    look("the keys' help")
    page.keyboard.press("Escape")
    page.keyboard.press("w")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-version="4"]')
    look("a card with the picker")
    page.keyboard.type("11o")
    page.wait_for_selector("#refusal")
    look("a refusal")
    enter("5b", 5)
    page.keyboard.press("z")
    page.wait_for_selector("#form-undo")
    look("the undo page")
    page.go_back()
    page.wait_for_selector('#console[data-version="5"]')
    page.keyboard.press("p")
    page.wait_for_selector('#console[data-version="6"]')
    page.keyboard.press("w")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-version="7"]')
    page.keyboard.press("p")
    page.wait_for_selector('#console[data-version="8"]')
    enter("6o", 9)  # the bank's 4 + 6: bust; marta's card is named at the showdown
    page.wait_for_selector("#form-identify-marta-1")
    look("the showdown")
    enter("1c", 10)
    page.wait_for_selector("#settlement")
    look("the settlement")
    page.goto(f"/tables/console/{other.pk}/")
    look("another table's console: refused")
    page.goto("/tables/console/")
    look("the tables")
    page.context.close()
    assert wide == [], f"pages wider than 390 px: {wide}"
