"""Browser tests: Playwright's sync API driving Debian's Chromium (never a downloaded
browser) against pytest-django's ``live_server``. Marked ``browser``.

Playwright's sync API runs an event loop in the test's thread, which Django takes for an
async context; the ORM calls of the fixtures are safe there (one thread, no coroutine),
hence ``DJANGO_ALLOW_ASYNC_UNSAFE``.
"""

import os
from pathlib import Path

import pytest

os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]
#: Explicit waits (ms): generous for a 2-core machine shared with other work.
TIMEOUT = 20_000

# The table fixture (``mesa``) is the service tests' own; ``staff`` is the suite's (tests/conftest.py).
from tests.tables.conftest import mesa  # noqa: E402,F401


@pytest.fixture(scope="session")
def chromium():
    """Debian's Chromium, launched once for the session."""
    from playwright.sync_api import sync_playwright

    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: apt-get install chromium (CI installs it)")
    playwright = sync_playwright().start()
    browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
    yield browser
    browser.close()
    playwright.stop()


@pytest.fixture
def browser_page(chromium, live_server):
    """A fresh browser context (no cookies) at the table's language, Spanish; its page."""
    context = chromium.new_context(locale="es-ES", viewport={"width": 1024, "height": 1366},
                                   base_url=live_server.url)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    yield page
    context.close()
