"""``SettlementBatch.pass_bank``: a 7½ takeover passed in memory with an import's batch
records, once flushed, what ``bank_transfer`` records: the old tenure closed and its
balance distributed, the taker's tenure, share and account, his capital posted, the AML
movements; refused, it keeps nothing. [issue 18 "The import crawls"]"""

from decimal import Decimal

import pytest

from cage.models import AmlMovement
from ledger.errors import InsufficientChips, TenureError
from ledger.models import Account, Transaction
from tables.import_ledger import SettlementBatch
from tables.models import BankTenure

pytestmark = pytest.mark.django_db


def chips(player):
    return Account.objects.get(player=player).balance


def test_a_bank_passed_in_a_batch_is_written_at_its_flush(players, fund, ana_bank):
    fund(players["luis"], "300.00")
    batch = SettlementBatch()
    assert batch.can_pass(ana_bank, players["luis"])
    new = batch.pass_bank(tenure=ana_bank, holder=players["luis"], capital=15000, posted_by=None,
                          source="system:import")
    assert not BankTenure.objects.filter(pk=new.pk).exists()  # in memory until the flush
    assert batch.bank_holds(new) == 15000 and batch.chips(["luis"]) == {"luis": 15000}

    batch.flush()
    ana_bank.refresh_from_db()
    new.refresh_from_db()
    assert ana_bank.ended == "natural" and ana_bank.closed_at is not None
    assert (new.holder, new.began, new.capital, new.previous, new.closed_at) == (
        players["luis"], "natural", Decimal("150.00"), ana_bank, None)
    assert list(new.shares.values_list("player__code", "percent")) == [("luis", Decimal("100.00"))]
    old, bank = Account.objects.get(tenure=ana_bank), Account.objects.get(tenure=new)
    assert (old.balance, old.is_open, bank.balance, bank.is_open) == (0, False, Decimal("150.00"), True)
    assert chips(players["ana"]) == Decimal("1000.00") and chips(players["luis"]) == Decimal("150.00")
    assert list(Transaction.objects.filter(entries__account__tenure__in=[ana_bank, new]).order_by("id")
                .values_list("kind", "idempotency_key"))[-2:] == [
        ("distribution", f"tenure:{ana_bank.pk}:close"), ("capital_in", f"tenure:{new.pk}:capital")]
    assert list(AmlMovement.objects.filter(transaction__entries__account__tenure__in=[ana_bank, new]).order_by("id")
                .values_list("player__code", "kind", "direction", "amount"))[-2:] == [
        ("ana", "distribution", "out", Decimal("500.00")), ("luis", "capital_in", "in", Decimal("150.00"))]


def test_a_bank_passed_in_a_batch_and_undone_keeps_nothing(players, fund, ana_bank):
    fund(players["luis"], "100.00")
    batch = SettlementBatch()
    batch.can_pass(ana_bank, players["luis"])
    with pytest.raises(InsufficientChips, match="luis"):
        batch.pass_bank(tenure=ana_bank, holder=players["luis"], capital=15000)
    with pytest.raises(TenureError):
        batch.pass_bank(tenure=ana_bank, holder=players["ana"], capital=0)

    mark = batch.mark()
    batch.pass_bank(tenure=ana_bank, holder=players["luis"], capital=5000)
    batch.undo(mark)
    assert ana_bank.closed_at is None and batch.bank_holds(ana_bank) == 50000
    batch.flush()
    assert BankTenure.objects.count() == 1 and Account.objects.get(tenure=ana_bank).is_open
    assert chips(players["luis"]) == Decimal("100.00")
    assert not AmlMovement.objects.filter(kind="distribution").exists()
