"""An auditor reads the audit's latest runs on a table's integrity page (the nightly
incremental ``ledger_check`` and the weekly full one, ``reports.checkpoints``), in Spanish,
at 1024x768 and on a phone (390x844), in Debian's Chromium."""

import os

import pytest
from django.db import transaction

from reports.checkpoints import check_run
from tests.reports.conftest import P01
from tests.reports.test_one_check import as_the_owner

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Where the screenshots go when set (to look at them), else nowhere.
SHOTS = os.environ.get("BROWSER_SHOTS", "")


@pytest.mark.parametrize("viewport", [{"width": 1024, "height": 768}, {"width": 390, "height": 844}])
def test_the_auditor_reads_the_latest_runs_and_their_faults(chromium, live_server, mesa, staff, viewport):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    check_run(full=True)
    check_run()
    with transaction.atomic():
        as_the_owner("UPDATE tables_handbet SET net = net + 1 WHERE id = (SELECT min(id) FROM tables_handbet "
                     "WHERE hand_id = %s)", [hand.pk])
    check_run(full=True)
    staff["auditor"].set_password("audit-pass")
    staff["auditor"].save()
    context = chromium.new_context(locale="es-ES", viewport=viewport, base_url=live_server.url)
    page = context.new_page()
    page.goto(f"/accounts/login/?next=/tables/hands/{mesa.table.pk}/integrity/")
    page.fill("input[name=username]", staff["auditor"].username)
    page.fill("input[name=password]", "audit-pass")
    page.click("main form button[type=submit]")
    page.wait_for_selector("table.checkpoints")
    rows = page.locator("table.checkpoints tbody tr")
    assert rows.count() == 3
    assert "completa" in rows.nth(0).inner_text() and "incremental" in rows.nth(1).inner_text()
    assert page.get_by_text("Las comprobaciones de la auditoría").is_visible()
    assert page.get_by_text("La última ejecución encontró 1 fallo", exact=False).is_visible()
    assert page.locator("ul.faults li", has_text="hand Mesa 1 #1").first.is_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= viewport["width"], "the page scrolls sideways"
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/integrity-{viewport['width']}.png", full_page=True)
    context.close()
