"""The dispute desk in Chromium (issue 34, item 4), on a phone (390 × 844) and a tablet
(1024 × 768): the pit opens a dispute from a settled hand's page, steps back through its
entries (the felt redrawn: after each entry exactly the cards dealt so far), upholds it
voiding the hand after the confirmation, and the hand is voided; the auditor finds it in
the list and downloads the CSV. Nothing scrolls sideways; a screenshot of each page is
kept under var/screenshots/ for a person to look at."""

import csv
import io
from pathlib import Path

import pytest

from tables.models import Dispute, Hand
from tests.conftest import ROOT
from tests.hands import event

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]
SHOTS = ROOT / "var" / "screenshots"


def _login(context, username, address):
    page = context.new_page()
    page.goto(f"/accounts/login/?next={address}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{address}")
    return page


def _fits(page, size):
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0], page.url


def _shot(page, name, size):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(Path(SHOTS) / f"dispute-{name}-{size[0]}.png"), full_page=True)


def _felt_cards(page):
    return sorted(page.eval_on_selector_all(".replay .felt .card[data-card]",
                                            "cs => cs.map(c => c.dataset.card).filter(Boolean)"))


@pytest.mark.parametrize("size", [(390, 844), (1024, 768)], ids=["phone", "tablet"])
def test_the_pit_upholds_a_dispute_and_the_auditor_downloads_it(chromium, live_server, mesa, staff, size):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    assert hand.status == Hand.Status.SETTLED
    context = chromium.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                   base_url=live_server.url, accept_downloads=True)
    page = _login(context, "pit1", f"/tables/hands/{mesa.table.pk}/{hand.number}/")
    page.click("#open-dispute")
    page.wait_for_selector("textarea[name=claim]")
    _fits(page, size)
    page.fill("input[name=player]", "marta")
    page.fill("textarea[name=claim]", "Marta dice que el 4 de la banca era suyo.")
    page.click("form.dispute-open button[type=submit]")
    page.wait_for_selector("#step-at")
    dispute = Dispute.objects.get()
    assert page.inner_text("#step-at") == f"Tras la entrada {len(P01)} de {len(P01)}"
    _fits(page, size)
    _shot(page, "end", size)
    for step in range(len(P01) - 1, -1, -1):  # back through the entries, one at a time
        page.click("#step-previous")
        page.wait_for_url(f"**?step={step}")
        dealt = sorted(event(line)["card"] for line in P01[:step] if event(line).get("card"))
        assert _felt_cards(page) == dealt, step
        if step == 5:
            assert "luis" in page.inner_text(".replay") and "10,00 €" in page.inner_text(".replay")
            _fits(page, size)
            _shot(page, "step-5", size)
    page.click(".entry-steps li:nth-child(4) a")  # entry 3: the bank's initial 2
    page.wait_for_url("**?step=3")
    assert _felt_cards(page) == ["2E", "3C", "5O"]
    page.check("input[name=outcome][value=void]")
    page.fill("textarea[name=decision]", "Error de reparto: el 4 era de marta.")
    page.click("form.decide button[type=submit]")
    page.wait_for_selector("form.confirm-void")
    _fits(page, size)
    _shot(page, "confirm", size)
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.SETTLED  # nothing until confirmed
    page.click("form.confirm-void button.danger")
    page.wait_for_selector(".decided")
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.VOIDED
    dispute.refresh_from_db()
    assert (dispute.status, dispute.outcome, dispute.void_id is not None) == ("decided", "upheld", True)
    assert "estimada" in page.inner_text(".decided")
    _fits(page, size)

    auditor = _login(context.browser.new_context(viewport={"width": size[0], "height": size[1]}, locale="es-ES",
                                                 base_url=live_server.url, accept_downloads=True),
                     "audit1", "/tables/disputes/")
    auditor.select_option("select[name=table]", str(mesa.table.pk))
    auditor.fill("input[name=player]", "marta")
    auditor.click("form.desk-filters button[type=submit]")
    auditor.wait_for_url("**player=marta**")
    assert auditor.locator("table.disputes tbody tr").count() == 1
    assert "mano anulada" in auditor.inner_text("table.disputes")
    _fits(auditor, size)
    _shot(auditor, "desk", size)
    assert auditor.locator("form.decide").count() == 0
    with auditor.expect_download() as info:
        auditor.click("a.export")
    download = info.value
    assert download.suggested_filename == "disputes-semicolon.csv"
    with open(download.path(), encoding="utf-8") as file:
        rows = list(csv.reader(io.StringIO(file.read()), delimiter=";"))
    assert rows[4][:3] == [str(dispute.pk), "Mesa 1", str(hand.number)] and rows[4][7:9] == ["decidida", "estimada"]
    assert rows[4][12] == "sí"
    auditor.context.close()
    context.close()
