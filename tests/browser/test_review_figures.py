"""The review page's figures agree in Chromium, at a laptop's and a phone's size: a
selection too small for a p-value shows its hands' figures in the expected-against-actual
table (marked not tested), the same hands as the summary's and the funnel's."""

import os
from pathlib import Path

import pytest
from django.utils import timezone

from reports.detection import edge_store
from tests.browser.test_console import log_in
from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["laptop", "phone"])
def test_a_small_selection_shows_the_same_hands_everywhere(chromium, live_server, staff, size):
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17,
               result={"mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1,
                       "within_hand_correlation": 0.28, "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000,
                       "seed": 17})
    table = simulated_table("Mesa V", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(9, 21))
    today = timezone.localdate().isoformat()
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/reports/review/")
    page.goto(f"/reports/review/?table={table.pk}&date_from={today}&date_to={today}&funnel=tenure")
    page.wait_for_selector("svg.funnel circle")
    assert page.inner_text("#summary").startswith("21 manos, 21 de ellas liquidadas con apuestas")
    expected = page.inner_text("#expected table")
    assert "Ninguna mano liquidada" not in expected
    assert "Todas las manos" in expected and "sin prueba: menos de 30 manos" in expected
    assert page.locator("svg.funnel circle").count() == 1  # one bank tenure: one dot
    width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= viewport
    shots = Path(os.environ.get("SCREENSHOTS", "/tmp/floorb-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"review-{size[0]}.png"), full_page=True)
    context.close()


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["laptop", "phone"])
def test_a_review_whose_theory_is_missing_says_it_is_computed_and_then_answers(chromium, live_server, staff, size):
    """No edge stored for the play fitted to the hands: the page says the theory is being
    computed (the task queued; eager here, a worker as shipped), fits the screen, and the
    same review asked again answers with its figures."""
    from django.core.cache import cache

    from reports.models import EdgeFigure

    table = simulated_table("Mesa T", staff)
    play_shift(table, staff["dealer"], staff["supervisor"], records(9, 21))
    EdgeFigure.objects.all().delete()  # the shift's alerts stored the theory its hands need
    cache.clear()
    today = timezone.localdate().isoformat()
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    log_in(page, "audit1", "/reports/review/")
    url = f"/reports/review/?table={table.pk}&date_from={today}&date_to={today}&funnel=tenure"
    page.goto(url)
    waiting = " ".join(page.inner_text("form.review .errorlist").split())
    assert "aún no está guardada" in waiting and "se está calculando ahora" in waiting, waiting
    width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= viewport
    shots = Path(os.environ.get("SCREENSHOTS", "/tmp/floorb-shots"))
    shots.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shots / f"review-theory-missing-{size[0]}.png"), full_page=True)
    page.goto(url)
    assert page.inner_text("#summary").startswith("21 manos, 21 de ellas liquidadas con apuestas")
    context.close()
