"""What the floor found in the dealer's console (issue 31 "What the floor found"), each in
Chromium at a tablet's 1024 × 768 and a phone's 390 × 844 where the size matters: a chip
tapped on a stake shown as a suggestion starts a new stake; only the chips that fit are
offered; K and U work between hands; exchanging a 4 has a key where the focus is; the
seats box holds four names."""


import pytest

from tables.models import Hand, HandEvent
from tests.browser.test_console import focus_lands, keys, log_in, open_console_at_hand, version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TABLET, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}
SIZES = pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])

#: Hand 1, settled: luis and marta each stake 15 (their last stake, suggested in hand 2).
HAND_1 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 15", "luis card 2B", "luis stand",
          "marta bet 15", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def touch_page(chromium, live_server, viewport):
    """A touch screen (a tablet or a phone: ``(pointer: coarse)``) at ``viewport``."""
    context = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url, has_touch=True,
                                   is_mobile=viewport["width"] < 600)
    context.set_default_timeout(20_000)
    return context, context.new_page()


def last_event():
    return HandEvent.objects.order_by("hand__number", "sequence").last().event


@SIZES
def test_a_chip_tapped_on_a_suggested_stake_starts_a_new_stake(chromium, live_server, mesa, viewport):
    """Item 1: the box shows the seat's last stake (15); a tap on "10 €" makes it 10, not
    25, and "Apostar" books 10; the next taps add, the running sum shown. Every seat."""
    mesa.play(mesa.open("luis", "marta"), *HAND_1)
    mesa.play(mesa.open("luis", "marta"), "luis deal 1O", "marta deal 2C", "bank deal 3E")
    context, page = touch_page(chromium, live_server, viewport)
    assert page.evaluate("matchMedia('(pointer: coarse)').matches")
    open_console_at_hand(page, mesa)
    stake = page.locator("#form-bet input[name=amount]")
    shown, booked, said, hints = [], [], [], []
    for seat, taps in (("luis", ["10"]), ("marta", ["20", "5"])):
        page.wait_for_selector(f'#console[data-actor="{seat}"]')
        assert stake.input_value() == "15"  # the seat's last stake, a suggestion
        assert page.locator("#chip-sum").is_hidden()
        for chip in taps:
            page.locator(f"#form-bet button.chip[data-chip='{chip}']").tap()
        shown.append(stake.input_value())
        said.append(page.evaluate("() => { const sum = document.getElementById('chip-sum'); return sum && sum.innerText; }"))
        hints.append(page.inner_text("#stake-hint"))
        before = version(page)
        page.locator('#form-bet button[value="bet"]').tap()
        page.wait_for_selector(f'#console[data-version="{before + 1}"]')
        booked.append(last_event())
        if seat == "luis":
            page.locator("#form-card input[data-card-input]").tap()
            page.locator('button[data-pick="2O"]').tap()
            page.locator('#form-card button[value="card"]').tap()
            page.wait_for_selector(f'#console[data-version="{before + 2}"]')
            page.locator('#form-play button[value="stand"]').tap()
            page.wait_for_selector(f'#console[data-version="{before + 3}"]')
    assert shown == ["10", "25"]  # it was 40 after a tap: the chips added to the suggested 15
    assert booked == [{"do": "bet", "seat": "luis", "amount": "10.00"}, {"do": "bet", "seat": "marta", "amount": "25.00"}]
    assert said == ["Fichas: 10\u00a0€", "Fichas: 20\u00a0€ + 5\u00a0€ = 25\u00a0€"]  # the running sum, plainly
    assert all(hint.endswith("última apuesta 15,00\u00a0€: una ficha empieza una apuesta nueva") for hint in hints)
    context.close()


def test_a_chip_key_on_a_suggested_stake_starts_a_new_stake_and_typing_adds(browser_page, mesa):
    """By keyboard too: W (10 €) replaces the suggested 15; a stake typed and then a chip
    key add up."""
    mesa.play(mesa.open("luis", "marta"), *HAND_1)
    mesa.play(mesa.open("luis", "marta"), "luis deal 1O", "marta deal 2C", "bank deal 3E")
    page = browser_page
    page.set_viewport_size(TABLET)
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    keys(page, "w{Enter}")
    assert last_event() == {"do": "bet", "seat": "luis", "amount": "10.00"}
    keys(page, "2o")
    keys(page, "p")
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    page.keyboard.type("7")  # typed over the suggested 15, then a chip of 5 €
    page.keyboard.press("q")
    assert page.input_value("#form-bet input[name=amount]") == "12"
    assert page.inner_text("#chip-sum") == "Fichas: 7\u00a0€ + 5\u00a0€ = 12\u00a0€"
    keys(page, "{Enter}")
    assert last_event() == {"do": "bet", "seat": "marta", "amount": "12.00"}


@SIZES
def test_the_raise_offers_only_the_chips_that_fit(chromium, live_server, mesa, viewport):
    """Item 12: luis staked 20 at a 5–100 table: 80 € are left to raise. The 100 € chip is
    not offered (nor in the keys' help); once 50 € are in the box, neither is a second 50."""
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 20",
              "luis card 1B")
    context, page = touch_page(chromium, live_server, viewport)
    open_console_at_hand(page, mesa)
    page.wait_for_selector("#form-bet")
    assert "Subida de luis" in page.inner_text("#form-bet")
    assert "de 0,01 a 80,00\u00a0€" in page.inner_text("#stake-hint")
    chips = page.locator("#form-bet button.chip")
    assert [chips.nth(i).get_attribute("data-chip") for i in range(chips.count())] == ["5", "10", "20", "25", "50"]
    assert "100 €" not in page.inner_text("#keys-help")
    page.locator("#form-bet button.chip[data-chip='50']").tap()
    enabled = page.evaluate("() => Array.from(document.querySelectorAll('#form-bet button.chip'), b => !b.disabled)")
    assert enabled == [True, True, True, True, False]  # 50 + 50 > 80
    page.locator("#form-bet button.chip[data-chip='25']").tap()
    enabled = page.evaluate("() => Array.from(document.querySelectorAll('#form-bet button.chip'), b => !b.disabled)")
    assert enabled == [True, False, False, False, False]  # 75: only 5 € still fit
    assert page.input_value("#form-bet input[name=amount]") == "75"
    before = version(page)
    page.locator('#form-bet button[value="bet"]').tap()
    page.wait_for_selector(f'#console[data-version="{before + 1}"]')
    assert last_event() == {"do": "bet", "seat": "luis", "amount": "75.00"}
    context.close()


#: Hand 1 of four seats, settled: between hands, the seats are those four.
FOUR_SEATS = ["luis deal 5O", "marta deal 3C", "pepe deal 2B", "rosa deal 1C", "bank deal 2E", "luis bet 10",
              "luis card 2O", "luis stand", "marta bet 20", "marta card 1O", "marta stand", "pepe bet 5",
              "pepe card 3O", "pepe stand", "rosa bet 5", "rosa stand", "bank card 4E", "bank stand"]


def active_id(page):
    return page.evaluate("document.activeElement.id")


def test_between_hands_k_and_u_work_and_the_seats_stay_as_they_were(browser_page, mesa):
    """Item 5: after the settlement K typed a "k" into the seats box. Now the focus is on
    the next hand's button (Enter opens it): K opens the buy-in, U the tip; S goes into the
    seats box, Esc out of it; the keys' help says so."""
    mesa.play(mesa.open("luis", "marta", "pepe", "rosa"), *FOUR_SEATS)
    page = browser_page
    page.set_viewport_size(TABLET)
    console = f"/tables/console/{mesa.table.pk}/"
    open_console_at_hand(page, mesa)
    page.wait_for_function("() => document.activeElement.id === 'open-hand'")
    page.keyboard.press("k")
    page.wait_for_url(f"**/boxes/console/{mesa.table.pk}/buy-in/")
    page.goto(console)
    page.wait_for_function("() => document.activeElement.id === 'open-hand'")
    page.keyboard.press("u")
    page.wait_for_url(f"**/boxes/console/{mesa.table.pk}/tip/")
    page.goto(console)
    page.wait_for_function("() => document.activeElement.id === 'open-hand'")
    assert page.input_value("#id_seats") == "luis marta pepe rosa"

    page.keyboard.press("?")
    text = page.wait_for_selector("#keys-help[open]").inner_text()
    for line in ("K\nCompra en la mesa", "U\nPropina en la mesa", "⏎\nAbrir la mano siguiente",
                 "S\nLa casilla de los puestos, para cambiar quién juega",
                 "Esc\nEn la casilla de los puestos, donde las letras son nombres: salir de ella"):
        assert line in text, line
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help:not([open])", state="attached")

    # rosa leaves: S, the seats box (the caret at its end), Backspace ×5; Esc; K works again.
    page.keyboard.press("s")
    assert active_id(page) == "id_seats"
    for _ in range(5):
        page.keyboard.press("Backspace")
    assert page.input_value("#id_seats") == "luis marta pepe"
    page.keyboard.press("k")  # in the box a letter is a name's
    assert page.input_value("#id_seats") == "luis marta pepek"
    page.keyboard.press("Backspace")
    page.keyboard.press("Escape")
    assert active_id(page) == "open-hand"
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-hand="2"][data-status="open"]')
    assert Hand.objects.get(table=mesa.table, number=2).seats == ["luis", "marta", "pepe"]


def test_before_the_first_hand_the_focus_is_in_the_empty_seats_box(browser_page, mesa):
    """With no seats yet (or seats refused) the focus is in the box, to type them."""
    page = browser_page
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    assert focus_lands(page, "form-open", "seats") == ("form-open", "seats")
    page.keyboard.type("luis nadie")
    page.keyboard.press("Enter")
    page.wait_for_selector("#id_seats_error")
    assert focus_lands(page, "form-open", "seats") == ("form-open", "seats")


def test_exchanging_a_4_has_a_key_from_the_stake_box(browser_page, mesa):
    """Item 8: pepe's initial card is a 4 and the focus is in his stake box. Exchanging it
    was "⏎" (Enter in the card box, which the focus is not in); now I, shown on the button
    and in the keys' help, arms it from the stake box, and the card comes next."""
    mesa.play(mesa.open("pepe", "luis"), "pepe deal 4O", "luis deal 3C", "bank deal 6E")
    page = browser_page
    page.set_viewport_size(TABLET)
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    assert page.inner_text('#form-card button[value="exchange"] kbd') == "I"
    page.keyboard.press("?")
    text = page.wait_for_selector("#keys-help[open]").inner_text()
    assert "I\nCambiar el 4 por esta carta" in text
    assert "⏎\nen la casilla de la carta: Cambiar el 4 por esta carta" in text
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help:not([open])", state="attached")
    page.keyboard.press("i")
    assert page.get_attribute('#form-card button[value="exchange"]', "aria-pressed") == "true"
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")
    keys(page, "5o")
    assert last_event() == {"do": "exchange", "seat": "pepe", "card": "5O"}
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")  # his stake, next


_FITS = """() => { const box = document.getElementById('id_seats'), style = getComputedStyle(box);
    const pen = document.createElement('canvas').getContext('2d'); pen.font = style.font;
    return [pen.measureText(box.value).width,
            box.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight)]; }"""


@SIZES
def test_the_seats_box_holds_four_names(browser_page, mesa, viewport):
    """Item 11: four names in view in the seats box, at both sizes (the box was 190 and 110
    px wide: "luis marta pepe rosa" overflowed it)."""
    mesa.play(mesa.open("luis", "marta", "pepe", "rosa"), *FOUR_SEATS)
    page = browser_page
    page.set_viewport_size(viewport)
    open_console_at_hand(page, mesa)
    for seats in ("luis marta pepe rosa", "alejandro beatriz ignacio dolores"):
        page.fill("#id_seats", seats)
        text, room = page.evaluate(_FITS)
        assert text <= room, (seats, text, room)
    width, scroll = page.evaluate("[innerWidth, document.documentElement.scrollWidth]")
    assert scroll <= width
