"""The cage: buy-ins and cash-outs, each with a numbered slip."""
from decimal import Decimal

import pytest

from cage.models import CashierSlip
from cage.services.slips import cashier_buy_in, cashier_cash_out
from ledger.errors import AlreadyPosted, InsufficientChips, InvalidAmount
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults, player_balance

pytestmark = pytest.mark.django_db


def test_a_buy_in_takes_cash_and_gives_chips_with_slip_one(players, cashier):
    slip = cashier_buy_in(player=players["luis"], amount=Decimal("150.00"), posted_by=cashier)
    assert (slip.number, slip.kind, slip.amount, slip.issued_by) == (1, "buy_in", Decimal("150.00"), cashier)
    assert slip.transaction.reference == "slip 000001" and slip.transaction.posted_by == cashier
    assert player_balance(player=players["luis"]) == Decimal("150.00")
    assert Account.objects.get(kind="cage").balance == Decimal("-1150.00")  # with the drawer's float, 1 000.00
    assert sorted(slip.transaction.entries.values_list("side", "amount")) == [
        ("C", Decimal("150.00")), ("D", Decimal("150.00"))]


def test_slips_are_numbered_in_sequence_across_kinds(players, cashier):
    numbers = [cashier_buy_in(player=players["luis"], amount=Decimal("10"), posted_by=cashier).number,
               cashier_cash_out(player=players["luis"], amount=Decimal("4"), posted_by=cashier).number,
               cashier_buy_in(player=players["marta"], amount=Decimal("1.5"), posted_by=cashier).number]
    assert numbers == [1, 2, 3]
    assert player_balance(player=players["luis"]) == Decimal("6.00")


def test_a_cash_out_above_the_balance_is_refused_and_says_the_balance(players, cashier):
    cashier_buy_in(player=players["luis"], amount=Decimal("80.00"), posted_by=cashier)
    with pytest.raises(InsufficientChips) as refused:
        cashier_cash_out(player=players["luis"], amount=Decimal("80.01"), posted_by=cashier)
    assert refused.value.field == "amount"
    assert "80,00 €" in str(refused.value)  # Spanish by default
    assert CashierSlip.objects.count() == 1
    assert player_balance(player=players["luis"]) == Decimal("80.00")
    slip = cashier_cash_out(player=players["luis"], amount=Decimal("80.00"), posted_by=cashier)
    assert slip.kind == "cash_out" and player_balance(player=players["luis"]) == Decimal("0.00")
    assert Account.objects.get(kind="cage").balance == Decimal("-1000.00")  # the drawer's float
    assert ledger_faults() == []


def test_a_player_who_never_bought_in_cannot_cash_out(players, cashier):
    with pytest.raises(InsufficientChips, match="0,00 €"):
        cashier_cash_out(player=players["rosa"], amount=Decimal("1.00"), posted_by=cashier)


@pytest.mark.parametrize("amount", [Decimal("0"), Decimal("-5"), Decimal("1.005"), 10.0, "10"])
def test_amounts_must_be_positive_decimal_euros_to_the_cent(players, cashier, amount):
    with pytest.raises(InvalidAmount):
        cashier_buy_in(player=players["luis"], amount=amount, posted_by=cashier)
    assert not Transaction.objects.exclude(kind=Transaction.Kind.DRAWER_FLOAT).exists()


def test_a_form_sent_twice_posts_once(players, cashier):
    slip = cashier_buy_in(player=players["luis"], amount=Decimal("20"), posted_by=cashier,
                                   idempotency_key="form:abc")
    with pytest.raises(AlreadyPosted) as refused:
        cashier_buy_in(player=players["luis"], amount=Decimal("20"), posted_by=cashier,
                                idempotency_key="form:abc")
    assert refused.value.transaction_id == slip.transaction_id
    assert player_balance(player=players["luis"]) == Decimal("20.00")
