"""The dealer's console in a real browser, as a dealer at a table uses it: whole hands by
keyboard, each entry answered in place (no page load), the focus where the next entry is
typed, a refused card typed again, a deal out of the order of play asked first, the keys'
help; by touch (the card picker, a split, a card entered unknown and named at the
showdown) and then the cashier's balance; without the script (POST, redirect, GET); and a
dealer at another table's console refused in the site's layout."""

import re

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tables import services
from tables.models import Hand, HandEvent
from tests.factories import TableFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}")


def version(page):
    return int(page.get_attribute("#console", "data-version") or -1)


_FOCUSED = """() => { const e = document.activeElement;
    return [e.form ? e.form.id : null, e.name === "action" ? e.value : e.name]; }"""


def focused(page):
    """``(form id, name)`` of the focused element (a button's name is its action)."""
    return tuple(page.evaluate(_FOCUSED))


def focus_lands(page, form_id, name, timeout=2000):
    """Wait (at most ``timeout`` ms: what a dealer would notice) for the focus to land on
    ``name`` of ``form_id``; the focus, for the caller's assertion. A page just loaded
    may place it a moment after its element appears."""
    try:
        page.wait_for_function(f"() => {{ const f = ({_FOCUSED})(); return f[0] === {form_id!r} && f[1] === {name!r}; }}",
                               timeout=timeout)
    except PlaywrightTimeout:
        pass
    return focused(page)


def keys(page, text, *, settles_to=None):
    """Type ``text`` (one key per character; ``{Enter}``-style names between braces) and
    wait for the console that shows the entry recorded (``settles_to``: that version)."""
    before = version(page)
    for part in re.findall(r"\{(\w+)\}|(.)", text):
        page.keyboard.press(part[0] or part[1])
    target = before + 1 if settles_to is None else settles_to
    page.wait_for_selector(f'#console[data-version="{target}"]')


class Watch:
    """What the page did: a marker set on ``window`` (lost on a page load) and the main
    frame's navigations."""

    def __init__(self, page):
        self.page, self.navigations = page, []
        page.evaluate("window.consoleMarker = 'still here'")
        page.on("framenavigated", lambda frame: frame == page.main_frame and self.navigations.append(frame.url))

    def no_page_load(self):
        assert self.page.evaluate("window.consoleMarker") == "still here"
        assert self.navigations == []


def open_console(page, mesa):
    log_in(page, "dealer1", "/tables/console/")
    page.click(f'a[href="/tables/console/{mesa.table.pk}/"]')
    page.wait_for_selector("#form-open")
    assert focus_lands(page, "form-open", "seats") == ("form-open", "seats")


def test_a_whole_hand_by_keyboard_in_place_to_the_next_hand(browser_page, mesa):
    page = browser_page
    page.set_viewport_size({"width": 1024, "height": 768})  # a tablet, landscape
    open_console(page, mesa)
    address = page.url
    watch = Watch(page)
    page.keyboard.type("luis marta pepe rosa")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-status="open"]')
    assert focus_lands(page, "form-deal", "card") == ("form-deal", "card")

    # The deal in the order of play: a card typed whole is entered at once.
    for card in ("1o", "2c", "3e", "5b", "6o"):
        keys(page, card)
        watch.no_page_load()
    assert page.locator('[data-who="pepe"] [data-card="3E"]').count() == 1
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")

    # luis: a stake typed, a card, P stands; the others bet with a chip key (W: 10 €).
    keys(page, "10{Enter}")
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")
    keys(page, "2o")
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")
    keys(page, "p")
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    for card in ("3c", "1e", "1b"):
        keys(page, "w{Enter}")
        keys(page, card)
        keys(page, "p")
    assert page.locator("#turn").inner_text().startswith("juega la banca")
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")
    keys(page, "12o")
    keys(page, "p")  # the bank stands on 6½: the hand settles

    page.wait_for_selector('#console[data-status="settled"]')
    hand = Hand.objects.get(table=mesa.table, number=1)
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["players"] == {"luis": "-10.00", "marta": "-10.00", "pepe": "-10.00", "rosa": "-10.00"}
    # Each seat's result and what to collect, on the felt; the whole settlement in view.
    assert page.inner_text('[data-who="rosa"] .result') == "pierde"
    assert re.fullmatch(r"cobrar 10,00\s€", page.inner_text('[data-who="rosa"] .amount'))
    assert "la banca gana 40,00\u00a0€" in page.inner_text('[data-who="bank"]')  # never wrapped before its €
    # The next hand's button (the same seats): Enter opens it, K and U work there (issue 31).
    page.wait_for_function("() => document.activeElement.id === 'open-hand'")
    scrolled, bottom, height = page.evaluate("""() => [scrollY, Math.max(
        ...Array.from(document.querySelectorAll('.felt, #settlement, #form-open'), e => e.getBoundingClientRect().bottom)),
        innerHeight]""")
    assert scrolled == 0 and bottom <= height  # the whole settlement and the next hand in view at 1024 × 768

    keys(page, "{Enter}", settles_to=0)  # the next hand: the same seats, Enter away
    page.wait_for_selector('#console[data-hand="2"][data-status="open"]')
    for card in ("1o", "2c", "3e", "5b", "6o"):
        keys(page, card)
    assert page.input_value("#form-bet input[name=amount]") == "10"  # luis's last stake, ready
    keys(page, "{Enter}")
    assert HandEvent.objects.filter(hand__number=2).order_by("sequence").last().event == {
        "do": "bet", "seat": "luis", "amount": "10.00"}
    watch.no_page_load()
    assert page.url == address and page.evaluate("performance.getEntriesByType('navigation').length") == 1

    # Reload draws the same console; Back leaves it for the page before.
    page.reload()
    page.wait_for_selector('#console[data-hand="2"]')
    assert version(page) == 6 and focused(page) == ("form-card", "card")
    page.go_back()
    page.wait_for_url("**/tables/console/")


def test_a_refused_card_is_selected_to_be_typed_again(browser_page, mesa):
    page = browser_page
    open_console(page, mesa)
    page.keyboard.type("luis marta")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-deal")
    keys(page, "7o")
    before = version(page)
    page.keyboard.type("7o")  # the same card again: refused
    page.wait_for_selector("#refusal")
    assert "7O ya está en la mesa (repartida en la anotación n.º 1)" in page.inner_text("#refusal")
    assert version(page) == before and HandEvent.objects.count() == 1
    assert focus_lands(page, "form-deal", "card") == ("form-deal", "card")
    assert page.evaluate("""() => { const box = document.activeElement;
        return [box.value.toUpperCase(), box.selectionStart, box.selectionEnd]; }""") == ["7O", 0, 2]
    keys(page, "5c")  # typed over it, not after it
    assert page.locator("#refusal").count() == 0
    assert HandEvent.objects.order_by("sequence").last().event == {"do": "deal", "seat": "marta", "card": "5C"}


def test_a_deal_out_of_the_order_of_play_asks_first(browser_page, mesa):
    page = browser_page
    open_console(page, mesa)
    page.keyboard.type("luis marta pepe")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-deal")
    assert page.is_checked('#form-deal input[value="luis"]')  # the console proposes the next place
    page.keyboard.press("ArrowDown")
    assert page.is_checked('#form-deal input[value="marta"]')
    page.keyboard.type("3c")
    question = page.wait_for_selector("#form-deal .confirm:not([hidden])")
    assert "¿Dar esta carta a marta? En el orden de juego la siguiente carta es para luis." in question.inner_text()
    assert HandEvent.objects.count() == 0
    page.keyboard.press("Escape")  # no: back to luis, the card still typed
    assert page.is_hidden("#form-deal .confirm") and page.is_checked('#form-deal input[value="luis"]')
    assert focus_lands(page, "form-deal", "card") == ("form-deal", "card") and page.input_value("#form-deal input[name=card]") == "3c"
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-deal .confirm:not([hidden])")
    keys(page, "{Enter}")  # yes
    assert HandEvent.objects.get().event == {"do": "deal", "seat": "marta", "card": "3C"}
    assert page.is_checked('#form-deal input[value="luis"]')


def test_the_keys_help_opens_from_the_seats_box_where_the_console_lands(browser_page, mesa):
    """The console lands in the seats box between hands: "?" (as the Keys button says)
    opens the help there too, and types nothing into the seats."""
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    open_console(page, mesa)
    page.keyboard.type("luis marta")
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help:not([open])", state="attached")
    assert page.input_value("#form-open input[name=seats]") == "luis marta"
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-status="open"]')


def test_the_keys_help_lists_the_keys_of_the_entries_legal_now(browser_page, mesa):
    page = browser_page
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 3C", "bank deal 2E", "luis bet 10")
    open_console_at_hand(page, mesa)
    assert hand.status == Hand.Status.OPEN
    page.keyboard.press("?")
    dialog = page.wait_for_selector("#keys-help[open]")
    text = dialog.inner_text()
    for line in ("P\nluis se planta", "F\nFusilar con esta carta", "⇧F\nFusilar: carta desconocida", "Z\nDeshacer"):
        assert line in text
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help:not([open])", state="attached")
    # F first, then the card: luis fusila.
    page.keyboard.press("f")
    assert page.get_attribute('#form-card button[value="fusilar"]', "aria-pressed") == "true"
    keys(page, "11b")
    assert HandEvent.objects.order_by("sequence").last().event == {"do": "fusilar", "seat": "luis", "card": "11B"}


def open_console_at_hand(page, mesa):
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    page.wait_for_selector("#console[data-status]")


def test_a_refused_stake_on_a_phone_shows_the_whole_refusal_above_the_box(browser_page, mesa):
    """At 390 × 844 the refusal sits above the felt: after a stake refused, the dealer
    reads it from its first word, the stake box still in view."""
    page = browser_page
    page.set_viewport_size({"width": 390, "height": 844})
    mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 3C", "bank deal 2E")
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    for stake, words in (("99999", "no puede pasar de 100,00"), ("0", "mayor que cero")):
        page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # as after the deal's entries
        page.keyboard.type(stake)
        page.keyboard.press("Enter")
        refusal = page.wait_for_selector(f"#console .refusal:has-text('{words}')")
        page.wait_for_function("() => document.activeElement && document.activeElement.name === 'amount'")
        top = refusal.bounding_box()["y"]
        box = page.locator("#form-bet input[name=amount]").bounding_box()
        assert top >= 0 and box["y"] + box["height"] <= 844, (stake, top, box)
        assert refusal.inner_text().startswith("No anotado")


def test_by_touch_the_picker_a_split_an_unknown_card_and_the_cashiers_balance(browser_page, mesa):
    page = browser_page
    open_console(page, mesa)
    page.fill("#form-open input[name=seats]", "luis marta")
    page.click("#form-open button[type=submit]")
    page.wait_for_selector("#form-deal")

    def tap(form, action, card=None):
        before = version(page)
        if card is not None:
            page.click(f"#{form} input[data-card-input]")
            page.click(f'button[data-pick="{card}"]')
            assert page.input_value(f"#{form} input[data-card-input]") == card
        page.click(f'#{form} button[value="{action}"]')
        page.wait_for_selector(f'#console[data-version="{before + 1}"]')

    tap("form-deal", "deal", "11O")
    tap("form-deal", "deal-unknown")
    tap("form-deal", "deal", "4E")
    assert page.locator('[data-who="marta"] .card.back').count() == 1
    page.click("#form-bet button.chip[data-chip='10']")
    tap("form-bet", "bet")
    tap("form-card", "card", "12C")
    tap("form-play", "split")
    assert page.locator('[data-who="luis"] .hand').count() == 2
    tap("form-card", "card", "5O")
    tap("form-play", "stand")
    assert page.input_value("#form-bet input[name=amount]") == "10"  # his first hand's stake
    tap("form-bet", "bet")
    tap("form-card", "card", "3B")
    tap("form-play", "stand")
    # An illegal stake: refused with the rule, nothing saved.
    before = version(page)
    page.fill("#form-bet input[name=amount]", "500")
    page.click('#form-bet button[value="bet"]')
    refusal = page.wait_for_selector("#refusal")
    assert "100,00 €" in refusal.inner_text()  # the amount in the reader's locale
    assert version(page) == before and HandEvent.objects.count() == before
    page.fill("#form-bet input[name=amount]", "20")
    tap("form-bet", "bet")
    tap("form-card", "card", "6B")
    tap("form-play", "stand")
    tap("form-card", "card", "6O")  # the bank's 4 + 6: bust
    page.wait_for_selector("#form-identify-marta-1")
    assert page.locator("#settlement").count() == 0
    tap("form-identify-marta-1", "identify", "1C")
    settlement = page.wait_for_selector("#settlement")
    assert re.fullmatch(r"pagar 20,00\s€", page.inner_text('#settlement li[data-player="marta"] .net'))
    assert "ana" in page.inner_text("#settlement .next-bank") and settlement.is_visible()
    assert Hand.objects.get().status == Hand.Status.SETTLED
    assert page.input_value("#form-open input[name=seats]") == "luis marta"

    page.click("header.top form[action$='logout/'] button")
    page.wait_for_url("**/accounts/login/**")
    log_in(page, "caja1", "/cage/players/marta/")
    assert re.search(r"520,00\s*€", page.inner_text(".balance"))


def test_without_the_script_every_form_still_posts(chromium, live_server, mesa):
    context = chromium.new_context(java_script_enabled=False, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    loads = []
    page.on("load", lambda _page: loads.append(page.url))
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    page.fill("#form-open input[name=seats]", "luis marta")
    page.click("#form-open button[type=submit]")
    page.wait_for_selector("#form-deal")
    assert page.is_hidden(".picker") and page.is_hidden(".keys-button")
    page.fill("#form-deal input[name=card]", "5O")
    page.click('#form-deal button[value="deal"]')
    page.wait_for_selector('#console[data-version="1"]')
    assert page.url.endswith(f"/tables/console/{mesa.table.pk}/")  # POST, redirect, GET
    assert len(loads) >= 4 and HandEvent.objects.count() == 1
    context.close()


def test_a_dealer_at_another_tables_console_is_refused_in_the_layout(browser_page, mesa):
    other = TableFactory(name="Mesa 2")
    stranger = UserFactory(username="dealer2", roles=["dealer"])
    services.shift_open(table=other, dealer=stranger, opened_by=mesa.supervisor)
    page = browser_page
    log_in(page, "dealer2", "/tables/console/")
    response = page.goto(f"/tables/console/{mesa.table.pk}/")
    assert response.status == 403
    assert "dealer1" in page.inner_text(".refusal-page .reason")  # why: the table's dealer
    assert page.locator("header.top nav a").count() >= 1  # the site's menu
    page.click(".refusal-page a[href='/tables/console/']")
    page.wait_for_selector('tr[data-table="Mesa 2"]')


def test_keys_typed_while_an_entry_is_on_its_way_wait_for_it(browser_page, mesa):
    page = browser_page
    open_console(page, mesa)
    page.keyboard.type("luis marta")
    page.keyboard.press("Enter")
    page.wait_for_selector("#form-deal")
    # The answers come late: the second card and the bet are typed before they arrive.
    page.route("**/entry/", lambda route: (page.wait_for_timeout(300), route.continue_()))
    page.keyboard.type("1o2c3e")
    page.wait_for_selector('#console[data-version="3"]')
    assert [event.event["card"] for event in HandEvent.objects.order_by("sequence")] == ["1O", "2C", "3E"]
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
