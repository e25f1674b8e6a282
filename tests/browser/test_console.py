"""The issue's scenario in a real browser: a dealer logs in and enters a whole hand at the
console (a split, a face-down card entered unknown and named at the showdown), makes an
illegal entry and sees why, finishes the hand and sees its settlement; then the cashier
logs in and sees the player's balance."""

import re

import pytest

from tables.models import Hand, HandEvent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}")


class Table:
    """The console on screen: each entry waits for the page that shows it recorded."""

    def __init__(self, page):
        self.page = page

    @property
    def version(self):
        return int(self.page.get_attribute("#console", "data-version"))

    def enter(self, form, action, card=None, amount=None, pick=False, press_enter=False):
        page, before = self.page, self.version
        if card is not None:
            if pick:  # tap it in the card picker
                page.click(f"#{form} input[data-card-input]")
                page.click(f'button[data-pick="{card}"]')
                assert page.input_value(f"#{form} input[data-card-input]") == card
            else:
                page.fill(f"#{form} input[data-card-input]", card)
        if amount is not None:
            page.fill(f"#{form} input[name=amount]", amount)
        if press_enter:
            page.press(f"#{form} input[data-card-input]", "Enter")
        else:
            page.click(f'#{form} button[value="{action}"]')
        page.wait_for_selector(f'#console[data-version="{before + 1}"]')

    def deal_to(self, seat):
        self.page.check(f'#form-deal input[name=seat][value="{seat}"]')


def test_a_dealer_enters_a_hand_and_the_cashier_sees_the_balance(browser_page, mesa):
    page = browser_page
    log_in(page, "dealer1", "/tables/console/")
    page.click(f'a[href="/tables/console/{mesa.table.pk}/"]')
    page.wait_for_selector("#form-open")
    assert page.input_value("#form-open input[name=seats]") == ""
    page.fill("#form-open input[name=seats]", "luis marta")
    page.click("#form-open button[type=submit]")
    page.wait_for_selector("#form-deal")
    table = Table(page)

    # The deal: a card tapped in the picker, one face down and unknown, one typed.
    table.enter("form-deal", "deal", card="11O", pick=True)
    table.enter("form-deal", "deal-unknown")
    table.deal_to("bank")
    table.enter("form-deal", "deal", card="4e", press_enter=True)
    assert page.locator('[data-who="marta"] .card.back').count() == 1

    # luis: a half on his half, split; both hands played out.
    table.enter("form-bet", "bet", amount="10")
    table.enter("form-card", "card", card="12C", pick=True)
    table.enter("form-play", "split")
    assert page.locator('[data-who="luis"] .hand').count() == 2
    table.enter("form-card", "card", card="5O")
    table.enter("form-play", "stand")
    table.enter("form-bet", "bet", amount="10")
    table.enter("form-card", "card", card="3b", press_enter=True)
    table.enter("form-play", "stand")

    # An illegal stake: refused with the rule, nothing saved.
    before = table.version
    page.fill("#form-bet input[name=amount]", "500")
    page.click('#form-bet button[value="bet"]')
    refusal = page.wait_for_selector("#refusal")
    assert "100,00 €" in refusal.inner_text()  # the amount in the reader's locale
    assert table.version == before and HandEvent.objects.count() == before
    assert page.input_value("#form-bet input[name=amount]") == "500"

    table.enter("form-bet", "bet", amount="20")
    assert page.locator("#refusal").count() == 0
    table.enter("form-card", "card", card="6B")
    table.enter("form-play", "stand")
    table.enter("form-card", "card", card="6O")  # the bank's 4 + 6: bust

    # The showdown: marta's face-down card is named; the hand settles.
    page.wait_for_selector("#form-identify-marta-1")
    assert page.locator("#settlement").count() == 0
    table.enter("form-identify-marta-1", "identify", card="1C", pick=True)
    settlement = page.wait_for_selector("#settlement")
    assert re.search(r"20,00\s*€", page.inner_text('#settlement tr[data-player="marta"] td.net'))
    assert page.locator("#settlement tbody tr").count() == 3
    assert "ana" in page.inner_text("#settlement .next-bank") and settlement.is_visible()
    assert Hand.objects.get().status == Hand.Status.SETTLED
    assert page.input_value("#form-open input[name=seats]") == "luis marta"

    # The cashier sees marta's chips: 500 + 20.
    page.click("header.top form[action$='logout/'] button")
    page.wait_for_url("**/accounts/login/**")
    log_in(page, "caja1", "/ledger/players/marta/")
    assert re.search(r"520,00\s*€", page.inner_text(".balance"))
