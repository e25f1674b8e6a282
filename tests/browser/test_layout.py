"""Every page a role opens, on a phone (390 × 844): nothing scrolls sideways. The pages are
those of the demo data, reached from the menu and one step further, as a person would."""

from urllib.parse import urlparse

import pytest
from django.core.management import call_command
from playwright.sync_api import Error as PlaywrightError

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ROLES = {"dealer": "demo-dealer", "pit": "demo-pit", "cashier": "demo-cashier", "auditor": "demo-auditor"}
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


@pytest.mark.parametrize("username", sorted(ROLES))
def test_no_page_scrolls_sideways_on_a_phone(chromium, live_server, demo, username):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES", base_url=live_server.url)
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
    assert len(seen) > 3, seen
    assert wide == [], f"{username}: pages wider than 390 px: {wide}"
