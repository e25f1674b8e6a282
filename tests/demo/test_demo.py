"""``manage.py demo``: the quick start's data, complete and idempotent."""

import os
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.http import HttpRequest

from cage.models import CashierSlip
from casino.roles import roles_of
from demo.management.commands.demo import DEMO_PLAYERS, DEMO_STAFF, DEMO_TABLES, HANDS_PER_TABLE
from ledger.models import Transaction
from ledger.selectors import ledger_faults, player_balance
from patrons.models import Player
from tables.integrity import chain_faults, number_gaps
from tables.models import BankTenure, Hand, HandEvent, Shift, Table

pytestmark = pytest.mark.django_db


def counts():
    return {model.__name__: model.objects.count()
            for model in (get_user_model(), Player, Table, Shift, Hand, HandEvent, BankTenure, Transaction, CashierSlip)}


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
