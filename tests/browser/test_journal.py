"""The accounting journal in a real browser: the auditor opens a day's journal from the
menu, sees it reconciled, each entry's lines and the totals per account, downloads it; no
sideways scroll at 1024×768 or 390×844. ``JOURNAL_SHOTS=dir`` keeps screenshots."""

import os
from decimal import Decimal

import pytest

from boxes.services import table_buy_in
from ledger.chips import chips_transfer
from tests.browser.test_console import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def auditor_opens(chromium, live_server, size, entry, path):
    """audit1 logged in at ``size`` (a phone folds the menu), ``entry`` of the menu opened:
    ``(context, page)`` at ``path``."""
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "audit1", "/")
    if size[0] < 600:
        page.click("button.menu-toggle")
    page.click(f"nav >> text={entry}")
    page.wait_for_url(f"**{path}")
    return context, page


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_the_auditor_reads_a_days_journal(chromium, live_server, mesa, size):
    table_buy_in(shift=mesa.table.shifts.get(), player=mesa.players["pepe"], amount=Decimal("200"),
                 recorded_by=mesa.dealer)
    chips_transfer(giver=mesa.players["rosa"], receiver=mesa.players["marta"], amount=Decimal("25"),
                   reason="le presta", posted_by=mesa.supervisor)
    context, page = auditor_opens(chromium, live_server, size, "Diario", "/reports/journal/")
    assert page.is_visible("#reconciled")
    if os.environ.get("JOURNAL_SHOTS"):
        page.screenshot(path=f"{os.environ['JOURNAL_SHOTS']}/journal-{size[0]}.png", full_page=True)
    text = page.inner_text("main")
    assert "Compra en la mesa (1 operación)" in text and "Traspaso de fichas (1 operación)" in text, text
    assert "Urnas de las mesas (drop)" in text and "Fichas en poder de los clientes" in text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    with page.expect_download() as download:
        page.click("text=CSV")
    assert download.value.suggested_filename.startswith("journal-")
    context.close()


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_the_auditor_reads_the_results_against_a_year_before(chromium, live_server, mesa, size):
    table_buy_in(shift=mesa.table.shifts.get(), player=mesa.players["pepe"], amount=Decimal("200"),
                 recorded_by=mesa.dealer)
    context, page = auditor_opens(chromium, live_server, size, "Resultados", "/reports/results/")
    text = page.inner_text("main")
    assert "Jornada de juego" in text and "Mes en curso" in text and "Año en curso" in text, text
    assert "Mesa 1" in text and "Perfil reglamento" in text and "200,00" in text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    if os.environ.get("JOURNAL_SHOTS"):
        page.screenshot(path=f"{os.environ['JOURNAL_SHOTS']}/results-{size[0]}.png", full_page=True)
    context.close()
