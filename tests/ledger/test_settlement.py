"""Posting settled hands: one balanced transaction per hand, exactly once."""
from decimal import Decimal

import pytest

from ledger.errors import AlreadyPosted, TenureError, UnknownPlayer
from ledger.models import Account, Entry, Transaction
from ledger.selectors import account_balance, ledger_faults, player_balance
from tables import settlement as settling
from tables.bank.tenures import tenure_close, tenure_open
from tables.settlement import ledger_post_settlement
from tests.ledger.conftest import ZERO_NET_RECORD, conformance_record, settlement_of

pytestmark = pytest.mark.django_db


def entries_of(txn):
    return sorted((entry.account.label, entry.side, entry.amount)
                  for entry in Entry.objects.filter(transaction=txn).select_related("account__player"))


def test_natural_pays_double_luis_and_marta_are_paid_by_the_bank(players, ana_bank):
    # p03: luis 7½ (natural, ×2 on 10) and marta 6 beat the bank's 5: +20 and +10.
    settlement = settlement_of(conformance_record("p03"))
    txn = ledger_post_settlement(tenure=ana_bank, settlement=settlement,
                                          idempotency_key="hand:Mesa 1:3", reference="hand Mesa 1 #3")
    assert txn.kind == Transaction.Kind.HAND
    assert txn.source == "system:settlement" and txn.posted_by is None
    assert txn.detail["players"] == {"luis": "20.00", "marta": "10.00"}
    tenure = f"tenure:{ana_bank.pk}"
    assert entries_of(txn) == sorted([("player:luis", "C", Decimal("20.00")), ("player:marta", "C", Decimal("10.00")),
                                      (tenure, "D", Decimal("30.00"))])
    assert player_balance(player=players["luis"]) == Decimal("20.00")
    assert player_balance(player=players["marta"]) == Decimal("10.00")
    assert account_balance(account=ana_bank.account) == Decimal("470.00")
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought


def test_the_bank_collects_and_the_house_takes_its_commission(players, ana_bank, other_user):
    # p01 with a 5 % commission: luis +10, marta -20; the bank's +10 pays 0.50 to the house.
    settlement = settlement_of(conformance_record("p01"), rules={"profile": "reglamento", "commission_rate": "0.05"})
    assert settlement.commission == 50
    txn = ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="h1",
                                          reference="hand Mesa 1 #1", posted_by=other_user)
    assert txn.posted_by == other_user and txn.source == "console"
    tenure = f"tenure:{ana_bank.pk}"
    assert entries_of(txn) == sorted([
        ("player:luis", "C", Decimal("10.00")), ("player:marta", "D", Decimal("20.00")),
        (tenure, "C", Decimal("20.00")), (tenure, "D", Decimal("10.00")), (tenure, "D", Decimal("0.50")),
        ("house", "C", Decimal("0.50"))])
    assert account_balance(account=ana_bank.account) == Decimal("509.50")
    assert Account.objects.get(kind="house").balance == Decimal("0.50")
    assert player_balance(player=players["marta"]) == Decimal("-20.00")
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought


def test_the_same_hand_posted_twice_is_refused_and_nothing_changes(players, ana_bank):
    settlement = settlement_of(conformance_record("p03"))
    first = ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="hand:Mesa 1:3",
                                            reference="hand Mesa 1 #3")
    with pytest.raises(AlreadyPosted) as refused:
        ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="hand:Mesa 1:3",
                                        reference="hand Mesa 1 #3 again")
    assert refused.value.transaction_id == first.pk
    assert f"el asiento n.º {first.pk} tiene la clave hand:Mesa 1:3" in str(refused.value)  # Spanish by default
    assert Transaction.objects.filter(kind="hand").count() == 1
    assert player_balance(player=players["luis"]) == Decimal("20.00")


def test_the_unique_key_backs_the_refusal_when_the_check_is_raced(players, ana_bank, monkeypatch):
    # A concurrent twin passes the existence check; the unique constraint still refuses it.
    settlement = settlement_of(conformance_record("p03"))
    ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="k", reference="r")
    real_lock = settling._lock_settlement_accounts

    def lock_without_seeing_the_twin(**kwargs):
        _posted, *rest = real_lock(**kwargs)
        return (None, *rest)

    monkeypatch.setattr(settling, "_lock_settlement_accounts", lock_without_seeing_the_twin)
    with pytest.raises(AlreadyPosted):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="k", reference="r")
    assert Transaction.objects.filter(kind="hand").count() == 1
    assert player_balance(player=players["luis"]) == Decimal("20.00")


def test_a_hand_whose_nets_cancel_out_is_still_recorded(players, table, fund, cashier):
    fund(players["ana"], "100.00")
    tenure = tenure_open(table=table, holder=players["ana"], capital=Decimal("100.00"), began="draw",
                                  posted_by=cashier)
    settlement = settlement_of(ZERO_NET_RECORD)
    assert settlement.players == {"yo": 0} and settlement.bank_net == 0
    txn = ledger_post_settlement(tenure=tenure, settlement=settlement, idempotency_key="zero",
                                          reference="hand Mesa 2 #7")
    label = f"tenure:{tenure.pk}"
    assert entries_of(txn) == sorted([("player:yo", "C", Decimal("10.00")), ("player:yo", "D", Decimal("10.00")),
                                      (label, "C", Decimal("10.00")), (label, "D", Decimal("10.00"))])
    assert player_balance(player=players["yo"]) == Decimal("0.00")
    assert account_balance(account=tenure.account) == Decimal("100.00")


def test_an_unknown_player_is_named_and_nothing_is_written(players, ana_bank):
    players["marta"].delete()
    with pytest.raises(UnknownPlayer, match="marta"):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement_of(conformance_record("p03")),
                                        idempotency_key="h", reference="hand")
    assert not Transaction.objects.filter(kind="hand").exists()
    assert player_balance(player=players["luis"]) == Decimal("0.00")


def test_the_settlement_bank_must_be_the_tenure_holder(players, ana_bank):
    # p13 is banked by "banca", not by ana.
    with pytest.raises(TenureError, match="banca"):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement_of(conformance_record("p13")),
                                        idempotency_key="h", reference="hand")


def test_a_closed_tenure_takes_no_more_hands(players, ana_bank, cashier):
    tenure_close(tenure=ana_bank, ended="closed", posted_by=cashier)
    with pytest.raises(TenureError, match="está cerrada"):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement_of(conformance_record("p03")),
                                        idempotency_key="h", reference="hand")


@pytest.mark.parametrize("prefix", ["p01", "p02", "p03", "p04", "p05", "p06", "p08", "p09", "p15"])
def test_every_conformance_hand_posts_its_exact_nets(players, ana_bank, prefix):
    settlement = settlement_of(conformance_record(prefix))
    before = {code: player_balance(player=player) for code, player in players.items()}
    ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key=prefix, reference=prefix)
    for code, net in settlement.players.items():
        assert player_balance(player=players[code]) - before[code] == Decimal(net) / 100
    assert account_balance(account=ana_bank.account) == Decimal("500.00") + Decimal(settlement.bank_net) / 100
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought


def test_a_hand_with_commission_posts_once_and_its_key_again_is_refused(players, ana_bank):
    settlement = settlement_of(conformance_record("p01"), rules={"profile": "reglamento", "commission_rate": "0.05"})
    posted = ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="once",
                                             reference="hand 1")
    with pytest.raises(AlreadyPosted):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="once",
                                        reference="hand 1")
    assert len(entries_of(posted)) == len(posted.entries.all()) >= 4
    assert player_balance(player=players["marta"]) == Decimal("-20.00")
    assert account_balance(account=ana_bank.account) == Decimal("509.50")
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought


def test_refusals_speak_the_active_language(players, ana_bank):
    from django.utils import translation

    settlement = settlement_of(conformance_record("p13"))  # banked by "banca", not ana
    with translation.override("en"), pytest.raises(TenureError, match="the hand's bank is banca"):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="h", reference="r")
    with pytest.raises(TenureError, match="la banca de la mano es banca"):
        ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="h", reference="r")
