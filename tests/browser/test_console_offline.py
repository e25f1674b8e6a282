"""The console at a real table, whose tablet loses the casino's Wi-Fi now and then (issue
31): an entry sent without an answer is kept, the felt says plainly that the console is
offline and which entry waits, nothing else is entered meanwhile, and the entry is sent
again with the same one-time token when the network is back — recorded once, even when
its first send did reach the server and only the answer was lost. Back online, the
console catches up with what another device entered. In Chromium with the network cut
(``context.set_offline``) mid-hand, at a tablet's and a phone's size."""

import re
from decimal import Decimal

import pytest

from tables.models import Hand, HandEvent
from tests.browser.test_console import focus_lands, keys, open_console_at_hand, version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TABLET, PHONE = {"width": 1024, "height": 768}, {"width": 390, "height": 844}
DEALT = ("luis deal 5O", "marta deal 3C", "bank deal 2E")


def new_page(chromium, live_server, viewport, touch=False):
    context = chromium.new_context(viewport=viewport, locale="es-ES", base_url=live_server.url, has_touch=touch,
                                   is_mobile=touch and viewport["width"] < 600)
    context.set_default_timeout(20_000)
    return context, context.new_page()


def bets(hand):
    return [e.event for e in HandEvent.objects.filter(hand=hand).order_by("sequence") if e.event["do"] == "bet"]


def said(locator):
    """A locator's text as one line (the banner's parts are boxes of a flex row)."""
    return re.sub(r"[ \t\n]+", " ", locator.inner_text()).strip()


def inert(page, selector):
    return page.evaluate(f"() => document.querySelector({selector!r}).closest('[inert]') !== null")


def in_view(page, selector, viewport):
    box = page.locator(selector).bounding_box()
    return box is not None and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]


@pytest.mark.parametrize(("viewport", "touch"), [(TABLET, False), (PHONE, True)], ids=["tablet-keys", "phone-taps"])
def test_an_entry_made_offline_waits_on_the_felt_and_is_recorded_once_back_online(chromium, live_server, mesa,
                                                                                    viewport, touch):
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT)
    context, page = new_page(chromium, live_server, viewport, touch)
    open_console_at_hand(page, mesa)
    assert version(page) == 3
    context.set_offline(True)  # the Wi-Fi drops mid-hand
    banner = page.locator("#offline")
    banner.wait_for(state="visible")
    assert said(banner) == "Sin red. Lo que anote ahora se guarda y se envía cuando vuelva la red."

    if touch:
        page.locator("#form-bet button.chip[data-chip='10']").tap()
        page.locator('#form-bet button[value="bet"]').tap()
    else:
        assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
        page.keyboard.type("10")
        page.keyboard.press("Enter")
    page.wait_for_selector("#offline:has-text('Pendiente de enviar')")
    text = said(banner)
    assert "Pendiente de enviar: «luis · Apostar · 10\u00a0€». Se envía de nuevo sola cuando vuelva la red; " \
           "hasta entonces no se puede anotar nada más." in text, text
    assert in_view(page, "#offline", viewport)  # plainly: at the top, wherever the page is
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    assert in_view(page, "#offline", viewport)

    # Nothing else can be entered meanwhile: the entries are inert, keys and taps do nothing.
    assert inert(page, "#form-card") and inert(page, "#form-bet") and inert(page, "#buy-in")
    assert not inert(page, "#offline")
    amount = page.input_value("#form-bet input[name=amount]")
    page.keyboard.type("2o5")
    page.keyboard.press("Enter")
    for selector in ("#form-bet button.chip[data-chip='5']", '#form-bet button[value="bet"]'):
        button = page.locator(selector).bounding_box()
        page.mouse.click(button["x"] + 5, button["y"] + 5)
    assert page.input_value("#form-bet input[name=amount]") == amount
    assert version(page) == 3 and HandEvent.objects.filter(hand=hand).count() == 3

    context.set_offline(False)  # back: sent again by itself, recorded once
    page.wait_for_selector('#console[data-version="4"]')
    assert banner.is_hidden() and not inert(page, "#form-card")
    assert bets(hand) == [{"do": "bet", "seat": "luis", "amount": "10.00"}]
    assert "10,00 €" in page.inner_text('[data-who="luis"] .stake')
    page.wait_for_timeout(1000)  # what was typed or tapped meanwhile was not kept to be entered after it
    assert HandEvent.objects.filter(hand=hand).count() == 4 and version(page) == 4
    if not touch:  # and the dealer goes on where he was
        assert focus_lands(page, "form-card", "card") == ("form-card", "card")
        keys(page, "2o")
        assert HandEvent.objects.filter(hand=hand).order_by("sequence").last().event == {
            "do": "card", "seat": "luis", "card": "2O"}
    context.close()


def test_back_online_the_console_shows_what_another_device_entered(chromium, live_server, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT)
    context, page = new_page(chromium, live_server, TABLET)
    open_console_at_hand(page, mesa)
    context.set_offline(True)
    page.locator("#offline").wait_for(state="visible")
    mesa.play(hand, "luis bet 20")  # the pit's tablet, meanwhile
    context.set_offline(False)
    page.wait_for_selector('#console[data-version="4"]')
    assert page.locator("#offline").is_hidden()
    assert "20,00 €" in page.inner_text('[data-who="luis"] .stake')
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")
    context.close()


def test_an_entry_waiting_while_another_device_entered_is_refused_as_stale(chromium, live_server, mesa):
    """The entry waiting was typed on a screen that another device's entry has made stale:
    sent again, it is refused (the version), and the console shows the hand as it is."""
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT)
    context, page = new_page(chromium, live_server, TABLET)
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    context.set_offline(True)
    page.keyboard.type("10")
    page.keyboard.press("Enter")
    page.wait_for_selector("#offline:has-text('Pendiente de enviar')")
    mesa.play(hand, "luis bet 20")
    context.set_offline(False)
    page.wait_for_selector("#console .refusal.stale")
    assert page.inner_text("#console .refusal.stale").startswith("No anotado")
    assert version(page) == 4 and page.locator("#offline").is_hidden()
    assert [(bet["seat"], Decimal(bet["amount"])) for bet in bets(hand)] == [("luis", 20)]
    context.close()


@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_an_entry_whose_answer_was_lost_is_sent_again_and_recorded_once(chromium, live_server, mesa, viewport):
    """The first send reaches the server, which records it; its answer is lost (the route
    lets the request through and aborts the response). The console keeps the entry and
    sends it again, the same body and token: recorded once. At the hand's last entry too,
    which settles it: the settlement shows, not "no open hand"."""
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT, "luis bet 10", "luis card 2B", "luis stand",
                     "marta bet 20", "marta card 1O", "marta stand")
    context, page = new_page(chromium, live_server, viewport)
    sent = []

    def lose_the_first_answer(route):
        sent.append(route.request.post_data)
        if len(sent) % 2:  # the first of each entry: through to the server, the answer lost
            route.fetch()
            route.abort()
        else:
            route.continue_()

    page.route("**/entry/", lose_the_first_answer)
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-card", "card") == ("form-card", "card")  # the bank's card box
    page.keyboard.type("4e")
    page.wait_for_selector("#offline:has-text('Pendiente de enviar')")
    assert "«la banca · Carta descubierta · 4E»" in page.inner_text("#offline")
    page.wait_for_selector('#console[data-version="10"]')  # sent again by itself
    assert sent[0] == sent[1] and len(sent) == 2
    assert HandEvent.objects.filter(hand=hand).count() == 10
    assert page.locator("#offline").is_hidden()
    page.keyboard.press("p")  # the bank stands: the hand settles; its answer lost too
    page.wait_for_selector("#settlement")
    assert sent[2] == sent[3] and len(sent) == 4
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED and HandEvent.objects.filter(hand=hand).count() == 11
    assert page.locator("#console .messages, #console .refusal").count() == 0  # no "no open hand"
    assert page.locator("#offline").is_hidden()
    context.close()


def test_an_entry_waiting_survives_a_reload(chromium, live_server, mesa):
    """Kept in the tab's storage: the dealer reloads the page while it waits; the page
    sends it again as it loads."""
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT)
    context, page = new_page(chromium, live_server, TABLET)
    page.route("**/entry/", lambda route: route.abort())  # no answer, however often
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    page.keyboard.type("15")
    page.keyboard.press("Enter")
    page.wait_for_selector("#offline:has-text('Pendiente de enviar')")
    page.unroute("**/entry/")
    page.reload()
    page.wait_for_selector('#console[data-version="4"]')
    assert bets(hand) == [{"do": "bet", "seat": "luis", "amount": "15.00"}]
    assert page.locator("#offline").is_hidden()
    assert page.evaluate("Object.keys(sessionStorage).length") == 0
    context.close()


def test_back_online_with_nothing_new_what_is_being_typed_stays(chromium, live_server, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *DEALT)
    context, page = new_page(chromium, live_server, TABLET)
    open_console_at_hand(page, mesa)
    assert focus_lands(page, "form-bet", "amount") == ("form-bet", "amount")
    context.set_offline(True)
    page.locator("#offline").wait_for(state="visible")
    page.keyboard.type("12")
    context.set_offline(False)
    page.locator("#offline").wait_for(state="hidden")
    assert page.input_value("#form-bet input[name=amount]") == "12"
    keys(page, "{Enter}")
    assert bets(hand) == [{"do": "bet", "seat": "luis", "amount": "12.00"}]
    context.close()


def test_the_next_hand_opened_whose_answer_was_lost_opens_once(chromium, live_server, mesa):
    mesa.play(mesa.open("luis", "marta"), *DEALT, "luis bet 10", "luis card 2B", "luis stand", "marta bet 20",
              "marta card 1O", "marta stand", "bank card 4E", "bank stand")
    context, page = new_page(chromium, live_server, TABLET)
    sent = []

    def lose_the_first_answer(route):
        sent.append(route.request.post_data)
        if len(sent) == 1:
            route.fetch()
            route.abort()
        else:
            route.continue_()

    page.route("**/open/", lose_the_first_answer)
    open_console_at_hand(page, mesa)
    page.wait_for_function("() => document.activeElement.id === 'open-hand'")
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-hand="2"][data-status="open"]')
    assert len(sent) == 2 and sent[0] == sent[1]
    assert Hand.objects.filter(table=mesa.table).count() == 2
    assert page.locator("#offline").is_hidden() and not inert(page, "#form-deal")
    context.close()
