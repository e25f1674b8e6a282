"""An auditor acknowledges an alert in Chromium (issue 17): from his home's open alerts to
the alert's page, a note, the confirmation, and the alert leaves the open ones with his
note and name in its history. On a phone nothing scrolls sideways."""

import re

import pytest

from reports.alerts import Finding, alert_raise
from reports.models import Alert, AlertKind
from tests.browser.test_console import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def raised(staff):
    evidence = {"bet": 7, "hand": 3, "number": 3, "player": "luis", "stake": "1250.00", "net": "-1250.00",
                "threshold": "1000.00"}
    alert, _created = alert_raise(finding=Finding(kind=AlertKind.LARGE_BET, code="stake", subject="hand:3",
                                                  identity=7, evidence=evidence))
    return alert


def test_an_auditor_acknowledges_an_alert_with_a_note(browser_page, staff, raised):
    page = browser_page
    log_in(page, "audit1", "/")
    row = page.locator("#open-alerts tr.alert-open")
    assert row.count() == 1
    assert "luis apostó 1\xa0250,00 €" in row.inner_text()  # Spanish, the reader's number format (as the ledger's pages)
    row.locator("td.finding a").click()
    page.wait_for_url(f"**/reports/alerts/{raised.pk}/")
    assert page.locator("#alert-status").inner_text() == "abierta"
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'note'")  # typed next
    page.fill("textarea[name=note]", "Visto en cámara: cliente habitual, apuesta dentro de su costumbre.")
    messages = []
    page.once("dialog", lambda dialog: (messages.append(dialog.message), dialog.accept()))
    page.click("#acknowledge button[type=submit]")
    page.wait_for_url("**/reports/alerts/")
    assert messages and "¿Reconocer esta alerta?" in messages[0]
    assert f"Alerta n.º {raised.pk} reconocida." in page.inner_text("main")
    alert = Alert.objects.get(pk=raised.pk)
    assert alert.status == "acknowledged"
    change = alert.changes.get(action="acknowledged")
    assert change.by.username == "audit1" and change.note.startswith("Visto en cámara")
    page.goto("/")
    assert page.locator("#open-alerts tr.alert-open").count() == 0
    page.goto(f"/reports/alerts/{raised.pk}/")
    assert page.locator("#acknowledge").count() == 0
    assert "Visto en cámara" in page.inner_text("#history")


def test_a_dismissed_confirmation_leaves_the_alert_open(browser_page, staff, raised):
    page = browser_page
    log_in(page, "audit1", f"/reports/alerts/{raised.pk}/")
    page.fill("textarea[name=note]", "todavía revisando las cámaras")
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#acknowledge button[type=submit]")
    page.wait_for_timeout(300)
    assert Alert.objects.get(pk=raised.pk).status == "open"


def test_the_alert_pages_fit_a_phone(chromium, live_server, staff, raised):
    context = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/")
    for url in ("/", "/reports/alerts/", f"/reports/alerts/{raised.pk}/", "/reports/alerts/?status=all"):
        page.goto(url)
        width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= viewport, url
    context.close()


def test_an_auditor_reviews_a_table_and_reads_its_funnel_on_a_phone(chromium, live_server, staff):
    """The review page in Chromium: the form is filled and sent, the figures, the funnel
    and the pairs appear; at 390 px nothing scrolls sideways."""
    from django.utils import timezone

    from reports.detection import edge_store
    from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17,
               result={"mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1,
                       "within_hand_correlation": 0.28, "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000,
                       "seed": 17, "strategy_text": "—"})
    table = simulated_table("Mesa V", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(7, 35))
    context = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/reports/review/")
    page.select_option("select[name=table]", label="Mesa V")
    today = timezone.localdate().isoformat()
    page.fill("input[name=date_from]", today)
    page.fill("input[name=date_to]", today)
    page.select_option("select[name=funnel]", "dealer")
    page.click("form.review button[type=submit]")
    page.wait_for_selector("svg.funnel circle")
    assert "35 manos" in page.inner_text("#summary")
    assert page.locator("#pairs tbody tr").count() >= 1
    assert "la banca" in page.inner_text("#cards")
    width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= viewport
    context.close()


def test_the_review_and_the_alerts_fit_a_laptop_and_a_phone(chromium, live_server, staff, raised):
    """The review of two dealers' shifts (its sums from PostgreSQL) and the alerts' list,
    at 1024×768 and 390×844: the figures are there and nothing scrolls sideways.
    ``SCREENSHOTS=dir`` keeps a PNG of each."""
    import os
    from pathlib import Path

    from django.utils import timezone

    from reports.detection import edge_store
    from tests.factories import UserFactory
    from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17,
               result={"mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1,
                       "within_hand_correlation": 0.28, "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000,
                       "seed": 17, "strategy_text": "—"})
    table = simulated_table("Mesa W", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(8, 35))
    play_shift(table, UserFactory(username="dealer2", roles=["dealer"]), staff["supervisor"], records(9, 35))
    today = timezone.localdate().isoformat()
    review = f"/reports/review/?table={table.pk}&date_from={today}&date_to={today}&funnel=dealer"
    shots = os.environ.get("SCREENSHOTS")
    for width, height in ((1024, 768), (390, 844)):
        context = chromium.new_context(viewport={"width": width, "height": height}, locale="es-ES",
                                       base_url=live_server.url)
        page = context.new_page()
        log_in(page, "audit1", "/reports/alerts/")
        for name, url in (("review", review), ("alerts", "/reports/alerts/?status=all")):
            page.goto(url)
            if name == "review":
                page.wait_for_selector("svg.funnel circle")
                assert "70 manos" in page.inner_text("#summary")
                assert page.locator("svg.funnel circle").count() == 2
            else:
                assert "luis" in page.inner_text("main")
            scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            assert scroll <= viewport, (name, width)
            if shots:
                page.screenshot(path=str(Path(shots) / f"{name}-{width}x{height}.png"), full_page=name == "alerts")
        context.close()


@pytest.mark.parametrize("viewport", [{"width": 1024, "height": 768}, {"width": 390, "height": 844}])
def test_an_ongoing_alert_reads_as_one_alert_found_again(chromium, live_server, staff, viewport, tmp_path):
    """A pooled group found again on a later night with more hands (issue 30): one alert in
    the open ones, marked ongoing with the latest figure; its page keeps the first figures
    and lists the later finding with a link to exactly its hands; on a tablet and on a phone,
    nothing scrolls sideways."""
    from tests.reports.test_ongoing_alerts import pooled

    first, _created = alert_raise(finding=pooled("week", 50))
    alert_raise(finding=pooled("week", 100, z=4.4))
    context = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/")
    rows = page.locator("#open-alerts tr.alert-open")
    assert rows.count() == 1
    assert "Sigue: encontrada de nuevo 1 vez" in rows.inner_text()
    rows.locator("td.finding a").first.click()
    page.wait_for_url(f"**/reports/alerts/{first.pk}/")
    ongoing_line = page.inner_text("#alert-ongoing")
    assert "encontrada de nuevo 1 vez desde que se abrió, la última el " in ongoing_line
    assert re.search(r"la última el \d{2}/\d{2}/\d{4} \d{2}:\d{2}$", ongoing_line), ongoing_line  # when, in words
    ongoing = page.locator("#ongoing")
    assert ongoing.is_visible() and "Encontrada de nuevo" in ongoing.inner_text()
    assert "100" in ongoing.inner_text()  # the later finding's hands, as it was found
    width, inner = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= inner
    page.screenshot(path=str(tmp_path / f"ongoing-{viewport['width']}.png"), full_page=True)
    context.close()
