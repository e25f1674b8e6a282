"""A statistical alert's page says its test (issue 30, item 6): what was tested, the
figures, the expectation as played with its band, z, p and q, in Spanish; it fits
1024×768 and 390×844 (``SCREENSHOTS=dir`` keeps a PNG of each)."""

import os
from pathlib import Path

import pytest

from reports.alerts import Finding, alert_raise
from reports.models import AlertKind
from tests.browser.test_console import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

FIT = {"stand_at": 12, "bank_stand_at": None, "agreement": 1.0, "bank_agreement": 1.0, "plausible": [12],
       "options": {"split": [80, 80], "exchange": [90, 90], "fusilar": [85, 0], "muerto": [0, 0]},
       "strategy": {"stand_at": 12, "fusilar": False, "exchange_fours": "always", "split": True, "muerto": False},
       "hands": 3200}


@pytest.fixture
def pair_alert(mesa):
    evidence = {"a": "banca", "b": "luis", "hands": 3200, "bets": 3350, "staked": 6120.0, "actual": -310.5,
                "expected": 800.2, "sd": 190.4, "z": -5.83, "p_value": 5.5e-9, "q_value": 1.1e-7,
                "combined_q": 2.3e-7, "hand_ids": [], "hand_total": 3200, "fit": FIT,
                "per_unit_expected": 0.1307, "per_unit_band": 0.0933}
    alert, _created = alert_raise(finding=Finding(kind=AlertKind.PAIR, code="bank×player", subject="table:test",
                                                  identity=["banca", "luis"], evidence=evidence,
                                                  table_id=mesa.table.pk))
    return alert


def test_the_alerts_test_reads_in_spanish_and_fits_a_laptop_and_a_phone(chromium, live_server, staff, pair_alert):
    shots = os.environ.get("SCREENSHOTS")
    for width, height in ((1024, 768), (390, 844)):
        context = chromium.new_context(viewport={"width": width, "height": height}, locale="es-ES",
                                       base_url=live_server.url)
        page = context.new_page()
        log_in(page, "audit1", f"/reports/alerts/{pair_alert.pk}/")
        test = page.inner_text("#test")
        assert "El resultado de la banca en las apuestas de un jugador contra un banquero" in test
        assert ("se esperaba +0,131 ± 0,093 por unidad apostada, con los puestos plantándose en 6 como se observó "
                "en estas 3\xa0200 manos, y la banca respondiendo a lo que ve") in test
        assert "z = -5,83" in test and "-310,50 €" in test
        assert "se esperaba +0,131" in page.inner_text("#finding")
        scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert scroll <= viewport, width
        if shots:
            page.screenshot(path=str(Path(shots) / f"alert-test-{width}x{height}.png"), full_page=True)
        context.close()
