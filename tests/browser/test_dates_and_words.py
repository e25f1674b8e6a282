"""Words the floor read wrong, read again in Chromium at 1024×768 and 390×844, in Spanish
and in English chosen in the top bar: one date and time form per language on every page
(``casino/formats/es``: ``28/11/2026 05:08``; ``casino/formats/en``: ``28 Nov 2026 05:08``;
an entry's time with its seconds), never ``11/28/2026``, ``5:08 a.m.`` or ``Nov. 28``;
the auction's sessions a real plural, not ``sesión(es)``; empty lists that say what is
empty (no shift, no bank tenure, no tronc distribution), not ``Ninguna todavía``; a hand
(la mano) "Abierta", not "Abierto"."""

import re
from decimal import Decimal

import pytest

from tables import services
from tables.bank.life import auction_award, auction_bid, auction_open
from tests.browser.test_console import log_in
from tests.factories import TableFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]

#: Per language: a moment (date and time), an entry's time with its seconds, the words.
FORMS = {
    "es": {"moment": r"\d\d/\d\d/\d{4} \d\d:\d\d", "entry": r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d",
           "award": "Ganada en subasta para 2 sesiones; sesiones jugadas desde entonces: 0.",
           "no shift": "Aún no hay turnos.", "no tenure": "Ninguna banca todavía.",
           "no distribution": "Ningún reparto todavía."},
    "en": {"moment": r"\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d", "entry": r"\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d",
           "award": "Won at auction for 2 sessions; sessions played since: 0.",
           "no shift": "No shift yet.", "no tenure": "No bank tenure yet.",
           "no distribution": "No distribution yet."},
}
#: Forms no page may show: a month-first or 12-hour time, Django's default long English
#: date, a hedged plural, an empty list that does not say what is empty.
NEVER = [r"\d{1,2}/\d{1,2}/\d{4} \d{1,2}:\d\d [ap]\.m\.", r"[ap]\.m\.", r"[A-Z][a-z]{2}\. \d{1,2}, \d{4}",
         r"\w\(e?s\)", r"Ninguna todavía", r"None yet"]


def _text(page):
    return " ".join(page.inner_text("main").replace("\u00a0", " ").replace("\u202f", " ").split())


def _never(text):
    return [pattern for pattern in NEVER if re.search(pattern, text)]


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
@pytest.mark.parametrize("language", ["es", "en"])
def test_dates_plurals_and_empty_lists_in_the_readers_language(chromium, live_server, mesa, size, language):
    forms = FORMS[language]
    mesa.play(mesa.open("luis", "marta"), *P01)
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    auction = auction_open(table=mesa.table, sessions=2, opened_by=mesa.supervisor)
    auction_bid(auction=auction, player=mesa.players["pepe"], amount=Decimal("50"), recorded_by=mesa.supervisor)
    auction_award(auction=auction, awarded_by=mesa.supervisor)
    empty = TableFactory(name="Mesa 9")
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "pit1", "/tables/pit/")
    if language == "en":
        with page.expect_navigation():
            page.select_option("header.top select[name=language]", "en")
        assert page.get_attribute("html", "lang") == "en"

    # The table's page: the shift's and the tenures' moments, the auction's plural.
    page.goto(f"/tables/pit/tables/{mesa.table.pk}/")
    text = _text(page)
    assert forms["award"] in text, text
    shift_row = " ".join(page.inner_text("table.shifts tbody tr").split())
    assert re.search(forms["moment"], shift_row), shift_row
    assert len(re.findall(forms["moment"], " ".join(page.inner_text("table.tenures").split()))) >= 3
    assert _never(text) == [], text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

    # A table with nothing yet says what it has none of.
    page.goto(f"/tables/pit/tables/{empty.pk}/")
    text = _text(page)
    assert forms["no shift"] in text and forms["no tenure"] in text, text
    assert _never(text) == []

    # The hand's page: its moments in the one form, each entry's time with its seconds.
    page.goto(f"/tables/hands/{mesa.table.pk}/1/")
    text = _text(page)
    assert len(re.findall(forms["entry"], text)) >= len(P01), text
    assert _never(text) == [], text
    if language == "en":
        assert not re.search(r"\d{1,2}/\d{1,2}/\d{4}", text), text  # no day or month first in numbers
    else:
        assert not re.search(r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\b", text), text
        assert "Abierta" in text and "Abierto" not in text, text  # la mano
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

    # The tronc, nothing shared out yet.
    page.goto("/boxes/tronc/")
    text = _text(page)
    assert forms["no distribution"] in text and _never(text) == [], text
    context.close()
