"""The pit's import of hand records in Chromium, in Spanish, at 1024×768 and 390×844: a
pit supervisor uploads a bad JSON Lines file through the import page and reads why in
Spanish words only, naming the line, the column or the field (``tables.errors``
words the engine's codes: no ``malformed JSON: Expecting ',' delimiter``, no English
phrase inside), and nothing of the file is written, not even its good lines; the same
file mended imports whole."""

import json

import pytest

from tables.models import Hand, HandEvent
from tests.browser.test_console import log_in
from tests.hands import record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]
ENGLISH = ["malformed", "Expecting", "delimiter", "line ", "field ", "must be", "the deal", "has not finished",
           "nothing of"]


def _hand(**fields):
    return json.dumps(record(*P01, seats=("luis", "marta"), **{"table": "Mesa 1", **fields}))


def _upload(page, name, lines):
    """The file ``name`` of ``lines`` chosen and sent; the form's refusal (or "")."""
    page.set_input_files("input[name=records]", files=[{
        "name": name, "mimeType": "application/jsonl", "buffer": "\n".join(lines).encode() + b"\n"}])
    with page.expect_navigation():
        page.click("#hand-import button[type=submit]")
    errors = page.locator("#hand-import .errorlist")
    return " ".join(errors.inner_text().split()) if errors.count() else ""


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_a_bad_file_is_refused_in_spanish_naming_its_line_and_nothing_is_written(chromium, live_server, mesa, size):
    context = chromium.new_context(locale="es-ES", viewport={"width": size[0], "height": size[1]},
                                   base_url=live_server.url)
    context.set_default_timeout(20_000)
    page = context.new_page()
    log_in(page, "pit1", "/tables/pit/")
    page.click("text=Importar registros de manos")
    page.wait_for_url("**/tables/pit/import/")
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

    # Line 3 is not JSON (a comma missing): refused before anything is imported.
    good = _hand()
    refusal = _upload(page, "noche.jsonl", [good, "", good.replace(', "min_bet"', ' "min_bet"', 1)])
    assert refusal.startswith("JSON mal formado en la línea 3, columna ") and ": falta una coma" in refusal, refusal
    assert refusal.endswith("no se escribió nada del fichero"), refusal
    assert [word for word in ENGLISH if word in refusal] == [], refusal
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]

    # Line 2 reads as JSON but its min_bet is not an amount: the engine's code worded in
    # Spanish, naming the line and the field; line 1, good, is not written either.
    refusal = _upload(page, "noche.jsonl", [good, _hand(min_bet="cinco")])
    assert refusal == 'línea 2: min_bet debe ser un importe como "5.00", no "cinco" — no se escribió nada del fichero', \
        refusal
    # A record that ends before its hand: who has not finished, in Spanish.
    refusal = _upload(page, "noche.jsonl", [_hand(events=json.loads(good)["events"][:6])])
    assert refusal.startswith("línea 1: el registro acaba antes que la mano: ") and "no ha terminado" in refusal, refusal
    assert [word for word in ENGLISH if word in refusal] == [], refusal
    assert (Hand.objects.count(), HandEvent.objects.count()) == (0, 0)

    # Mended, the file imports whole.
    assert _upload(page, "noche.jsonl", [good, _hand()]) == ""
    assert "2 manos importadas: Mesa 1 (2)" in page.inner_text("main")
    assert list(Hand.objects.order_by("number").values_list("number", "status", "imported")) == [
        (1, "settled", True), (2, "settled", True)]
    context.close()
