"""``manage.py demo``: the quick start's data, complete and idempotent."""

import os
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpRequest

from cage.models import CashierSlip
from casino.roles import roles_of
from demo.management.commands.demo import (
    DEMO_PIT,
    DEMO_PLAYERS,
    DEMO_RELIEF_ORDER,
    DEMO_STAFF,
    DEMO_TABLES,
    DEMO_TRANSFER,
    DEMO_WITHDRAWAL,
    HANDS_PER_TABLE,
)
from ledger.models import ChipTransfer, Transaction
from ledger.selectors import ledger_faults, player_balance
from patrons.models import AdmissionRefusal, ExclusionEntry, ExclusionLoad, Player
from reports.models import MonthlyStatement
from tables.integrity import chain_faults, number_gaps
from tables.models import (
    BankTenure,
    BankWithdrawal,
    DealerRelief,
    Dispute,
    Hand,
    HandEvent,
    Incident,
    Pit,
    RotationPlan,
    Shift,
    Table,
)
from tables.services import current_plans

pytestmark = pytest.mark.django_db


def counts():
    return {model.__name__: model.objects.count()
            for model in (get_user_model(), Player, Table, Shift, Hand, HandEvent, BankTenure, Transaction, CashierSlip,
                          Pit, RotationPlan, DealerRelief, Dispute, Incident, ChipTransfer, BankWithdrawal,
                          ExclusionLoad, ExclusionEntry, AdmissionRefusal, MonthlyStatement)}


def test_demo_creates_staff_players_banks_hands_and_a_shift_and_is_idempotent(client):
    call_command("demo", stdout=open(os.devnull, "w"))
    first = counts()
    call_command("demo", stdout=open(os.devnull, "w"))
    assert counts() == first

    User = get_user_model()
    for username, password, roles, _superuser in DEMO_STAFF:
        user = User.objects.get(username=username)
        assert user.check_password(password) and set(roles) <= roles_of(user)
    assert client.login(request=HttpRequest(), username="pit", password="demo-pit")  # django-axes needs a request

    # one buy-in per player, and each table's bank deposited at the cage by its holder
    assert first["Player"] == len(DEMO_PLAYERS) and first["CashierSlip"] == len(DEMO_PLAYERS) + len(DEMO_TABLES)
    assert sorted(CashierSlip.objects.filter(kind="bank_deposit").values_list("tenure__table__name", "amount")) == [
        (name, Decimal(capital)) for name, _rules, _low, _high, _takeover, _holder, capital, _seats in DEMO_TABLES]
    for table in Table.objects.all():
        assert set(table.hands.values_list("status", flat=True)) == {"settled"}
        assert table.hands.count() == HANDS_PER_TABLE and number_gaps(table) == []
        assert chain_faults(table) == []
        assert BankTenure.objects.filter(table=table, closed_at__isnull=True).count() == 1
    assert Transaction.objects.filter(kind="hand").count() == 3 * HANDS_PER_TABLE
    assert ledger_faults() == []

    (shift,) = Shift.objects.filter(closed_at__isnull=True)
    assert (shift.table.name, shift.dealer.username) == ("Mesa 1", "dealer")
    assert player_balance(player=Player.objects.get(code="luis")) != Decimal("2000.00")  # he played


def test_demo_shows_the_newer_pages_rotation_register_transfer_withdrawal_disputes_statement():
    call_command("demo", stdout=open(os.devnull, "w"))

    # the pit's rotation plan in force: every demo table, the relief order as set
    (plan,) = current_plans().values()
    assert plan.pit.name == DEMO_PIT and plan.version == 1
    assert {table.name for table in plan.tables.all()} == {row[0] for row in DEMO_TABLES}
    assert [slot.dealer.username for slot in plan.slots.all()] == DEMO_RELIEF_ORDER

    # a relief mid-session: Mesa 1's past shift, dealer2 then dealer3, hands on both sides
    (relief,) = DealerRelief.objects.all()
    assert (relief.shift.table.name, relief.relieved.username, relief.relieving.username) == (
        "Mesa 1", "dealer2", "dealer3")
    assert relief.shift.closed_at is not None
    assert set(relief.shift.hands.values_list("dealer__username", flat=True)) == {"dealer2", "dealer3"}

    # the dispute desk: one open at Mesa 1 with its incident, one rejected at Mesa 2
    assert sorted(Dispute.objects.values_list("hand__table__name", "outcome")) == [
        ("Mesa 1", ""), ("Mesa 2", "rejected")]
    assert Incident.objects.filter(table__name="Mesa 1").count() == 1

    # chips handed between two players, a part of Mesa 3's bank withdrawn
    giver, receiver, amount, _reason = DEMO_TRANSFER
    (transfer,) = ChipTransfer.objects.all()
    assert (transfer.giver.code, transfer.receiver.code, transfer.amount) == (giver, receiver, Decimal(amount))
    (withdrawal,) = BankWithdrawal.objects.all()
    assert (withdrawal.tenure.table.name, withdrawal.amount) == (DEMO_WITHDRAWAL[0], Decimal(DEMO_WITHDRAWAL[1]))

    # the exclusion register: the RGIAJ file loaded, a self-exclusion, a registration refused
    (load,) = ExclusionLoad.objects.all()
    assert (load.source, load.rows) == ("rgiaj", 3)
    assert ExclusionEntry.objects.filter(source="self").count() == 1
    (refusal,) = AdmissionRefusal.objects.all()
    assert (refusal.reason, refusal.where, refusal.entry.load) == ("excluded", "registration", load)
    assert not Player.objects.filter(code="victor").exists()

    # the month's statement, computed
    (statement,) = MonthlyStatement.objects.all()
    assert statement.status == "done" and statement.figures

    assert ledger_faults() == []
