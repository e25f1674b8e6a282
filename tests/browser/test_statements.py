"""The monthly statement and the privilege changes in a real browser, at 1024×768 and
390×844: the auditor asks for the month's statement from the menu, watches its progress
until the figures show, signs it after the confirmation, downloads the PDF; he reads the
privilege changes. No sideways scroll. ``STATEMENT_SHOTS=dir`` keeps screenshots."""

import os
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from boxes.services import table_buy_in
from casino import periods
from reports.models import MonthlyStatement
from tests.browser.test_journal import auditor_opens

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def shot(page, name):
    if os.environ.get("STATEMENT_SHOTS"):
        page.screenshot(path=f"{os.environ['STATEMENT_SHOTS']}/{name}.png", full_page=True)


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_the_auditor_computes_signs_and_downloads_the_months_statement(chromium, live_server, mesa, size,
                                                                       monkeypatch):
    table_buy_in(shift=mesa.table.shifts.get(), player=mesa.players["pepe"], amount=Decimal("200"),
                 recorded_by=mesa.dealer)
    real = periods.gaming_day
    monkeypatch.setattr(periods, "gaming_day", lambda at: real(at) + timedelta(days=1))  # today's day is over
    context, page = auditor_opens(chromium, live_server, size, "Declaraciones", "/reports/statements/")
    assert page.evaluate("document.activeElement.id") == "id_month"
    page.fill("#id_month", f"{real(timezone.now()):%Y-%m}")
    page.click("text=Calcular la declaración")
    page.wait_for_selector("#statement")  # the progress page moved on to the figures
    text = page.inner_text("main")
    assert "Declaración mensual" in text and "Mesa 1" in text and "200,00" in text and "sin firmar" in text, text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    shot(page, f"statement-{size[0]}")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#sign")
    page.wait_for_selector("text=Declaración firmada.")
    assert "firmada por audit1" in page.inner_text("#signature")
    statement = MonthlyStatement.objects.get()
    assert statement.signed_by.username == "audit1" and len(statement.signature) == 64
    with page.expect_download() as download:
        page.click("text=PDF")
    assert download.value.suggested_filename == f"statement-{statement.month:%Y-%m}-v1.pdf"
    context.close()


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)])
def test_the_auditor_reads_the_privilege_changes(chromium, live_server, staff, size):
    staff["cashier"].is_staff = True
    staff["cashier"].save()
    context, page = auditor_opens(chromium, live_server, size, "Privilegios", "/reports/privileges/")
    text = page.inner_text("main")
    assert "Cambios de privilegios" in text and "caja1" in text and "fuera de la aplicación" in text, text
    assert page.evaluate("document.documentElement.scrollWidth") <= size[0]
    shot(page, f"privileges-{size[0]}")
    context.close()
