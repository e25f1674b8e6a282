"""Corrections: a reversal mirrors the original, linked both ways, once."""
from decimal import Decimal

import pytest

from ledger import posting
from ledger.errors import AlreadyReversed, NotReversible
from ledger.models import Transaction
from ledger.selectors import account_balance, ledger_faults, player_balance
from tables.bank.tenures import tenure_close
from tables.settlement import ledger_post_settlement
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def hand(players, ana_bank):
    return ledger_post_settlement(tenure=ana_bank, settlement=settlement_of(conformance_record("p03")),
                                           idempotency_key="hand:Mesa 1:3", reference="hand Mesa 1 #3")


def test_a_voided_hand_is_reversed_and_every_balance_comes_back(players, ana_bank, hand, cashier):
    reversal = posting.reverse(transaction=hand, reason="dealer keyed the wrong card", posted_by=cashier)
    assert reversal.kind == "reversal" and reversal.reverses == hand and reversal.memo == "dealer keyed the wrong card"
    hand.refresh_from_db()
    assert hand.reversal == reversal  # linked both ways
    mirrored = sorted((account, "C" if side == "D" else "D", amount)
                      for account, side, amount in hand.entries.values_list("account_id", "side", "amount"))
    assert sorted(reversal.entries.values_list("account_id", "side", "amount")) == mirrored
    assert player_balance(player=players["luis"]) == Decimal("0.00")
    assert account_balance(account=ana_bank.account) == Decimal("500.00")
    assert ledger_faults() == []


def test_reversing_twice_is_refused(hand, cashier):
    first = posting.reverse(transaction=hand, reason="void", posted_by=cashier)
    with pytest.raises(AlreadyReversed) as refused:
        posting.reverse(transaction=hand, reason="void again", posted_by=cashier)
    assert refused.value.reversal_id == first.pk
    assert Transaction.objects.filter(kind="reversal").count() == 1


def test_a_reversal_is_not_reversed(hand, cashier):
    reversal = posting.reverse(transaction=hand, reason="void", posted_by=cashier)
    with pytest.raises(NotReversible):
        posting.reverse(transaction=reversal, reason="undo the void", posted_by=cashier)


def test_a_hand_of_a_closed_tenure_is_not_reversed(hand, ana_bank, cashier):
    tenure_close(tenure=ana_bank, posted_by=cashier)
    with pytest.raises(NotReversible, match="afecta a una banca cerrada"):
        posting.reverse(transaction=hand, reason="late void", posted_by=cashier)


def test_a_reason_is_required(hand, cashier):
    with pytest.raises(ValueError):
        posting.reverse(transaction=hand, reason="  ", posted_by=cashier)


def test_a_buy_in_keyed_to_the_wrong_player_is_reversed(players, cashier, fund):
    slip = fund(players["rosa"], "30.00")
    reversal = posting.reverse(transaction=slip.transaction, reason="wrong player", posted_by=cashier)
    assert reversal.reference == f"reversal of #{slip.transaction_id}: slip 000001"
    assert player_balance(player=players["rosa"]) == Decimal("0.00")
    assert ledger_faults() == []
