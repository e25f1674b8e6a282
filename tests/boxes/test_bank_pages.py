"""The pit's pages of the bank's life and the console's announcement, in Spanish."""

from decimal import Decimal

import pytest
from django.urls import reverse

from ledger.models import Transaction
from tables import services
from tables.models import BankAuction, BankBid, BankTenure
from tests.boxes.test_bank_life import BANK_LOSES, play
from tests.factories import deposit_bank
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db


@pytest.fixture
def client_es(client):
    client.cookies["django_language"] = "es"
    return client


def test_the_pit_auctions_the_bank_and_a_tie_is_drawn_by_lot(client_es, mesa):
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_auction", args=[mesa.table.pk])
    assert "Abrir la subasta" in client_es.get(url).content.decode()
    client_es.post(url, {"open": "1", "sessions": "3"})
    for player, amount in (("luis", "150"), ("marta", "150,00"), ("pepe", "100")):
        client_es.post(url, {"bid": "1", "player": player, "amount": amount})
    refused = client_es.post(url, {"bid": "1", "player": "rosa", "amount": "4"})  # below the minimum bet
    assert refused.status_code == 200 and "rosa" not in BankBid.objects.values_list("player__code", flat=True)
    page = client_es.get(url).content.decode()
    assert "luis, marta empatan a 150,00 €" in page
    confirm = client_es.post(url, {"award": "1"})
    assert "Confirmar la adjudicación" in confirm.content.decode() and BankAuction.objects.get().awarded_at is None
    done = client_es.post(url, {"award": "1", "confirm": "yes"}, follow=True)
    auction = BankAuction.objects.get()
    assert auction.winner.code in ("luis", "marta") and auction.draw["tied"] == ["luis", "marta"]
    assert auction.sessions == 3 and BankBid.objects.count() == 3
    assert "el sorteo dio la banca a" in done.content.decode()
    tenure = BankTenure.objects.get(closed_at__isnull=True)
    assert tenure.began == "auction" and tenure.capital == Decimal("150.00")


def test_a_withdrawal_is_confirmed_then_announced_on_the_console(client_es, mesa):
    play(mesa, P01)
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_withdraw", args=[mesa.table.pk])
    too_much = client_es.post(url, {"amount": "200", "confirm": "yes"})
    assert "como mucho 109,50 €" in too_much.content.decode()
    asked = client_es.post(url, {"amount": "50"})
    assert "¿ana retira 50,00 € de la banca?" in asked.content.decode()
    assert not Transaction.objects.filter(kind="bank_withdrawal").exists()
    client_es.post(url, {"amount": "50", "confirm": "yes"})
    assert Transaction.objects.filter(kind="bank_withdrawal").count() == 1
    client_es.force_login(mesa.dealer)
    console = client_es.get(reverse("tables:console", args=[mesa.table.pk])).content.decode()
    assert "El banquero ana retiró 50,00 € de la banca" in console and "tiene 59,50 €" in console


def test_a_wiped_out_bank_is_flagged_on_the_console_and_rebuilt_at_the_cage(client_es, mesa, staff):
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    services.table_bank_draw(table=mesa.table, holder=mesa.players["ana"], capital=Decimal("30"), by=mesa.supervisor)
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)
    client_es.force_login(mesa.dealer)
    console = client_es.get(reverse("tables:console", args=[mesa.table.pk])).content.decode()
    assert "ninguna mano se abre hasta que el jefe de mesa la reconstituya al menos a 30,00 €" in console
    opened = client_es.post(reverse("tables:console_open", args=[mesa.table.pk]), {"seats": "luis", "after": "1"})
    assert "por debajo del mínimo de la mesa" in opened.content.decode()
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_rebuild", args=[mesa.table.pk])
    pit_page = client_es.get(reverse("tables:pit_table", args=[mesa.table.pk])).content.decode()
    assert "ya no cubre el mínimo de la mesa" in pit_page
    assert f'href="{url}"' in pit_page  # the rebuild offered: the bank is wiped out
    short = client_es.post(url, {"amount": "10", "confirm": "yes"})
    assert "al menos 30,00 €" in short.content.decode()
    ordered = client_es.post(url, {"amount": "30", "confirm": "yes"}, follow=True).content.decode()
    assert "Ordenada la reconstitución de la banca de ana con 30,00 €" in ordered
    assert f'href="{url}"' not in ordered  # the pit's page again: the rebuild awaits its deposits
    pending = client_es.get(url).content.decode()
    assert "La reconstitución 1 de 30,00 € está pendiente de sus depósitos en caja" in pending
    assert "ana debe 30,00 € de sus 30,00 €" in pending
    twice = client_es.post(url, {"amount": "30", "confirm": "yes"}).content.decode()
    assert "sigue pendiente de sus depósitos en caja" in twice
    client_es.force_login(mesa.dealer)
    opened = client_es.post(reverse("tables:console_open", args=[mesa.table.pk]), {"seats": "luis", "after": "1"})
    assert "pendiente del depósito de su reconstitución en caja" in opened.content.decode()
    waiting = client_es.get(reverse("tables:console", args=[mesa.table.pk])).content.decode()
    assert "ana debe 30,00 €" in waiting and "pendiente del depósito de su reconstitución en caja (30,00 €)" in waiting
    client_es.force_login(staff["cashier"])
    cage = client_es.get(reverse("cage:bank_deposit"), follow=True).content.decode()
    assert "banca de ana, reconstitución 1 de 30,00 €" in cage
    deposit_bank(mesa.table, staff["cashier"])
    client_es.force_login(mesa.dealer)
    console = client_es.get(reverse("tables:console", args=[mesa.table.pk])).content.decode()
    assert "fue reconstituida con 30,00 €" in console and "ninguna mano se abre" not in console


def test_the_bank_given_up_after_confirmation(client_es, mesa):
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_give_up", args=[mesa.table.pk])
    assert "Abandonar la banca" in client_es.get(url).content.decode()
    client_es.post(url, {"confirm": "yes"})
    assert not BankTenure.objects.filter(closed_at__isnull=True).exists()


def test_the_bank_is_not_given_up_during_a_hand_and_the_page_says_so_first(client_es, mesa):
    """A hand open: the give-up page says why, capitalised, and offers no confirmation; a
    confirmation posted all the same is refused the same way; nothing is written."""
    mesa.open("luis", "marta")
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_give_up", args=[mesa.table.pk])
    before = Transaction.objects.count()
    for response in (client_es.get(url), client_es.post(url, {"confirm": "yes"})):
        text = response.content.decode()
        assert response.status_code == 200 and "La banca cambia entre manos: la mano #1 está abierta" in text
        assert 'name="confirm"' not in text
    assert BankTenure.objects.get(closed_at__isnull=True).holder.code == "ana"
    assert Transaction.objects.count() == before


def test_an_auditor_reads_the_bank_pages_and_changes_nothing(client_es, mesa, staff):
    client_es.force_login(staff["auditor"])
    for name in ("bank_auction", "bank_withdraw", "bank_rebuild", "bank_give_up"):
        assert client_es.get(reverse(f"tables:{name}", args=[mesa.table.pk])).status_code == 200
        assert client_es.post(reverse(f"tables:{name}", args=[mesa.table.pk]),
                              {"confirm": "yes", "amount": "1"}).status_code == 403
    assert BankTenure.objects.filter(closed_at__isnull=True).count() == 1


def test_the_pit_sees_an_auctions_sessions_and_the_bank_ends_with_the_last(client_es, mesa):
    from tables.bank.life import auction_award, auction_bid, auction_open

    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    auction = auction_open(table=mesa.table, sessions=1, opened_by=mesa.supervisor)
    auction_bid(auction=auction, player=mesa.players["pepe"], amount=Decimal("50"), recorded_by=mesa.supervisor)
    auction_award(auction=auction, awarded_by=mesa.supervisor)
    client_es.force_login(mesa.supervisor)
    url = reverse("tables:pit_table", args=[mesa.table.pk])
    assert "Ganada en subasta para 1 sesión; sesiones jugadas desde entonces: 0." in client_es.get(url).content.decode()
    services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    tenure = BankTenure.objects.get(auction=auction)
    assert (tenure.is_open, tenure.ended) == (False, "term")


def test_the_pit_page_refuses_a_rebuild_of_a_healthy_bank_on_its_form(client_es, mesa):
    """Ana's open bank holds its capital: the rebuild's form shows the refusal, naming the
    bank's balance and capital, before and at its confirmation, and nothing is recorded."""
    from tables.models import BankRebuild

    client_es.force_login(mesa.supervisor)
    url = reverse("tables:bank_rebuild", args=[mesa.table.pk])
    for data in ({"amount": "100"}, {"amount": "100", "confirm": "yes"}):
        page = client_es.post(url, data)
        assert page.status_code == 200
        refusal = page.context["form"].non_field_errors()
        assert len(refusal) == 1 and "100,00 €" in refusal[0] and "capital" in refusal[0], refusal
        assert refusal[0] in page.content.decode().replace("&#x27;", "'")
        assert "Confirmar" not in page.content.decode()
    assert not BankRebuild.objects.exists()
    pit_page = client_es.get(reverse("tables:pit_table", args=[mesa.table.pk]))
    assert pit_page.status_code == 200
    # The pit's page does not offer what the form refuses; the other changes stay offered.
    content = pit_page.content.decode()
    assert f'href="{url}"' not in content and "Reconstituir la banca" not in content
    assert f'href="{reverse("tables:bank_withdraw", args=[mesa.table.pk])}"' in content


def test_the_pit_page_offers_no_rebuild_of_a_limited_bank_that_covers_the_minimum(client_es, mesa):
    """A limited bank that still covers the table's minimum is not wiped out: no rebuild link."""
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    client_es.force_login(mesa.supervisor)
    content = client_es.get(reverse("tables:pit_table", args=[mesa.table.pk])).content.decode()
    assert reverse("tables:bank_rebuild", args=[mesa.table.pk]) not in content
