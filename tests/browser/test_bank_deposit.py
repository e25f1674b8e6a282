"""The bank's capital deposited at the cage, in a real browser: the pit awards the bank at
auction, the dealer's console shows it awaiting its deposit and refuses the hand, the
cashier books the deposit from the banks awaiting theirs, and the dealer then opens the
hand. On a phone and at 1024x768 the pages changed fit the screen. [issue 16]

``SCREENSHOT_DIR=/some/dir`` keeps a screenshot of each page at both sizes."""

import os
import re
from decimal import Decimal
from pathlib import Path

import pytest

from cage.models import CashierSlip
from ledger.models import Transaction
from reports.services import report_request, report_run
from tables import services
from tables.models import BankTenure, Hand
from tests.browser.test_console import log_in
from tests.factories import deposit_bank

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _context(chromium, live_server, width=1024, height=768):
    return chromium.new_context(locale="es-ES", viewport={"width": width, "height": height},
                                base_url=live_server.url)


def test_the_pit_awards_the_bank_the_cashier_books_the_deposit_and_the_dealer_opens_the_hand(
        chromium, live_server, mesa):
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    pit = _context(chromium, live_server).new_page()
    log_in(pit, "pit1", f"/tables/pit/tables/{mesa.table.pk}/")
    pit.click("text=Subastar la banca")
    pit.fill("input[name=sessions]", "1")
    pit.click("button[name=open]")
    pit.wait_for_selector("#form-bid")
    pit.fill("input[name=player]", "pepe")
    pit.fill("input[name=amount]", "150,00")
    pit.click("button[name=bid]")
    pit.wait_for_selector("text=Puja de pepe registrada")
    pit.click("button[name=award]")
    pit.click("text=Confirmar la adjudicación")
    pit.wait_for_selector(".awaiting-deposit")
    assert "pepe debe 150,00 € de sus 150,00 €" in pit.inner_text(".awaiting-deposit")
    tenure = BankTenure.objects.get(table=mesa.table, closed_at__isnull=True)
    assert (tenure.holder.code, tenure.began, tenure.deposit_required) == ("pepe", "auction", True)

    dealer = _context(chromium, live_server).new_page()
    log_in(dealer, "dealer1", f"/tables/console/{mesa.table.pk}/")
    dealer.wait_for_selector(".bank-awaiting-deposit")
    assert "pendiente de depósito en caja" in dealer.inner_text(".bank-awaiting-deposit")
    dealer.fill("#form-open input[name=seats]", "luis marta")
    dealer.click("#form-open button[type=submit]")
    dealer.wait_for_selector("text=pepe debe 150,00 €")
    assert not Hand.objects.filter(tenure=tenure).exists()

    cashier = _context(chromium, live_server).new_page()
    log_in(cashier, "caja1", "/cage/")
    cashier.click("nav >> text=Depósito de banca")
    cashier.wait_for_url(re.compile(r"/cage/bank-deposit/[^/]+/"))
    assert "pepe debe 150,00 € de sus 150,00 €" in cashier.inner_text("main")
    cashier.click("text=rellenar")
    assert cashier.input_value("input[name=player]") == "pepe"
    assert cashier.input_value("input[name=amount]") == "150,00"
    cashier.get_by_role("button", name="Asentar el depósito de banca").click()
    cashier.wait_for_url(re.compile(r"/cage/slips/\d+/"))
    assert "Mesa 1, banca de pepe" in cashier.inner_text("#slip")
    slip = CashierSlip.objects.get(tenure=tenure)
    assert (slip.player.code, slip.amount, slip.kind, slip.transaction.kind) == (
        "pepe", Decimal("150.00"), "bank_deposit", Transaction.Kind.CAPITAL_IN)

    dealer.goto(f"/tables/console/{mesa.table.pk}/")
    assert dealer.locator(".bank-awaiting-deposit").count() == 0
    dealer.fill("#form-open input[name=seats]", "luis marta")
    dealer.click("#form-open button[type=submit]")
    dealer.wait_for_selector("[data-card-input]")
    hand = Hand.objects.get(table=mesa.table, status="open")
    assert (hand.tenure, hand.bank.code) == (tenure, "pepe")
    for page in (pit, dealer, cashier):
        page.context.close()


def test_the_pages_of_a_bank_awaiting_its_deposit_fit_the_screen(chromium, live_server, mesa):
    """The console, the pit's table, the cage's deposit page and the bank-rotation report at
    1024x768 and 390x844: no sideways scroll."""
    from django.utils import timezone

    p = mesa.players
    services.table_bank_sell(table=mesa.table, buyer=p["pepe"], price=Decimal("20"), capital=Decimal("300"),
                             shares=[(p["pepe"], Decimal("60")), (p["rosa"], Decimal("40"))], by=mesa.supervisor)
    today = timezone.localdate()
    request = report_request(kind="banks", table=mesa.table, date_from=today, date_to=today, requested_by=None)
    report = report_run(request_id=request.pk).report
    shots = os.environ.get("SCREENSHOT_DIR")
    pages = {"console": ("dealer1", f"/tables/console/{mesa.table.pk}/"),
             "pit-table": ("pit1", f"/tables/pit/tables/{mesa.table.pk}/"),
             "cage-deposit": ("caja1", "/cage/bank-deposit/"),
             "bank-report": ("audit1", f"/reports/{report.pk}/")}
    wide = []
    for width, height in ((1024, 768), (390, 844)):
        for name, (user, url) in pages.items():
            context = _context(chromium, live_server, width, height)
            page = context.new_page()
            if name == "cage-deposit":  # the form moves to an address of its own
                log_in(page, user, "/cage/")
                page.goto(url)
            else:
                log_in(page, user, url)
            page.wait_for_load_state()
            scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > viewport:
                wide.append((name, width, scroll))
            if shots:
                page.screenshot(path=str(Path(shots) / f"{name}-{width}x{height}.png"), full_page=True)
            context.close()
    assert wide == []
    deposit_bank(mesa.table)


def test_a_wiped_out_bank_rebuilt_at_the_cage_before_the_next_hand(chromium, live_server, mesa):
    """The pit orders the rebuild of ana's wiped-out limited bank (pepe and rosa hold a
    third each), the console refuses the next hand naming who owes what, the cashier books
    each member's share from the banks awaiting theirs, and the dealer opens the hand. The
    pages changed fit 1024x768 and 390x844 (``SCREENSHOT_DIR`` keeps them)."""
    from tests.boxes.test_bank_life import BANK_LOSES, play

    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    p = mesa.players
    tenure = services.table_bank_draw(table=mesa.table, holder=p["ana"], capital=Decimal("30"), by=mesa.supervisor,
                                      shares=[(p["ana"], Decimal("33.34")), (p["pepe"], Decimal("33.33")),
                                              (p["rosa"], Decimal("33.33"))])
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)  # the bank pays 30.00: wiped out

    pit = _context(chromium, live_server).new_page()
    log_in(pit, "pit1", f"/tables/pit/tables/{mesa.table.pk}/bank/rebuild/")
    assert "depositados en caja por su sindicato" in pit.inner_text("main")
    pit.fill("input[name=amount]", "30,01")
    pit.get_by_role("button", name="Continuar").click()
    pit.get_by_role("button", name="Confirmar").click()
    pit.wait_for_selector("text=Ordenada la reconstitución de la banca de ana con 30,01 €")
    rebuild = tenure.rebuilds.get()
    assert (rebuild.amount, rebuild.ordered_by.username) == (Decimal("30.01"), "pit1")

    dealer = _context(chromium, live_server).new_page()
    log_in(dealer, "dealer1", f"/tables/console/{mesa.table.pk}/")
    dealer.wait_for_selector(".bank-awaiting-deposit")
    waiting = dealer.inner_text(".bank-awaiting-deposit")
    assert "reconstitución en caja (30,01 €)" in waiting and "ana debe 10,01 €" in waiting
    dealer.fill("#form-open input[name=seats]", "luis marta")
    dealer.click("#form-open button[type=submit]")
    dealer.wait_for_selector("text=pepe debe 10,00 €")
    assert Hand.objects.filter(tenure=tenure).count() == 1

    cashier = _context(chromium, live_server).new_page()
    log_in(cashier, "caja1", "/cage/")
    for code, amount in (("ana", "10,01"), ("pepe", "10,00"), ("rosa", "10,00")):
        cashier.click("nav >> text=Depósito de banca")
        cashier.wait_for_url(re.compile(r"/cage/bank-deposit/[^/]+/"))
        assert "banca de ana, reconstitución 1 de 30,01 €" in cashier.inner_text("main")
        cashier.click(f"li:has-text('{code} debe') >> text=rellenar")
        assert (cashier.input_value("input[name=player]"), cashier.input_value("input[name=amount]")) == (code, amount)
        cashier.get_by_role("button", name="Asentar el depósito de banca").click()
        cashier.wait_for_url(re.compile(r"/cage/slips/\d+/"))
    slips = CashierSlip.objects.filter(rebuild=rebuild).order_by("number")
    assert [(s.player.code, s.amount, s.transaction.kind) for s in slips] == [
        ("ana", Decimal("10.01"), "bank_rebuild"), ("pepe", Decimal("10.00"), "bank_rebuild"),
        ("rosa", Decimal("10.00"), "bank_rebuild")]

    dealer.goto(f"/tables/console/{mesa.table.pk}/")
    assert dealer.locator(".bank-awaiting-deposit").count() == 0
    dealer.fill("#form-open input[name=seats]", "luis marta")
    dealer.click("#form-open button[type=submit]")
    dealer.wait_for_selector("[data-card-input]")
    assert Hand.objects.get(table=mesa.table, status="open").tenure == tenure
    for page in (pit, dealer, cashier):
        page.context.close()


def test_the_pages_of_a_bank_awaiting_its_rebuild_fit_the_screen(chromium, live_server, mesa):
    """The pit's rebuild page, the console and the cage's deposit page while a rebuild
    awaits its deposits, at 1024x768 and 390x844: no sideways scroll."""
    from tests.boxes.test_bank_life import BANK_LOSES, play

    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    p = mesa.players
    services.table_bank_draw(table=mesa.table, holder=p["ana"], capital=Decimal("30"), by=mesa.supervisor,
                             shares=[(p["ana"], Decimal("50")), (p["pepe"], Decimal("50"))])
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    shots = os.environ.get("SCREENSHOT_DIR")
    pages = {"rebuild-console": ("dealer1", f"/tables/console/{mesa.table.pk}/"),
             "rebuild-pit": ("pit1", f"/tables/pit/tables/{mesa.table.pk}/bank/rebuild/"),
             "rebuild-cage": ("caja1", "/cage/bank-deposit/")}
    wide = []
    for width, height in ((1024, 768), (390, 844)):
        for name, (user, url) in pages.items():
            context = _context(chromium, live_server, width, height)
            page = context.new_page()
            log_in(page, user, "/cage/" if name == "rebuild-cage" else url)
            if name == "rebuild-cage":
                page.goto(url)
                assert "reconstitución 1 de 30,00 €" in page.inner_text("main")
            page.wait_for_load_state()
            scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
            if scroll > viewport:
                wide.append((name, width, scroll))
            if shots:
                page.screenshot(path=str(Path(shots) / f"{name}-{width}x{height}.png"), full_page=True)
            context.close()
    assert wide == []
