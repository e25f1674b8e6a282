"""Chip transfers between players recorded by the pit (issue 14 "Chips"): the service, the
pit's page with its confirmation, the statement lines in Spanish, the refusals."""

import re
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from ledger.chips import chips_transfer
from ledger.errors import InsufficientChips, InvalidTransfer
from ledger.models import Transaction
from ledger.selectors import ledger_faults, player_balance
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def chips(mesa, code):
    return player_balance(player=mesa.players[code])


def test_a_transfer_moves_chips_from_one_player_to_the_other_with_who_and_why(mesa):
    p = mesa.players
    txn = chips_transfer(giver=p["luis"], receiver=p["marta"], amount=Decimal("120.50"), reason="paga una deuda",
                         posted_by=mesa.supervisor)
    assert (txn.kind, txn.reference, txn.memo, txn.posted_by, txn.source) == (
        "transfer", "luis → marta", "paga una deuda", mesa.supervisor, "pit")
    assert txn.detail == {"giver": "luis", "receiver": "marta", "amount": "120.50"}
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("379.50"), Decimal("620.50"))
    assert ledger_faults() == []


def test_the_giver_gives_only_what_he_holds_and_has_not_at_risk(mesa):
    p = mesa.players
    with translation.override("en"), pytest.raises(InsufficientChips) as caught:
        chips_transfer(giver=p["luis"], receiver=p["marta"], amount=Decimal("500.01"), reason="x",
                       posted_by=mesa.supervisor)
    assert str(caught.value) == ("luis holds 500.00 € in chips, 0.00 € of them at risk in open hands: he cannot "
                                 "give 500.01 €")
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 100")
    with translation.override("es"), pytest.raises(InsufficientChips) as caught:
        chips_transfer(giver=p["luis"], receiver=p["marta"], amount=Decimal("400.01"), reason="x",
                       posted_by=mesa.supervisor)
    assert str(caught.value) == ("luis tiene 500,00 € en fichas, 100,00 € de ellas en juego en manos abiertas: no "
                                 "puede dar 400,01 €")
    chips_transfer(giver=p["luis"], receiver=p["marta"], amount=Decimal("400.00"), reason="x",
                   posted_by=mesa.supervisor)
    assert Transaction.objects.filter(kind="transfer").count() == 1


def test_the_same_player_twice_or_no_reason_is_refused(mesa):
    p = mesa.players
    with pytest.raises(InvalidTransfer) as caught:
        chips_transfer(giver=p["luis"], receiver=p["luis"], amount=Decimal("1"), reason="x", posted_by=mesa.supervisor)
    assert caught.value.field == "receiver"
    with pytest.raises(InvalidTransfer) as caught:
        chips_transfer(giver=p["luis"], receiver=p["marta"], amount=Decimal("1"), reason="  ",
                       posted_by=mesa.supervisor)
    assert caught.value.field == "reason"
    assert not Transaction.objects.filter(kind="transfer").exists()


@pytest.fixture
def pit(client, staff):
    client.force_login(staff["supervisor"])
    return client


def test_the_pit_records_a_transfer_after_a_confirmation_and_both_statements_show_it_in_spanish(pit, mesa, client):
    url = reverse("tables:chip_transfer")
    assert reverse("tables:chip_transfer") in pit.get(reverse("tables:pit")).content.decode()
    form = pit.get(url)
    assert form.status_code == 200 and 'autofocus' in form.content.decode()
    token = form.context["form"].initial["token"]
    data = {"giver": "luis", "receiver": "marta", "amount": "75,25", "reason": "le presta para la banca",
            "token": token}
    confirm = pit.post(url, data)
    text = confirm.content.decode()
    assert confirm.status_code == 200 and "Confirmar el traspaso de fichas" in text
    assert "luis" in text and "marta" in text and "75,25 €" in text and "tiene 500,00 €" in text
    assert not Transaction.objects.filter(kind="transfer").exists()  # not before the confirmation
    done = pit.post(url, {**data, "confirm": "yes"}, follow=True)
    assert "Traspaso n.º" in done.content.decode() or "Traspaso" in done.content.decode()
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("424.75"), Decimal("575.25"))
    again = pit.post(url, {**data, "confirm": "yes"}, follow=True)  # the confirmation sent twice posts once
    assert again.status_code == 200 and Transaction.objects.filter(kind="transfer").count() == 1
    client.force_login(mesa.cashier)
    for code, amount in (("luis", "75,25"), ("marta", "75,25")):
        statement = client.get(reverse("cage:player_statement", args=[code])).content.decode()
        line = re.search(r"<tr><td>[^<]*</td>\s*<td>#\d+ traspaso de fichas</td>\s*<td>(.*?)</td>", statement, re.S)
        assert line and line.group(1) == "traspaso de fichas de luis a marta — le presta para la banca"
        assert amount in statement


def test_a_refused_transfer_names_the_field_and_writes_nothing(pit, mesa):
    url = reverse("tables:chip_transfer")
    token = pit.get(url).context["form"].initial["token"]
    same = pit.post(url, {"giver": "luis", "receiver": "luis", "amount": "5", "reason": "x", "token": token})
    assert "receiver" in same.context["form"].errors
    unknown = pit.post(url, {"giver": "nadie", "receiver": "luis", "amount": "5", "reason": "x", "token": token})
    assert "giver" in unknown.context["form"].errors
    short = pit.post(url, {"giver": "luis", "receiver": "marta", "amount": "900", "reason": "x", "token": token,
                           "confirm": "yes"})
    assert short.status_code == 200 and "amount" in short.context["form"].errors
    assert "luis tiene 500,00 € en fichas" in short.content.decode()
    assert not Transaction.objects.filter(kind="transfer").exists()


def test_a_transfer_above_the_givers_chips_is_refused_before_any_confirmation(pit, mesa):
    """The first post of an amount luis does not hold answers the form, on the amount,
    with the service's words and what was typed: no confirmation page, nothing written."""
    url = reverse("tables:chip_transfer")
    token = pit.get(url).context["form"].initial["token"]
    data = {"giver": "luis", "receiver": "marta", "amount": "99.999.999,00", "reason": "le presta", "token": token}
    response = pit.post(url, data)
    text = response.content.decode()
    assert response.status_code == 200 and "Confirmar el traspaso de fichas" not in text
    assert 'name="confirm"' not in text
    assert "luis tiene 500,00 € en fichas, 0,00 € de ellas en juego en manos abiertas: no puede dar 99\xa0999\xa0999,00 €" \
        in " ".join(response.context["form"].errors["amount"])
    assert re.search(r'name="giver" value="luis"', text) and re.search(r'name="receiver" value="marta"', text)
    assert re.search(r'name="amount" value="99999999,00"', text) and "le presta" in text
    assert not Transaction.objects.filter(kind="transfer").exists()
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("500.00"), Decimal("500.00"))


def test_an_auditor_reads_the_page_but_posts_nothing_and_a_cashier_gets_nothing(client, mesa, staff):
    url = reverse("tables:chip_transfer")
    client.force_login(staff["auditor"])
    assert client.get(url).status_code == 200
    assert client.post(url, {"giver": "luis", "receiver": "marta", "amount": "5", "reason": "x", "token": "t",
                             "confirm": "yes"}).status_code == 403
    client.force_login(UserFactory(username="caja9", roles=["cashier"]))
    assert client.get(url).status_code == 403
    assert not Transaction.objects.filter(kind="transfer").exists()
