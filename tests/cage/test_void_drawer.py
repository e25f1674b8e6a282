"""A slip's void moves its cash through an open drawer: the slip's own while open, else
the voiding supervisor's, else the cashier's current one; a closed, signed drawer's
figures never change, and PostgreSQL refuses a void booked into it."""

from decimal import Decimal

import pytest
from django.db import IntegrityError

from cage.errors import DrawerError
from cage.models import SlipVoid
from cage.services import slips as slip_services
from cage.services.drawer import drawer_close, drawer_lines, drawer_open, drawer_preview
from cage.services.slips import cashier_buy_in, cashier_cash_out, cashier_slip_void
from ledger.models import Transaction
from ledger.selectors import ledger_faults, player_balance
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

FLOAT = {"50.00": 10, "20.00": 20, "0.50": 4}  # 902.00


def _closed_drawer_with_a_cash_out(cashier, supervisor, luis):
    """caja's drawer: 902.00 float, a buy-in of 300.00, a cash-out of 100.00, counted
    1 102.00 and signed by jefa. Returns ``(drawer, cash-out slip)``."""
    drawer = drawer_open(cashier=cashier, count=FLOAT)
    cashier_buy_in(player=luis, amount=Decimal("300"), posted_by=cashier)
    cash_out = cashier_cash_out(player=luis, amount=Decimal("100"), posted_by=cashier)
    closed = drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor,
                          count={"50.00": 22, "1.00": 2})
    return closed, cash_out


def _figures(drawer):
    drawer.refresh_from_db()
    return (drawer.cash_in, drawer.cash_out, drawer.expected, drawer.counted, drawer.variance, drawer_lines(drawer))


def test_a_closed_drawers_slip_is_voided_into_the_cashiers_open_drawer(cashier, supervisor, luis):
    closed, cash_out = _closed_drawer_with_a_cash_out(cashier, supervisor, luis)
    before = _figures(closed)
    assert before[:5] == (Decimal("300.00"), Decimal("100.00"), Decimal("1102.00"), Decimal("1102.00"),
                          Decimal("0.00"))
    with pytest.raises(DrawerError) as refused:  # no open drawer takes the void's cash
        cashier_slip_void(slip=cash_out, reason="mal contado", voided_by=supervisor)
    assert "caja" in str(refused.value) and "jefa" in str(refused.value) and f"#{closed.pk}" in str(refused.value)
    assert not SlipVoid.objects.exists() and not Transaction.objects.filter(kind="reversal").exists()
    chips = player_balance(player=luis)
    current = drawer_open(cashier=cashier, count={"50.00": 2})
    void = cashier_slip_void(slip=cash_out, reason="mal contado", voided_by=supervisor)
    assert void.drawer == current and player_balance(player=luis) == chips + Decimal("100.00")
    assert _figures(closed) == before  # the closed drawer's figures never change
    lines = drawer_lines(current)
    assert (lines["void_in"], lines["void_out"], lines["cash_out"]) == (Decimal("100.00"), Decimal("0.00"),
                                                                        Decimal("0.00"))
    assert drawer_preview(drawer=current, count={"50.00": 4})["expected"] == Decimal("200.00")  # 100 + 100 back
    assert ledger_faults() == []


def test_the_voiding_supervisors_open_drawer_takes_the_void_first(cashier, luis):
    supervisor = UserFactory(username="jefa", roles=["cage_supervisor", "cashier"])
    closed, cash_out = _closed_drawer_with_a_cash_out(cashier, UserFactory(username="jefe2", roles=["cage_supervisor"]),
                                                      luis)
    own = drawer_open(cashier=supervisor, count={"50.00": 2})
    drawer_open(cashier=cashier, count={"50.00": 2})
    void = cashier_slip_void(slip=cash_out, reason="mal contado", voided_by=supervisor)
    assert void.drawer == own and drawer_lines(own)["void_in"] == Decimal("100.00")


def test_a_slip_voided_while_its_drawer_is_open_cancels_out_in_it(cashier, supervisor, luis):
    drawer = drawer_open(cashier=cashier, count=FLOAT)
    slip = cashier_buy_in(player=luis, amount=Decimal("300"), posted_by=cashier)
    void = cashier_slip_void(slip=slip, reason="billete falso", voided_by=supervisor)
    assert void.drawer == drawer
    lines = drawer_lines(drawer)
    assert (lines["buy_in"], lines["void_out"]) == (Decimal("300.00"), Decimal("300.00"))
    assert drawer_preview(drawer=drawer, count=FLOAT)["expected"] == Decimal("902.00")


def test_postgresql_refuses_a_void_booked_into_a_closed_drawer(cashier, supervisor, luis, monkeypatch):
    closed, cash_out = _closed_drawer_with_a_cash_out(cashier, supervisor, luis)
    drawer_open(cashier=cashier, count={"50.00": 2})
    monkeypatch.setattr(slip_services, "drawer_for_void", lambda **kwargs: closed)
    with pytest.raises(IntegrityError, match="no open drawer takes its cash"):
        cashier_slip_void(slip=cash_out, reason="mal contado", voided_by=supervisor)
    assert not SlipVoid.objects.exists()
