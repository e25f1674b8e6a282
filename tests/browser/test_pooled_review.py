"""The review page's pooled section in Chromium, at a laptop's and a phone's size: the
latest pooled review over every table shows its alert (a dealer feeding one player at three
tables) in the reader's language, within the screen's width; the auditor asks for a run, which
leaves out, and says so, the bets the night before tested."""

import os
from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from casino.periods import gaming_day
from reports.models import PooledReview
from reports.pooling import pooled_review_request, pooled_review_run
from tests.browser.test_console import log_in
from tests.reports.test_pooling import EDGE, fed_at_three_tables  # noqa: F401  (EDGE: the theory stored below)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["laptop", "phone"])
def test_the_pooled_section_shows_the_alert_within_the_screen(chromium, live_server, staff, size):
    from reports.detection import edge_store
    from tests.reports.sessions import RULES, SEATS

    edge_store(rules=RULES, seats=SEATS, hands=20_000, seed=2017, result=EDGE)
    today = gaming_day(timezone.now())
    fed_at_three_tables(staff, today)
    pooled_review_run(run_id=pooled_review_request(day=today - timedelta(days=1)).pk)
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/reports/review/")
    page.goto("/reports/review/")
    section = page.inner_text("#pooled")
    assert "Agregado de todas las mesas" in section and "Crupier × jugador" in section
    assert page.locator("#pooled tr.alert", has_text="dealer2 × ana").count() >= 1
    width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= viewport
    shots = Path(os.environ.get("SCREENSHOTS", "/tmp/floorb-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.locator("#pooled").screenshot(path=str(shots / f"pooled-{size[0]}.png"))
    assert page.input_value("#pooled input[name=day]") == (today - timedelta(days=1)).isoformat()  # the last whole day
    page.fill("#pooled input[name=day]", today.isoformat())
    page.click("#pooled button[type=submit]")  # Celery runs eagerly here: computed at once
    latest = PooledReview.objects.order_by("-id").first()
    page.wait_for_function(f"document.querySelector('#pooled-summary').innerText.includes('n.º {latest.pk},')")
    assert latest.status == "done" and latest.requested_by == staff["auditor"]
    # Tonight's week holds the same hands as last night's: their bets, tested then, are left out and said so.
    summary = page.inner_text("#pooled-summary")
    assert latest.day == today and latest.result["repeated"] >= 1 and latest.alerts == 0
    assert f"{latest.result['repeated']} pruebas más omitidas: sus apuestas ya se probaron en noches anteriores" \
        in summary, summary
    # The shift reports' tests say where, in words: the table and the shift, not the report's key.
    section = page.inner_text("#pooled")
    assert "shift:" not in section and "player×bank" not in section and "Mesa 1 · turno n.º" in section
    page.locator("#pooled").screenshot(path=str(shots / f"pooled-repeated-{size[0]}.png"))
    context.close()
