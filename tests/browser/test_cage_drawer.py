"""The cage in a real browser, in Spanish, as a cashier works it: a drawer from its opening
float to its close with a variance signed by a cage supervisor; a buy-in refused at the
anti-money-laundering threshold until the patron's identity is recorded, and the
compliance officer's register of that day with its structuring alert reviewed."""

from decimal import Decimal

import pytest
from django.utils import timezone

from cage.models import AmlAlert, AmlReview, CashierSlip, Drawer
from casino.periods import gaming_day
from ledger.selectors import player_balance
from tests.factories import PlayerFactory, UserFactory, open_drawer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def log_in(page, username, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}**")  # a slip form goes on to an address of its own


def buy_in(page, player, amount):
    page.goto("/cage/buy-in/")
    page.fill("input[name=player]", player)
    page.fill("input[name=amount]", amount)
    page.click("main form button[type=submit]")


def test_a_drawer_from_opening_to_close_with_a_variance(browser_page):
    page = browser_page
    cashier = UserFactory(username="caja", roles=["cashier"])
    UserFactory(username="jefa", roles=["cage_supervisor"])
    luis = PlayerFactory(code="luis")
    log_in(page, "caja", "/cage/drawer/")
    # No drawer yet: a buy-in is refused with the reason.
    buy_in(page, "luis", "10")
    assert "no tiene ningún cajón abierto" in page.inner_text("main")
    assert CashierSlip.objects.count() == 0
    # The float, note by note: 10 × 50 + 20 × 20 + 4 × 0,50 = 902,00 €, added up as typed.
    page.goto("/cage/drawer/")
    page.fill("input[name=d50_00]", "10")
    page.fill("input[name=d20_00]", "20")
    page.fill("input[name=d0_50]", "4")
    assert page.inner_text("#count-total").replace("\u00a0", " ") == "902,00 €"
    page.fill("input[name=d50_00]", "30")  # a thousand and more: grouped as the pages print it
    assert page.inner_text("#count-total").replace("\u00a0", " ").replace("\u202f", " ") == "1 902,00 €"
    page.fill("input[name=d50_00]", "10")
    page.click("#open-drawer button[type=submit]")
    page.wait_for_selector("#count-and-close")
    assert "902,00 €" in page.inner_text("main")
    # Two slips against it.
    buy_in(page, "luis", "300")
    page.wait_for_url("**/cage/slips/*/")
    page.goto("/cage/cash-out/")
    page.fill("input[name=player]", "luis")
    page.fill("input[name=amount]", "120,50")
    page.click("main form button[type=submit]")
    page.click("main form button[type=submit]")  # the confirmation
    page.wait_for_url("**/cage/slips/*/")
    assert player_balance(player=luis) == Decimal("179.50")
    # The blind count: 1 071,50 € against 902,00 + 300,00 − 120,50 = 1 081,50 € expected.
    page.goto("/cage/drawer/")
    page.click("#count-and-close")
    for name, pieces in {"d50_00": "15", "d20_00": "15", "d10_00": "1", "d5_00": "2", "d1_00": "1", "d0_50": "1"}.items():
        page.fill(f"input[name={name}]", pieces)
    page.click("#count-drawer button[type=submit]")
    page.wait_for_selector("#sign-close")
    assert page.inner_text("#expected").replace("\u00a0", " ") == "1 081,50 €"
    assert page.inner_text("#counted").replace("\u00a0", " ") == "1 071,50 €"
    assert page.inner_text("#variance").replace("\u00a0", " ") == "faltan 10,00 €"
    assert "supera la tolerancia" in page.inner_text("main")
    # The cashier cannot sign for the supervisor.
    page.fill("input[name=supervisor]", "caja")
    page.fill("input[name=password]", PASSWORD)
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#sign-close button[type=submit]")
    page.wait_for_selector("#sign-close")
    assert "no es jefe de caja" in page.inner_text("main")
    assert Drawer.objects.get().is_open
    # The supervisor signs.
    page.fill("input[name=supervisor]", "jefa")
    page.fill("input[name=password]", PASSWORD)
    page.fill("textarea[name=note]", "recontado dos veces")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#sign-close button[type=submit]")
    page.wait_for_url("**/cage/drawers/*/")
    assert "faltan 10,00 €" in page.inner_text("#variance") and page.inner_text("#supervisor") == "jefa"
    drawer = Drawer.objects.get()
    assert (drawer.float_amount, drawer.expected, drawer.counted, drawer.variance) == (
        Decimal("902.00"), Decimal("1081.50"), Decimal("1071.50"), Decimal("-10.00"))
    assert drawer.cashier == cashier and drawer.supervisor.username == "jefa" and drawer.closing_count["50.00"] == 15
    assert drawer.slips.count() == 2 and drawer.note == "recontado dos veces"


def test_a_movement_refused_at_the_threshold_until_the_identity_is_recorded(browser_page, settings):
    settings.ADMISSION_WITHOUT_IDENTITY = True  # a casino that seats patrons without identity
    page = browser_page
    cashier = UserFactory(username="caja", roles=["cashier"])
    UserFactory(username="cumple", roles=["compliance_officer"])
    open_drawer(cashier)
    anon = PlayerFactory(code="anon", name="", unidentified=True)
    log_in(page, "caja", "/cage/buy-in/")
    buy_in(page, "anon", "1500")
    page.wait_for_url("**/cage/slips/*/")
    # 1 500 + 600 = 2 100 € in one gaming day: at the threshold, and no identity on file.
    buy_in(page, "anon", "600")
    page.wait_for_selector(".errorlist")
    text = page.inner_text("main").replace("\u00a0", " ")
    assert "rechazado" in text and "2 100,00 €" in text and "2 000,00 €" in text
    day = gaming_day(timezone.now())  # named as a Spanish reader writes a date, not 2026-11-24
    assert f"día de juego {day:%d/%m/%Y}" in text and day.isoformat() not in text
    assert CashierSlip.objects.filter(player=anon).count() == 1
    # His identity, from the drawer's page.
    page.goto("/cage/drawer/")
    page.fill("input[name=code]", "anon")
    page.click("form[action='/cage/identity/'] button")
    page.wait_for_url("**/cage/players/anon/identity/")
    page.fill("input[name=name]", "Ana Nónima")
    page.select_option("select[name=document_type]", "passport")
    page.fill("input[name=document_number]", "xk 123 456")
    page.fill("input[name=nationality]", "fr")
    page.fill("input[name=date_of_birth]", "1985-03-02")
    page.click("#identity-form button[type=submit]")
    page.wait_for_selector(".messages")
    assert "Identidad de anon registrada" in page.inner_text("main")
    anon.refresh_from_db()
    assert (anon.document_number, anon.nationality, anon.has_identity) == ("XK123456", "FR", True)
    assert anon.identity_records.get().recorded_by == cashier
    buy_in(page, "anon", "600")
    page.wait_for_url("**/cage/slips/*/")
    assert player_balance(player=anon) == Decimal("2100.00")
    # Two movements each under the threshold that together pass it: structuring.
    alert = AmlAlert.objects.get()
    assert (alert.kind, alert.total, alert.movements) == ("structuring", Decimal("2100.00"), 2)
    # The compliance officer reads the day's register and marks the alert reviewed.
    page.click("header form button[type=submit]")  # log out
    log_in(page, "cumple", "/cage/aml/")
    assert "anon" in page.inner_text("#totals") and "2\u00a0100,00" in page.inner_text("#totals")
    assert "fraccionamiento" in page.inner_text("#alerts")
    page.fill("#alerts textarea[name=note]", "cliente habitual, fondos justificados")
    page.click("#alerts button[type=submit]")
    page.wait_for_selector(".messages")
    assert "Revisada por cumple" in page.inner_text("#alerts")
    review = AmlReview.objects.get()
    assert review.alert == alert and review.reviewed_by.username == "cumple"
