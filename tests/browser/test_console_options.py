"""The console at tables with the seeds' last options, by keyboard, on a tablet
(1024 × 768) and a phone (390 × 844): a French deck (its cards typed whole, ``AS``,
``qd``, its suits shown ♠ ♥ ♦ ♣, its keys), splits of pairs where the table agreed them (a
pair over 7½ too), profesional's one-card cap (the stand greyed and refused naming it), and
la loca's calls made by its responsable (the biggest bettor proposed).
``SCREENSHOT_DIR=/some/dir`` keeps a screenshot of each hand at each size."""

import os
import re
from pathlib import Path

import pytest

from tables.models import Hand, HandEvent
from tests.browser.test_console import focus_lands, keys, log_in, version

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [(1024, 768), (390, 844)]


def at_table(page, mesa, size, rules, seats):
    """The table's rules set, the console opened at ``size`` and a hand of ``seats`` opened
    by keyboard: the focus in the deal's card box."""
    mesa.table.rules = rules
    mesa.table.save(update_fields=["rules"])
    page.set_viewport_size({"width": size[0], "height": size[1]})
    log_in(page, "dealer1", f"/tables/console/{mesa.table.pk}/")
    page.wait_for_selector("#form-open")
    assert focus_lands(page, "form-open", "seats") == ("form-open", "seats")
    page.keyboard.type(seats)
    page.keyboard.press("Enter")
    page.wait_for_selector('#console[data-status="open"]')
    assert focus_lands(page, "form-deal", "card") == ("form-deal", "card")


def shot(page, name, size):
    shots = os.environ.get("SCREENSHOT_DIR")
    if shots:
        page.screenshot(path=str(Path(shots) / f"{name}-{size[0]}x{size[1]}.png"), full_page=True)


def events():
    return [entry.event for entry in HandEvent.objects.order_by("sequence")]


def in_view(page, selector):
    box = page.locator(selector).first.bounding_box()
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width + 1 and box["y"] >= 0 \
        and box["y"] + box["height"] <= height + 1


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_french_hand_by_keyboard(browser_page, mesa, size):
    page = browser_page
    at_table(page, mesa, size, {"profile": "reglamento", "deck": "french-40"}, "luis marta")
    # The picker is the French deck's, its suits as ♠ ♥ ♦ ♣; the card boxes say so.
    assert page.locator("#console").get_attribute("data-deck") == "french-40"
    assert page.locator(".picker button[data-pick]").count() == 40
    assert page.inner_text('.picker button[data-pick="QD"]').replace("\n", "") == "Q♦"
    assert page.locator('.picker button[data-pick="7O"]').count() == 0
    assert page.get_attribute("#form-deal input[name=card]", "placeholder") == "7H"
    shot(page, "console-french-picker", size)
    # A Spanish card is refused, naming the deck; typed again French, in lower case. (By
    # keys, its O is not even typed: no French card has it.)
    page.keyboard.type("7o")
    assert page.input_value("#form-deal input[name=card]") == "7"
    page.fill("#form-deal input[name=card]", "7O")
    page.keyboard.press("Enter")
    assert "7O" in page.wait_for_selector("#refusal").inner_text() and HandEvent.objects.count() == 0
    assert focus_lands(page, "form-deal", "card") == ("form-deal", "card")
    keys(page, "as")
    keys(page, "qd")
    keys(page, "7h")
    assert events()[:3] == [{"do": "deal", "seat": "luis", "card": "AS"}, {"do": "deal", "seat": "marta", "card": "QD"},
                            {"do": "deal", "seat": "bank", "card": "7H"}]
    assert page.inner_text('[data-who="marta"] .card').replace("\n", "") == "Q♦"
    keys(page, "10{Enter}")
    keys(page, "5c")  # luis: A + 5 = 6
    keys(page, "p")
    keys(page, "10{Enter}")
    keys(page, "v")  # marta turns up her queen: her next card comes face down
    # D, with the card box empty, is the card face down; after a rank it is diamonds.
    page.keyboard.press("d")
    assert page.locator("#form-card button.armed").get_attribute("value") == "card-down"
    keys(page, "3d")  # marta: Q + 3 = 3½, the 3 of diamonds face down
    assert events()[-1] == {"do": "card", "seat": "marta", "card": "3D", "down": True}
    keys(page, "p")
    keys(page, "kc")  # the bank: 7 + K = 7½
    page.wait_for_selector('#console[data-status="settled"]')
    assert Hand.objects.get().settlement["players"] == {"luis": "-10.00", "marta": "-10.00"}
    assert page.inner_text('[data-who="bank"] .card >> nth=1').replace("\n", "") == "K♣"
    # Between hands the buy-in's key is H (K is a French rank).
    assert page.get_attribute("#buy-in", "data-key") == "h"
    shot(page, "console-french", size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_splits_of_pairs_by_keyboard_where_the_table_agreed_them(browser_page, mesa, size):
    page = browser_page
    at_table(page, mesa, size, {"profile": "reglamento", "split_pairs": True}, "luis marta")
    for card in ("3o", "4c", "2e"):
        keys(page, card)
    keys(page, "10{Enter}")
    keys(page, "3c")  # luis: a pair of 3s; A splits it
    assert "A" in page.inner_text("#form-play button.split")
    keys(page, "a")
    assert page.locator('[data-who="luis"] .hand').count() == 2
    keys(page, "4e")  # hand 1: 3 + 4 = 7
    keys(page, "p")
    keys(page, "{Enter}")  # hand 2: the first hand's stake again
    keys(page, "1b")
    keys(page, "p")
    keys(page, "10{Enter}")
    keys(page, "4b")  # marta: a pair of 4s, 8: bust unless she splits it now
    assert page.locator("#form-pair button").count() == 1
    assert in_view(page, "#form-pair button")
    shot(page, "console-pair-over", size)
    keys(page, "a")
    assert events()[-1] == {"do": "split", "seat": "marta"}
    keys(page, "3b")  # hand 1: 4 + 3 = 7
    keys(page, "p")
    keys(page, "{Enter}")
    keys(page, "2b")  # hand 2: 4 + 2 = 6
    keys(page, "p")
    keys(page, "5o")  # the bank: 2 + 5 = 7
    keys(page, "p")
    page.wait_for_selector('#console[data-status="settled"]')
    settlement = Hand.objects.get().settlement
    assert [(b["seat"], b["hand"], b["points"], b["result"]) for b in settlement["bets"]] == [
        ("luis", 1, "7", "lose"), ("luis", 2, "4", "lose"), ("marta", 1, "7", "lose"), ("marta", 2, "6", "lose")]
    shot(page, "console-split-pairs", size)


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_a_stand_on_one_card_over_profesionals_cap_by_keyboard(browser_page, mesa, size):
    page = browser_page
    at_table(page, mesa, size, {"profile": "profesional"}, "luis marta")
    for card in ("5o", "3c", "1e", "2e"):  # luis, marta, la loca, the bank
        keys(page, card)
    assert "10,00" in page.inner_text("#stake-hint")  # to stand on this one card: at most 10,00 €
    keys(page, "20{Enter}")
    # The stand is greyed, the cap beside it; sent anyway, it is refused naming it.
    stand = page.locator("#form-play button.stand")
    assert "capped" in stand.get_attribute("class")
    assert "10,00" in page.inner_text("#one-card-cap") and "20,00" in page.inner_text("#one-card-cap")
    shot(page, "console-one-card-cap", size)
    before = version(page)
    page.keyboard.press("p")
    refusal = page.wait_for_selector("#refusal")
    assert re.search(r"10,00", refusal.inner_text()) and "20,00" in refusal.inner_text()
    assert version(page) == before and HandEvent.objects.count() == before
    assert in_view(page, "#refusal")
    shot(page, "console-one-card-refused", size)
    keys(page, "1c")  # a card first: 5 + 1 = 6
    keys(page, "p")
    keys(page, "10{Enter}")  # marta: 10 € on her 3, the cap: she stands on it
    assert "capped" not in (page.locator("#form-play button.stand").get_attribute("class") or "")
    keys(page, "p")
    keys(page, "p")  # la loca, without bets, stands
    keys(page, "5b")  # the bank: 2 + 5 = 7
    keys(page, "p")
    page.wait_for_selector('#console[data-status="settled"]')
    assert Hand.objects.get().settlement["players"] == {"luis": "-20.00", "marta": "-10.00"}


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_la_locas_calls_by_keyboard_its_biggest_bettor_proposed(browser_page, mesa, size):
    page = browser_page
    at_table(page, mesa, size, {"profile": "profesional", "loca_calls": True}, "luis")
    for card in ("2o", "6c", "3e"):  # luis, la loca, the bank
        keys(page, card)
    for bettor, amount in (("pepe", "10"), ("rosa", "20")):  # bets on la loca: L, the bettor, Tab, the stake
        page.keyboard.press("l")
        page.keyboard.type(bettor)
        page.keyboard.press("Tab")
        keys(page, f"{amount}{{Enter}}")
    keys(page, "10{Enter}")
    keys(page, "5c")  # luis: 2 + 5 = 7
    keys(page, "p")
    # La loca's turn: its calls, rosa (the biggest bettor) proposed as its responsable.
    assert page.input_value("#form-calls select[name=player]") == "rosa"
    assert page.locator("#form-calls button").count() == 3
    assert in_view(page, "#form-calls")
    shot(page, "console-loca-calls", size)
    keys(page, "w")  # dobla quien quiera
    assert events()[-1] == {"do": "loca_call", "seat": "loca", "call": "dobla_quien_quiera", "responsable": "rosa"}
    assert page.locator("#form-calls select").count() == 0 and "rosa" in page.inner_text("#form-calls")
    page.keyboard.press("l")  # pepe raises 10 (up to twice his first stake)
    assert page.evaluate("document.activeElement.name") == "player"
    page.keyboard.press("Tab")
    keys(page, "10{Enter}")
    assert events()[-1] == {"do": "bet", "seat": "loca", "amount": "10.00", "player": "pepe"}
    keys(page, "1b")  # la loca: 6 + 1 = 7
    keys(page, "p")  # la loca se planta
    assert events()[-1] == {"do": "loca_call", "seat": "loca", "call": "se_planta", "responsable": "rosa"}
    keys(page, "4o")  # the bank: 3 + 4 = 7, ties go to the bank
    keys(page, "p")
    page.wait_for_selector('#console[data-status="settled"]')
    assert Hand.objects.get().settlement["players"] == {"luis": "-10.00", "pepe": "-20.00", "rosa": "-20.00"}
    shot(page, "console-loca-settled", size)


def test_la_loca_dobla_with_another_responsable_chosen_by_keyboard(browser_page, mesa):
    page = browser_page
    at_table(page, mesa, (390, 844), {"profile": "profesional", "loca_calls": True}, "luis")
    for card in ("2o", "7c", "3e"):
        keys(page, card)
    for bettor, amount in (("pepe", "10"), ("rosa", "20")):
        page.keyboard.press("l")
        page.keyboard.type(bettor)
        page.keyboard.press("Tab")
        keys(page, f"{amount}{{Enter}}")
    keys(page, "10{Enter}")
    keys(page, "5c")
    keys(page, "p")
    # Shift+W: the responsable's list; a letter picks pepe, Enter back; Shift+D: la loca dobla.
    page.keyboard.press("Shift+W")
    assert page.evaluate("document.activeElement.name") == "player"
    page.keyboard.press("p")
    page.keyboard.press("Enter")
    assert page.input_value("#form-calls select[name=player]") == "pepe"
    before = version(page)
    page.keyboard.press("Shift+D")
    page.wait_for_selector(f'#console[data-version="{before + 1}"]')
    assert events()[-1] == {"do": "loca_call", "seat": "loca", "call": "dobla", "responsable": "pepe"}
    assert page.locator("#form-calls button").count() == 1  # now only its stand
    keys(page, "p")
    keys(page, "5o")  # the bank: 3 + 5 = 8, bust
    page.wait_for_selector('#console[data-status="settled"]')
    players = Hand.objects.get().settlement["players"]
    assert players["pepe"] == "20.00" and players["rosa"] == "40.00"  # each stake doubled by the call
