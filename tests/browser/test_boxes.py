"""The table's boxes and the bank's life in a real browser: the dealer's buy-in from the
console by keyboard (K, the player, the amount, Enter, back at the console with the chips
announced); the pit's count of a closed session's cagnotte by two people, refused for one
person twice, and its variance explained; the bank auctioned with a tie drawn by lot; on a
phone, the boxes' pages fit the screen."""

import re
from decimal import Decimal

import pytest

from boxes.models import BoxCount, TableBuyIn, VarianceNote
from ledger.models import Account
from tables import services
from tests.browser.test_console import log_in
from tests.factories import UserFactory
from tests.hands import event

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: At 5 %: luis 7 beats 6 (+10.00), marta 4 loses 20.00: the bank collects 10.00, levy 0.50.
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def test_the_dealer_records_a_buy_in_from_the_console_by_keyboard(browser_page, mesa):
    """In the middle of a hand (the focus in the card box), K opens the buy-in."""
    mesa.open("luis", "marta")
    page = browser_page
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    page.wait_for_selector("#buy-in")
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('[data-card-input]')")
    page.keyboard.press("k")
    page.wait_for_url(f"**/boxes/console/{mesa.table.pk}/buy-in/")
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'player'")
    page.keyboard.type("luis")
    page.keyboard.press("Tab")
    page.keyboard.type("150,50")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/tables/console/{mesa.table.pk}/")
    assert "150,50 € en fichas para luis" in page.inner_text("#console")
    assert TableBuyIn.objects.get().amount == Decimal("150.50")
    assert Account.objects.get(player__code="luis").balance == Decimal("650.50")


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_a_cash_buy_in_over_the_threshold_without_identity_is_refused_at_the_console(chromium, live_server, mesa,
                                                                                   size, settings):
    """The AML rules at the table: 2,100.00 € of cash from a patron with no identity on file
    is refused on the form, naming him, the day's total and the threshold; nothing posted,
    the attempt kept. ``BOXES_SHOTS=dir`` keeps screenshots."""
    import os

    from cage.models import AmlRefusal
    from tests.factories import PlayerFactory

    settings.ADMISSION_WITHOUT_IDENTITY = True  # a casino that seats patrons without identity
    PlayerFactory(code="nemo", unidentified=True)
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "dealer1", f"/boxes/console/{mesa.table.pk}/buy-in/")
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'player'")
    page.keyboard.type("nemo")
    page.keyboard.press("Tab")
    page.keyboard.type("2100")
    page.keyboard.press("Enter")
    page.wait_for_selector(".errorlist, .refusal")
    text = re.sub(r"(?<=\d)[\s.](?=\d{3},)", "", page.inner_text("main"))  # 2 100,00 € read as 2100,00
    assert "nemo" in text and "2100,00" in text and "2000,00" in text and "identidad" in text, text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    if os.environ.get("BOXES_SHOTS"):
        page.screenshot(path=f"{os.environ['BOXES_SHOTS']}/aml-refused-{size[0]}.png", full_page=True)
    assert not TableBuyIn.objects.filter(player__code="nemo").exists()
    assert AmlRefusal.objects.get(player__code="nemo").kind == "table_buy_in"
    context.close()


def test_the_pit_counts_the_cagnotte_with_two_people_and_explains_the_variance(browser_page, mesa):
    mesa.table.rules = {"profile": "reglamento", "commission_rate": "0.05"}
    mesa.table.save(update_fields=["rules"])
    hand = mesa.open("luis", "marta")
    for line in P01:
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=mesa.dealer,
                                          expected_version=hand.version)
    shift = services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    UserFactory(username="pit2", roles=["pit_supervisor"])
    page = browser_page
    log_in(page, "pit1", f"/tables/pit/tables/{mesa.table.pk}/")
    page.click(f"a[href='/boxes/sessions/{shift.pk}/']")
    page.wait_for_selector("#form-count")
    page.select_option("select[name=box]", "cagnotte")
    page.select_option("select[name=first_counter]", label="pit1")
    page.select_option("select[name=second_counter]", label="pit1")
    page.fill("input[name=d_0_50]", "0")
    page.fill("input[name=d_0_20]", "1")
    page.click("button[name=count]")
    page.wait_for_selector("text=dos personas distintas")
    assert not BoxCount.objects.exists()
    page.select_option("select[name=second_counter]", label="pit2")
    page.click("button[name=count]")
    page.wait_for_selector("#count-cagnotte")
    row = page.inner_text("#count-cagnotte")
    assert "0,20 €" in row and "0,50 €" in row and "-0,30 €" in row and "Sin explicar" in row
    page.fill("#count-cagnotte textarea", "faltaba una ficha de 0,50; había una de 0,20 de otra mesa")
    page.click("#count-cagnotte button[name=explain]")
    page.wait_for_selector("text=Explicación registrada.")
    assert VarianceNote.objects.get().explained_by.username == "pit1"


def test_the_boxes_pages_fit_a_phone(chromium, live_server, mesa):
    shift = services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    context = chromium.new_context(viewport={"width": 390, "height": 844}, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    log_in(page, "pit1", "/boxes/daily/")
    wide = []
    for url in ("/boxes/daily/", f"/boxes/sessions/{shift.pk}/", f"/boxes/sessions/{shift.pk}/cagnotte/"):
        page.goto(url)
        width, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if width > viewport:
            wide.append((url, width))
    context.close()
    assert wide == []


def test_the_pit_auctions_the_bank_and_the_tie_is_drawn(browser_page, mesa):
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    page = browser_page
    log_in(page, "pit1", f"/tables/pit/tables/{mesa.table.pk}/")
    page.click("text=Subastar la banca")
    page.fill("input[name=sessions]", "2")
    page.click("button[name=open]")
    for player in ("luis", "marta"):
        page.wait_for_selector("#form-bid")
        page.fill("input[name=player]", player)
        page.fill("input[name=amount]", "120,00")
        page.click("button[name=bid]")
        page.wait_for_selector(f"text=Puja de {player} registrada")
    assert "luis, marta empatan a 120,00 €" in page.inner_text("main")
    page.click("button[name=award]")
    page.click("text=Confirmar la adjudicación")
    page.wait_for_selector("text=el sorteo dio la banca a")
    from tables.models import BankAuction

    auction = BankAuction.objects.get()
    assert auction.draw["tied"] == ["luis", "marta"] and auction.tenure.capital == Decimal("120.00")
    assert f"el sorteo dio la banca a {auction.winner.code}, con 120,00 €" in page.inner_text("main")


def test_the_dealer_records_a_tip_from_the_console_by_keyboard(browser_page, mesa):
    """In the middle of a hand, U opens the tip form; a tip beyond the player's chips is
    refused naming his holding; then a tip of 12,50 from luis's chips."""
    from boxes.models import TableTip

    mesa.open("luis", "marta")
    page = browser_page
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    page.wait_for_selector("#tip")
    assert page.inner_text("#tip kbd") == "U"
    page.wait_for_function("() => document.activeElement && document.activeElement.matches('[data-card-input]')")
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help[open]")
    assert "Propina en la mesa" in page.inner_text("#keys-help")
    page.keyboard.press("Escape")
    page.keyboard.press("u")
    page.wait_for_url(f"**/boxes/console/{mesa.table.pk}/tip/")
    page.wait_for_function("() => document.activeElement && document.activeElement.name === 'player'")
    page.keyboard.type("luis")
    page.keyboard.press("Tab")
    page.keyboard.type("600")
    page.keyboard.press("Enter")
    page.wait_for_selector(".refusal")
    assert "luis tiene 500,00 € en fichas" in page.inner_text(".refusal")
    assert not TableTip.objects.exists()
    page.fill("input[name=amount]", "")
    page.focus("input[name=amount]")
    page.keyboard.type("12,50")
    page.keyboard.press("Enter")
    page.wait_for_url(f"**/tables/console/{mesa.table.pk}/")
    assert "Propina de 12,50 € en fichas de luis" in page.inner_text("#console")
    tip = TableTip.objects.get()
    assert (tip.player.code, tip.amount, tip.recorded_by.username) == ("luis", Decimal("12.50"), "dealer1")
    assert Account.objects.get(player__code="luis").balance == Decimal("487.50")


def test_the_pit_recounts_a_box_and_both_counts_show(browser_page, mesa):
    from boxes.services import box_count, table_buy_in

    table_buy_in(shift=mesa.table.shifts.get(), player=mesa.players["pepe"], amount=Decimal("200"),
                 recorded_by=mesa.dealer)
    shift = services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    pit2 = UserFactory(username="pit2", roles=["pit_supervisor"])
    box_count(shift=shift, box="drop", pieces={"100.00": 1, "50.00": 1}, first_counter=mesa.supervisor,
              second_counter=pit2, recorded_by=mesa.supervisor)
    page = browser_page
    log_in(page, "pit1", f"/boxes/sessions/{shift.pk}/")
    page.click("#count-drop details.recount summary")
    page.select_option("#count-drop select[name$=first_counter]", label="pit2")
    page.select_option("#count-drop select[name$=second_counter]", label="pit1")
    page.fill("#count-drop input[name$=d_100_00]", "2")
    page.click("#count-drop button[name=recount]")
    page.wait_for_selector("#count-drop details[open] .errorlist")  # no reason: refused under the field
    assert BoxCount.objects.count() == 1
    page.fill("#count-drop textarea[name$=reason]", "un billete de 50 atascado en la ranura")
    page.click("#count-drop button[name=recount]")
    page.wait_for_selector("text=Recuento registrado")  # the message; the button says "nuevo recuento"
    rows = page.locator("table.counts tbody tr")
    assert rows.count() == 2
    assert "sustituido por un recuento" in rows.nth(0).inner_text()
    assert "un billete de 50" in page.inner_text("#count-drop") and "0,00 €" in page.inner_text("#count-drop")
    assert Account.objects.get(kind=Account.Kind.DROP).balance == 0


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_the_tip_form_the_console_and_a_recounted_session_fit_the_screen(chromium, live_server, mesa, size):
    """No sideways scroll on the tip form, the console with its tip button and the
    session's page with a recount open; ``BOXES_SHOTS=dir`` keeps screenshots."""
    import os

    from boxes.services import box_count, box_recount, table_buy_in, table_tip

    shift = mesa.table.shifts.get()
    table_buy_in(shift=shift, player=mesa.players["pepe"], amount=Decimal("200"), recorded_by=mesa.dealer)
    table_tip(shift=shift, player=mesa.players["luis"], amount=Decimal("5"), recorded_by=mesa.dealer)
    table_tip(shift=shift, amount=Decimal("2"), recorded_by=mesa.dealer)
    closed = services.shift_close(shift=shift, closed_by=mesa.supervisor)
    pit2 = UserFactory(username="pit2", roles=["pit_supervisor"])
    count = box_count(shift=closed, box="drop", pieces={"100.00": 1, "50.00": 1}, first_counter=mesa.supervisor,
                      second_counter=pit2, recorded_by=mesa.supervisor)
    box_recount(count=count, pieces={"100.00": 2}, first_counter=pit2, second_counter=mesa.supervisor,
                reason="un billete de 50 atascado en la ranura", recorded_by=mesa.supervisor)
    box_count(shift=closed, box="tips", pieces={"5.00": 1}, first_counter=mesa.supervisor, second_counter=pit2,
              recorded_by=mesa.supervisor)
    services.shift_open(table=mesa.table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    width, height = size
    context = chromium.new_context(viewport={"width": width, "height": height}, locale="es-ES",
                                   base_url=live_server.url)
    page = context.new_page()
    shots = os.environ.get("BOXES_SHOTS")
    wide = []
    for name, user, url in (("console", "dealer1", f"/tables/console/{mesa.table.pk}/"),
                            ("tip", "dealer1", f"/boxes/console/{mesa.table.pk}/tip/"),
                            ("session", "pit1", f"/boxes/sessions/{closed.pk}/")):
        context.clear_cookies()
        log_in(page, user, url)
        if name == "session":
            page.click("#count-drop details.recount summary")
        page.wait_for_load_state("networkidle")
        scroll, viewport = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        if scroll > viewport:
            wide.append((name, scroll))
        if shots:
            page.screenshot(path=f"{shots}/{name}-{width}x{height}.png", full_page=True)
    context.close()
    assert wide == []


def test_the_counters_lists_do_not_offer_the_sessions_dealer(browser_page, mesa):
    """Issue 31: the dealer may not count his own session's boxes, so neither the count's
    nor a recount's lists of counters offer him (they did, and the service refused him)."""
    from boxes.services import box_count

    shift = services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    pit2 = UserFactory(username="pit2", roles=["pit_supervisor"])
    box_count(shift=shift, box="drop", pieces={"100.00": 1}, first_counter=mesa.supervisor, second_counter=pit2,
              recorded_by=mesa.supervisor)
    page = browser_page
    log_in(page, "pit1", f"/boxes/sessions/{shift.pk}/")
    page.wait_for_selector("#form-count")
    page.click("#count-drop details.recount summary")
    lists = page.locator("select[name$=first_counter], select[name$=second_counter]")
    assert lists.count() == 4  # the count's two and the drop's recount's two
    for i in range(lists.count()):
        offered = lists.nth(i).locator("option").all_inner_texts()
        assert "pit1" in offered and "pit2" in offered, offered
        assert not [name for name in offered if name.startswith("dealer1")], offered
