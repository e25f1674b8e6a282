"""Cash taken at a table counts for the AML rules as cash at the cage does: a table buy-in
is a movement of the patron's gaming day, refused at the threshold without his identity
on file (the attempt recorded), added up with his cage movements for structuring, and the
register says where each movement happened. [EU Directive 2015/849 art. 11(d); Ley
10/2010 art. 7.3; RD 304/2014 art. 28]"""

import re
from decimal import Decimal

import pytest
from django.test import Client
from django.utils import translation

from boxes.models import TableBuyIn
from boxes.services import table_buy_in
from cage.errors import AmlRefused
from cage.models import AmlAlert, AmlMovement, AmlRefusal
from cage.selectors import aml_register, register_csv
from cage.services.slips import cashier_buy_in
from casino import periods
from ledger.selectors import ledger_faults, player_balance
from tests.api.conftest import Api, error_of
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db
D = Decimal


@pytest.fixture
def nemo(db, settings):
    """A patron without identity on file, at a casino that seats such patrons
    (``ADMISSION_WITHOUT_IDENTITY``): the AML rules then ask for his identity at the
    threshold."""
    settings.ADMISSION_WITHOUT_IDENTITY = True
    return PlayerFactory(code="nemo", unidentified=True)


def test_an_unidentified_patrons_table_buy_ins_are_refused_at_the_threshold(mesa, nemo):
    first = table_buy_in(shift=mesa.shift, player=nemo, amount=D("1900.00"), recorded_by=mesa.dealer)
    movement = AmlMovement.objects.get(transaction=first.transaction)
    assert (movement.kind, movement.direction, movement.amount, movement.identified) == (
        "table_buy_in", "in", D("1900.00"), False)
    with translation.override("en"), pytest.raises(AmlRefused, match=r"nemo.*3,800\.00.*threshold of 2,000\.00") as no:
        table_buy_in(shift=mesa.shift, player=nemo, amount=D("1900.00"), recorded_by=mesa.dealer)
    assert no.value.field == "player"
    # Nothing of it posted; the attempt kept for the compliance officer.
    assert TableBuyIn.objects.filter(player=nemo).count() == 1 and player_balance(player=nemo) == D("1900.00")
    refusal = AmlRefusal.objects.get(player=nemo)
    assert (refusal.kind, refusal.amount, refusal.day_total, refusal.refused_by) == (
        "table_buy_in", D("1900.00"), D("3800.00"), mesa.dealer)
    assert ledger_faults() == []


def test_cash_at_the_cage_and_at_the_table_add_up_to_one_gaming_day(mesa, nemo):
    cashier = mesa.staff["cashier"]
    cashier_buy_in(player=nemo, amount=D("1500.00"), posted_by=cashier)  # under the threshold alone
    with pytest.raises(AmlRefused):
        table_buy_in(shift=mesa.shift, player=nemo, amount=D("500.00"), recorded_by=mesa.dealer)
    luis = mesa.players["luis"]  # identified; 500.00 bought at the cage already
    table_buy_in(shift=mesa.shift, player=luis, amount=D("900.00"), recorded_by=mesa.dealer)
    assert not AmlAlert.objects.filter(player=luis).exists()
    table_buy_in(shift=mesa.shift, player=luis, amount=D("900.00"), recorded_by=mesa.dealer)
    alert = AmlAlert.objects.get(player=luis)
    assert (alert.kind, alert.total, alert.movements) == ("structuring", D("2300.00"), 3)


def test_the_register_says_where_each_movement_happened(mesa, nemo):
    cashier = mesa.staff["cashier"]
    cashier_buy_in(player=nemo, amount=D("100.00"), posted_by=cashier)
    table_buy_in(shift=mesa.shift, player=nemo, amount=D("250.00"), recorded_by=mesa.dealer)
    with translation.override("en"):
        register = aml_register(day=periods.gaming_day(mesa.shift.opened_at))
        places = [(m.player.code, m.kind, m.place) for m in register["movements"] if m.player == nemo]
        assert places == [("nemo", "buy_in", "cage"), ("nemo", "table_buy_in", "Mesa 1")]
        assert "Mesa 1" in register_csv(register)
    client = Client()
    client.force_login(mesa.staff["auditor"])
    page = client.get("/cage/aml/", HTTP_ACCEPT_LANGUAGE="es")
    assert page.status_code == 200
    assert "Mesa 1" in page.content.decode() and "mesa Mesa 1" not in page.content.decode()
    assert re.search(r'<td class="num">250,00 €</td>', page.content.decode())  # an amount says its currency


def test_the_api_refuses_a_table_buy_in_over_the_threshold_without_identity(mesa, nemo):
    dealer = Api(mesa.dealer)
    refused = dealer.post(f"/api/tables/{mesa.table.pk}/buy-ins/", {"player": "nemo", "amount": "2100.00"},
                          key="nemo-1")
    assert refused.status_code in (400, 409), refused.json()
    assert error_of(refused)["field"] == "player" and "nemo" in error_of(refused)["message"]
    assert not TableBuyIn.objects.filter(player=nemo).exists() and player_balance(player=nemo) == D("0.00")
    assert AmlRefusal.objects.get(player=nemo).amount == D("2100.00")
