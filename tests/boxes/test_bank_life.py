"""The bank's life: an auction with a tie drawn by lot, withdrawals that never touch the
stakes in play, a wiped-out limited bank rebuilt (or given up) before the next hand.
[issue 16 "The bank's life", "Tests"]"""

import random
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction

from ledger.errors import TenureError
from ledger.models import Account, BankAuction, BankTenure, Transaction
from ledger.selectors import ledger_faults
from ledger.services.bank_life import auction_award, auction_bid, auction_open
from tables import services
from tables.errors import BankNotReady
from tables.models import Table
from tests.factories import deposit_bank
from tests.hands import event
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db

#: luis 7 beats 6 (+10), marta 3 + 4 = 7 beats 6 (+20): the bank pays 30.00.
BANK_LOSES = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
              "marta bet 20", "marta card 4C", "marta stand", "bank card 4E", "bank stand"]


def chips(player):
    return Account.objects.get(player=player).balance


def play(mesa, lines, seats=("luis", "marta")):
    hand = services.hand_open(table=mesa.table, seats=list(seats), opened_by=mesa.dealer)
    for line in lines:
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=mesa.dealer,
                                          expected_version=hand.version)
    return hand


def test_an_auction_with_a_tie_is_settled_by_a_recorded_draw_of_lots(mesa):
    table = Table.objects.create(name="Mesa 9", rules="reglamento", min_bet=Decimal("5"), max_bet=Decimal("100"))
    pit, p = mesa.supervisor, mesa.players
    auction = auction_open(table=table, sessions=2, opened_by=pit)
    with pytest.raises(TenureError):
        auction_open(table=table, opened_by=pit)
    auction_bid(auction=auction, player=p["pepe"], amount=Decimal("200"), recorded_by=pit)
    auction_bid(auction=auction, player=p["luis"], amount=Decimal("250"), recorded_by=pit)
    auction_bid(auction=auction, player=p["marta"], amount=Decimal("300"), recorded_by=pit)
    auction_bid(auction=auction, player=p["luis"], amount=Decimal("300"), recorded_by=pit)
    # A bid is a promise: the winner proves it by his deposit at the cage, not his chips.
    auction_bid(auction=auction, player=p["rosa"], amount=Decimal("299.99"), recorded_by=pit)
    with pytest.raises(TenureError):
        auction_bid(auction=auction, player=p["rosa"], amount=Decimal("4"), recorded_by=pit)
    awarded = auction_award(auction=auction, awarded_by=pit, rng=random.Random(7))
    winner = awarded.winner.code
    assert awarded.draw["tied"] == ["luis", "marta"] and awarded.draw["drawn"] == winner
    assert winner == random.Random(7).choice(["luis", "marta"])
    assert awarded.amount == Decimal("300.00") and awarded.sessions == 2
    tenure = awarded.tenure
    assert (tenure.holder.code, tenure.began, tenure.capital) == (winner, BankTenure.Began.AUCTION, Decimal("300.00"))
    assert tenure.deposit_required and tenure.account.balance == Decimal("0.00")
    assert chips(awarded.winner) == Decimal("500.00")  # nothing taken from his chips
    (slip,) = deposit_bank(table)
    assert (slip.player.code, slip.amount) == (winner, Decimal("300.00"))
    tenure.account.refresh_from_db()
    assert tenure.account.balance == Decimal("300.00") and chips(awarded.winner) == Decimal("500.00")
    with pytest.raises(TenureError):
        auction_award(auction=auction, awarded_by=pit)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_bankauction SET amount = 1 WHERE id = %s", [auction.pk])
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM ledger_bankbid WHERE auction_id = %s", [auction.pk])
    assert ledger_faults() == []


def test_a_single_highest_bid_wins_without_a_draw(mesa):
    table = Table.objects.create(name="Mesa 8", rules="reglamento", min_bet=Decimal("5"), max_bet=Decimal("100"))
    auction = auction_open(table=table, opened_by=mesa.supervisor)
    with pytest.raises(TenureError):
        auction_award(auction=auction, awarded_by=mesa.supervisor)
    auction_bid(auction=auction, player=mesa.players["pepe"], amount=Decimal("120"), recorded_by=mesa.supervisor)
    auction_bid(auction=auction, player=mesa.players["rosa"], amount=Decimal("90"), recorded_by=mesa.supervisor)
    awarded = auction_award(auction=auction, awarded_by=mesa.supervisor)
    assert (awarded.winner.code, awarded.draw) == ("pepe", {})
    assert not BankAuction.objects.filter(awarded_at__isnull=True).exists()


def test_no_auction_at_a_table_that_has_a_bank(mesa):
    with pytest.raises(TenureError) as refused:
        auction_open(table=mesa.table, opened_by=mesa.supervisor)
    assert refused.value.field == "table"


def test_a_withdrawal_that_would_touch_the_stakes_in_play_is_refused(mesa):
    ana = mesa.players["ana"]
    with pytest.raises(TenureError):  # before the bank's first hand
        services.table_bank_withdraw(table=mesa.table, amount=Decimal("10"), by=mesa.supervisor)
    play(mesa, P01)  # ana's bank: 100 + 10 − 0.50 of commission = 109.50
    hand = services.hand_open(table=mesa.table, seats=["luis", "marta"], opened_by=mesa.dealer)
    for line in P01[:7]:  # luis bets 10, marta 20: 30.00 in play
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=mesa.dealer,
                                          expected_version=hand.version)
    with pytest.raises(TenureError) as refused:
        services.table_bank_withdraw(table=mesa.table, amount=Decimal("79.51"), by=mesa.supervisor)
    assert refused.value.field == "amount" and "como mucho 79,50 €" in str(refused.value)
    assert not Transaction.objects.filter(kind="bank_withdrawal").exists()
    before = chips(ana)
    txn = services.table_bank_withdraw(table=mesa.table, amount=Decimal("79.50"), by=mesa.supervisor)
    assert txn.kind == Transaction.Kind.BANK_WITHDRAWAL and txn.detail["in_play"] == "30.00"
    assert chips(ana) == before + Decimal("79.50")
    assert BankTenure.objects.get(closed_at__isnull=True).account.balance == Decimal("30.00")
    assert ledger_faults() == []


def test_a_wiped_out_limited_bank_is_rebuilt_before_the_next_hand(mesa):
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)  # ana's 100 back to her
    services.table_bank_draw(table=mesa.table, holder=mesa.players["ana"], capital=Decimal("30"), by=mesa.supervisor)
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)  # the bank pays 30.00: it holds 0.00
    with pytest.raises(BankNotReady) as refused:
        services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    assert "0,00 €" in str(refused.value) and "al menos a 30,00 €" in str(refused.value)
    with pytest.raises(TenureError) as short:
        services.table_bank_rebuild(table=mesa.table, amount=Decimal("29.99"), by=mesa.supervisor)
    assert short.value.field == "amount"
    txn = services.table_bank_rebuild(table=mesa.table, amount=Decimal("30.00"), by=mesa.supervisor)
    assert txn.kind == Transaction.Kind.BANK_REBUILD
    hand = services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    assert hand.number == 2 and hand.tenure.account.balance == Decimal("30.00")
    assert ledger_faults() == []


def test_a_wiped_out_bank_given_up_leaves_the_table_without_a_bank(mesa):
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    services.table_bank_draw(table=mesa.table, holder=mesa.players["ana"], capital=Decimal("30"), by=mesa.supervisor)
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    with pytest.raises(BankNotReady):
        services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    auction = auction_open(table=mesa.table, opened_by=mesa.supervisor)
    auction_bid(auction=auction, player=mesa.players["pepe"], amount=Decimal("50"), recorded_by=mesa.supervisor)
    auction_award(auction=auction, awarded_by=mesa.supervisor)
    with pytest.raises(BankNotReady, match="pepe"):  # awaiting his deposit at the cage
        services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    deposit_bank(mesa.table)
    assert services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer).bank.code == "pepe"


def test_an_open_bank_is_never_wiped_out(mesa):
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    services.table_bank_draw(table=mesa.table, holder=mesa.players["ana"], capital=Decimal("30"), by=mesa.supervisor)
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)
    assert services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer).number == 2


def test_the_bank_rotation_report_shows_deposits_withdrawals_rebuilds_and_the_result(mesa):
    """ana's limited bank: capital 30, pays 30 (wiped out), rebuilt with 40, wins 10 less
    0.50 of commission (P01 at 5 %), withdraws 20, gives the bank up: 29.50 back.
    In 30 + 40 = 70; out 20 + 29.50 = 49.50; result −20.50."""
    from django.utils import timezone

    from reports.banks import bank_rotation_report

    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    services.table_bank_draw(table=mesa.table, holder=mesa.players["ana"], capital=Decimal("30"), by=mesa.supervisor)
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("40"), by=mesa.supervisor)
    play(mesa, P01)
    services.table_bank_withdraw(table=mesa.table, amount=Decimal("20"), by=mesa.supervisor)
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    today = timezone.localdate()
    report = bank_rotation_report(mesa.table, today, today)
    assert report["exceptions"] == []
    row = report["tenures"][-1]
    assert (row["capital"], row["deposits"], row["rebuilds"], row["withdrawals"]) == ("30.00", "30.00", "40.00", "20.00")
    assert (row["distributed"], row["paid_back"], row["balance"]) == ("29.50", "29.50", "0.00")
    assert (row["result"], row["reconciled"]) == ("-20.50", True)  # 20 + 29.50 - 30 - 40
    assert row["net_takings"] == row["ledger_takings"] == "-20.50"


def test_the_shift_report_lists_the_banks_withdrawals_and_rebuilds(mesa):
    from reports.shift import shift_report

    play(mesa, P01)
    services.table_bank_withdraw(table=mesa.table, amount=Decimal("9.50"), by=mesa.supervisor)
    report = shift_report(mesa.table.shifts.get())
    (row,) = report["boxes"]["bank_life"]
    assert (row["kind"], row["holder"], row["amount"], row["by"]) == ("bank_withdrawal", "ana", "9.50", "pit1")
    assert report["exceptions"] == []


def test_the_shift_report_lists_an_auction_with_its_draw(mesa):
    from reports.shift import shift_report

    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    auction = auction_open(table=mesa.table, opened_by=mesa.supervisor)
    for code in ("pepe", "rosa"):
        auction_bid(auction=auction, player=mesa.players[code], amount=Decimal("60"), recorded_by=mesa.supervisor)
    auction_award(auction=auction, awarded_by=mesa.supervisor, rng=random.Random(1))
    (row,) = shift_report(mesa.table.shifts.get())["boxes"]["bank_life"]
    assert (row["kind"], row["amount"], row["tied"], row["sessions"]) == ("auction", "60.00", ["pepe", "rosa"], 1)
