"""The bank's auction in Chromium, as the pit runs it: its page, its confirmation and the
page after the award all say what happens, the winner deposits his bid, the bank's
capital, at the cage (nothing is taken from his chips)."""

from decimal import Decimal

import pytest

from ledger.selectors import player_balance
from tables import services
from tables.models import BankTenure

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "secret-pass-1"


def test_the_auction_says_the_capital_is_deposited_at_the_cage(chromium, live_server, mesa):
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    chips = player_balance(player=mesa.players["luis"])
    context = chromium.new_context(viewport={"width": 1024, "height": 768}, locale="es-ES", base_url=live_server.url)
    page = context.new_page()
    address = f"/tables/pit/tables/{mesa.table.pk}/bank/auction/"
    page.goto(f"/accounts/login/?next={address}")
    page.fill("input[name=username]", "pit1")
    page.fill("input[name=password]", PASSWORD)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{address}")
    said = [page.inner_text("main")]
    page.click("#form-auction-open button[type=submit]")
    page.wait_for_selector("#form-bid")
    page.fill("#form-bid input[name=player]", "luis")
    page.fill("#form-bid input[name=amount]", "150")
    page.click("#form-bid button[type=submit]")
    page.wait_for_selector("text=Puja de luis registrada")
    page.click("#form-award button[type=submit]")
    page.wait_for_selector("#form-award .warning")
    said.append(page.inner_text("#form-award"))
    page.click("#form-award button[type=submit]")
    page.wait_for_url(f"**/tables/pit/tables/{mesa.table.pk}/")
    said.append(page.inner_text("main"))
    context.close()
    for words in said[:2]:  # never that the capital comes from his chips
        assert "de sus fichas." not in words and "de las fichas del ganador" not in words, words
    assert "la deposita en efectivo en caja antes de su primera mano" in said[0]
    assert "El ganador deposita su puja, el capital de la banca, en caja" in said[1]
    assert "Su capital se deposita en caja antes de su primera mano" in said[2]
    tenure = BankTenure.objects.get(table=mesa.table, closed_at__isnull=True)
    assert (tenure.holder.code, tenure.capital, tenure.deposit_required) == ("luis", Decimal("150.00"), True)
    assert player_balance(player=mesa.players["luis"]) == chips  # nothing taken from his chips
