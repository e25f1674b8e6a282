"""A pit supervisor narrows a table's hand history to one of the casino's days and
downloads those hands as CSV in Spanish (issue 17), in Debian's Chromium."""

import csv
import io
from datetime import UTC, datetime

import pytest

from tables.models import Hand

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def test_a_supervisor_filters_a_day_and_downloads_its_hands(chromium, live_server, mesa, staff):
    for moment in (datetime(2026, 11, 20, 23, 30, tzinfo=UTC), datetime(2026, 11, 21, 23, 30, tzinfo=UTC)):
        hand = mesa.play(mesa.open("luis", "marta"), *P01)
        Hand.objects.filter(pk=hand.pk).update(opened_at=moment)  # 00:30 in Madrid, the 21st and the 22nd
    staff["supervisor"].set_password("pit-pass")
    staff["supervisor"].save()
    context = chromium.new_context(locale="es-ES", viewport={"width": 1024, "height": 768},
                                   base_url=live_server.url, accept_downloads=True)
    page = context.new_page()
    page.goto(f"/accounts/login/?next=/tables/hands/{mesa.table.pk}/")
    page.fill("input[name=username]", staff["supervisor"].username)
    page.fill("input[name=password]", "pit-pass")
    page.click("main form button[type=submit]")
    page.wait_for_selector("table.hands")
    page.fill("input[name=date_from]", "2026-11-21")
    page.fill("input[name=date_to]", "2026-11-21")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**date_from=2026-11-21**")
    assert page.locator("table.hands tbody tr").count() == 1
    assert page.locator("table.hands tbody tr td").nth(1).inner_text() == "21/11/2026 00:30"
    with page.expect_download() as info:
        page.click("a.export")
    download = info.value
    assert download.suggested_filename.endswith("-semicolon.csv")
    with open(download.path(), encoding="utf-8") as file:
        rows = list(csv.reader(io.StringIO(file.read()), delimiter=";"))
    assert [row[0] for row in rows[2:]] == ["1"] and rows[2][1] == "21/11/2026 00:30" and rows[2][10] == "10,00"
    context.close()
