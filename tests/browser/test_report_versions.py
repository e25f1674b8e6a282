"""An auditor reads a shift report computed three times (issue 14): the page lists both versions,
names the one stored at the shift's close with the chain head it sealed, and goes from one
version to the other; on a phone and at 1024 × 768 nothing scrolls sideways."""

from io import StringIO

import pytest
from django.core.management import call_command

from reports.models import Report
from tests.conftest import mesa_ready
from tests.reports.conftest import P01, TableInPlay

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def two_versions(staff):
    table, players = mesa_ready(staff)
    mesa = TableInPlay(table, staff, players)
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()  # committed: its report is computed at once (version 1, at the close)
    for _ in range(2):
        call_command("report", "shift", "--table", table.name, "--shift", str(shift.pk), "--format", "json",
                     "--store", stdout=StringIO(), stderr=StringIO())
    return Report.objects.order_by("version")


@pytest.mark.parametrize("viewport", [{"width": 390, "height": 844}, {"width": 1024, "height": 768}])
def test_an_auditor_goes_from_the_latest_version_to_the_one_stored_at_the_close(chromium, live_server,
                                                                                  two_versions, viewport):
    first, *_middle, second = two_versions
    page = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url).new_page()
    page.goto(f"/accounts/login/?next=/reports/{second.pk}/")
    page.fill("input[name=username]", "audit1")
    page.fill("input[name=password]", "secret-pass-1")
    page.click("main form button[type=submit]")
    page.wait_for_selector("nav.versions")
    assert "Versión 3" in page.inner_text(".downloads")
    items = page.locator("nav.versions li")
    assert items.count() == 3
    assert "guardada al cierre del turno" in items.nth(0).inner_text()
    assert page.locator("nav.versions .at-close").count() == 1
    assert "(esta)" in items.nth(2).inner_text()
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    items.nth(0).locator("a").click()
    page.wait_for_url(f"**/reports/{first.pk}/")
    seal = page.locator("dd.seal")
    assert first.result["seal"]["hash"] in seal.inner_text()
    assert "Cabeza de la cadena sellada al cierre" in page.inner_text("dl.facts")
    # The facts' names wrap within 40% of the width, so their values (the rules, a hash)
    # are not squeezed into a narrow column on a phone by the longest name.
    names, values = page.evaluate("""() => { const dl = document.querySelector("dl.facts").getBoundingClientRect().width;
        return [document.querySelector("dl.facts dt").getBoundingClientRect().width / dl,
                document.querySelector("dl.facts dd").getBoundingClientRect().width / dl]; }""")
    assert names <= 0.41 and values >= 0.5, (names, values)
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
