"""An auditor works through a grouped alert in Chromium (issue 17): from the alert, its link
to the hand history filtered to exactly its hands (the shift's hands where marta staked at
least the table's large bet), back, and the alert acknowledged with a note. The alert's
page and the filtered hand history fit 1024×768 and 390×844 (``SCREENSHOTS=dir`` keeps a
PNG of each)."""

import os
from decimal import Decimal
from pathlib import Path
from types import SimpleNamespace

import pytest

from reports.alerts import alerts_raise
from reports.detection import large_bet_findings
from reports.models import Alert
from tables.models import Hand
from tests.browser.test_console import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: luis bets 10, marta 20 (the table's large bet below).
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]
#: marta stakes only 10 here: not a large bet.
SMALL = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
         "marta bet 10", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture
def grouped(mesa):
    """Mesa 1 with a large bet of 20.00 and four hands (marta's 20.00 in hands 1, 2 and 4):
    one alert for marta's large bets of the shift."""
    mesa.table.large_bet = Decimal("20.00")
    mesa.table.save(update_fields=["large_bet"])
    for lines in (P01, P01, SMALL, P01):
        mesa.play(mesa.open("luis", "marta"), *lines)
    hands = Hand.objects.filter(table=mesa.table)
    [alert] = alerts_raise(findings=large_bet_findings(SimpleNamespace(table=mesa.table, pk=None), hands))
    return alert


def test_an_auditor_follows_an_alert_to_its_hands_and_acknowledges_it(browser_page, staff, grouped):
    page = browser_page
    log_in(page, "audit1", f"/reports/alerts/{grouped.pk}/")
    assert "marta apostó 3 veces" in page.inner_text("#finding")
    assert page.inner_text("#bet-total") == "60,00 €" and page.inner_text("#bet-largest") == "20,00 €"
    page.click("#evidence-hands")
    page.wait_for_url("**/tables/hands/**player=marta**")
    assert [int(n) for n in page.locator("table.hands tbody tr td:first-child").all_inner_texts()] == [4, 2, 1]
    assert "3 manos" in page.inner_text("#hand-count")
    assert page.input_value("input[name=player]") == "marta"
    assert page.locator("details.more-filters[open]").count() == 1  # the least stake, the hand numbers
    page.go_back()
    page.wait_for_url(f"**/reports/alerts/{grouped.pk}/")
    page.fill("textarea[name=note]", "Revisadas las tres manos en cámara: apuestas de una cliente habitual.")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#acknowledge button[type=submit]")
    page.wait_for_url("**/reports/alerts/")
    alert = Alert.objects.get(pk=grouped.pk)
    assert alert.status == "acknowledged"
    change = alert.changes.get(action="acknowledged")
    assert change.by.username == "audit1" and change.note.startswith("Revisadas las tres manos")


def test_the_alert_and_its_hands_fit_a_laptop_and_a_phone(chromium, live_server, staff, grouped):
    shots = os.environ.get("SCREENSHOTS")
    for width, height in ((1024, 768), (390, 844)):
        context = chromium.new_context(viewport={"width": width, "height": height}, locale="es-ES",
                                       base_url=live_server.url)
        page = context.new_page()
        log_in(page, "audit1", f"/reports/alerts/{grouped.pk}/")
        hands = page.get_attribute("#evidence-hands", "href")
        for name, url in (("alert", f"/reports/alerts/{grouped.pk}/"), ("hands", hands),
                          ("hands-refused", f"/tables/hands/{grouped.table_id}/?min_stake=mucho&number_from=9"
                                            f"&number_to=2")):
            page.goto(url)
            scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll <= viewport, (name, width)
            if name == "hands-refused":
                assert page.locator("#id_min_stake_error").count() == 1
                assert page.locator("#id_number_to_error").count() == 1
            if shots:
                page.screenshot(path=str(Path(shots) / f"{name}-{width}x{height}.png"), full_page=True)
        context.close()
