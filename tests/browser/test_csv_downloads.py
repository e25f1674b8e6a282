"""One CSV convention, downloaded from the pages as a reader does, in Chromium at
1024×768 and 390×844: an auditor reading in Spanish, then one who chose English in the
top bar, downloads a table's hands, the daily control register and the AML register. Each
file's name says its separator (``casino.formatting.csv_name``), its first line names the
separator and the decimal mark (``csv_text``), its headers are in the reader's language,
its amounts carry his decimal mark (``csv_amount``) and its times his one form
(``csv_instant``); Spanish files are separated by semicolons, English ones by commas."""

import csv
import io
import re

import pytest

from tests.browser.test_console import log_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [(1024, 768), (390, 844)]
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]

#: Per language: separator, the file name's end, the first line's start, the first
#: headers of each file, a cell of each (an amount in the reader's form), a time's form.
CONVENTIONS = {
    "es": {"separator": ";", "suffix": "-semicolon.csv", "first": "# Campos separados por punto y coma — coma decimal",
           "headers": {"hands": ["mano", "abierto el", "liquidada el", "crupier"],
                       "daily": ["mesa", "sesión", "crupier"], "aml": ["jugador", "entrada", "salida", "total"]},
           "amounts": {"hands": "10,00", "daily": "0,00", "aml": "500,00"},
           "time": r"\d\d/\d\d/\d{4} \d\d:\d\d"},
    "en": {"separator": ",", "suffix": "-comma.csv", "first": "# Fields separated by commas — decimal point",
           "headers": {"hands": ["hand", "opened at", "settled at", "dealer"],
                       "daily": ["table", "session", "dealer"], "aml": ["player", "in", "out", "total"]},
           "amounts": {"hands": "10.00", "daily": "0.00", "aml": "500.00"},
           "time": r"\d{1,2} [A-Z][a-z]{2} \d{4} \d\d:\d\d"},
}


def download(page, link):
    """Click ``link`` and return ``(file name, text)`` of what the browser downloads."""
    with page.expect_download() as info:
        page.click(link)
    with open(info.value.path(), encoding="utf-8") as file:
        return info.value.suggested_filename, file.read()


@pytest.mark.parametrize("size", SIZES, ids=["tablet", "phone"])
@pytest.mark.parametrize("language", ["es", "en"])
def test_every_csv_downloaded_is_in_the_readers_convention(chromium, live_server, mesa, size, language):
    mesa.play(mesa.open("luis", "marta"), *P01)
    convention = CONVENTIONS[language]
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url, accept_downloads=True)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "audit1", "/")
    if language == "en":  # chosen in the top bar, as a reader chooses it
        with page.expect_navigation():
            page.select_option("header.top select[name=language]", "en")
        assert page.get_attribute("html", "lang") == "en"
    files = {}
    page.goto(f"/tables/hands/{mesa.table.pk}/")
    files["hands"] = download(page, "a.export")
    page.goto("/boxes/daily/")
    files["daily"] = download(page, "main a:text-is('CSV')")
    page.goto("/cage/aml/")
    files["aml"] = download(page, "main a:text-is('CSV')")
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    context.close()

    other = "." if convention["separator"] == ";" else ","  # the other language's decimal mark
    for name, (filename, text) in files.items():
        assert filename.endswith(convention["suffix"]), (name, filename)
        rows = list(csv.reader(io.StringIO(text), delimiter=convention["separator"]))
        assert len(rows[0]) == 1 and rows[0][0].startswith(convention["first"]), (name, rows[0])
        headers = next(row for row in rows[1:] if row and row[0] == convention["headers"][name][0])
        assert headers[:len(convention["headers"][name])] == convention["headers"][name], (name, headers)
        cells = [cell for row in rows[1:] for cell in row]
        assert convention["amounts"][name] in cells, (name, rows)
        amounts = [cell for cell in cells if re.fullmatch(r"-?\d+[.,]\d\d", cell)]
        assert amounts and not [cell for cell in amounts if other in cell], (name, amounts)
    hand = next(row for row in csv.reader(io.StringIO(files["hands"][1]), delimiter=convention["separator"])
                if row and row[0] == "1")
    assert re.fullmatch(convention["time"], hand[1]) and re.fullmatch(convention["time"], hand[2]), hand
