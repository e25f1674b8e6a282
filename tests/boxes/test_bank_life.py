"""The bank's life: an auction with a tie drawn by lot, withdrawals that never touch the
stakes in play, a wiped-out limited bank rebuilt (or given up) before the next hand.
[issue 16 "The bank's life", "Tests"]"""

import random
from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction

from cage.services.slips import awaiting_deposit, cashier_bank_deposit
from ledger.errors import TenureError
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from tables import services
from tables.bank.life import auction_award, auction_bid, auction_open
from tables.errors import BankNotReady
from tables.models import BankAuction, BankRebuild, BankTenure, Table
from tests.factories import UserFactory, deposit_bank, open_drawer
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
        cursor.execute("UPDATE tables_bankauction SET amount = 1 WHERE id = %s", [auction.pk])
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM tables_bankbid WHERE auction_id = %s", [auction.pk])
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


def _wiped_out_syndicate(mesa):
    """Mesa 1 limited, ana's bank of 30.00 (ana, pepe, rosa a third each), deposited, then
    wiped out by a hand: it holds 0.00."""
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)  # ana's 100 back to her
    p = mesa.players
    tenure = services.table_bank_draw(table=mesa.table, holder=p["ana"], capital=Decimal("30"), by=mesa.supervisor,
                                      shares=[(p["ana"], Decimal("33.34")), (p["pepe"], Decimal("33.33")),
                                              (p["rosa"], Decimal("33.33"))])
    deposit_bank(mesa.table)
    play(mesa, BANK_LOSES)  # the bank pays 30.00: it holds 0.00
    return tenure


def test_a_wiped_out_limited_bank_is_rebuilt_at_the_cage_before_the_next_hand(mesa):
    tenure = _wiped_out_syndicate(mesa)
    chips_before = {code: chips(mesa.players[code]) for code in ("ana", "pepe", "rosa")}
    with pytest.raises(BankNotReady) as refused:
        services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    assert "0,00 €" in str(refused.value) and "al menos a 30,00 €" in str(refused.value)
    with pytest.raises(TenureError) as short:
        services.table_bank_rebuild(table=mesa.table, amount=Decimal("29.99"), by=mesa.supervisor)
    assert short.value.field == "amount" and "30,00" in str(short.value)
    rebuild = services.table_bank_rebuild(table=mesa.table, amount=Decimal("30.01"), by=mesa.supervisor)
    assert (rebuild.tenure, rebuild.number, rebuild.amount, rebuild.held, rebuild.ordered_by) == (
        tenure, 1, Decimal("30.01"), Decimal("0.00"), mesa.supervisor)
    # Each member owes his share, the cent left over to the largest remainder (ana's).
    assert [(r["player"].code, r["due"], r["owing"], r["rebuild"]) for r in awaiting_deposit(tenure)] == [
        ("ana", Decimal("10.01"), Decimal("10.01"), rebuild), ("pepe", Decimal("10.00"), Decimal("10.00"), rebuild),
        ("rosa", Decimal("10.00"), Decimal("10.00"), rebuild)]
    with pytest.raises(TenureError) as twice:  # one rebuild at a time
        services.table_bank_rebuild(table=mesa.table, amount=Decimal("40"), by=mesa.supervisor)
    assert twice.value.field == "tenure"
    cashier = UserFactory(username="caja-rebuild", roles=["cashier"])
    open_drawer(cashier)
    with pytest.raises(TenureError) as above:
        cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("10.01"), posted_by=cashier)
    assert above.value.field == "amount" and "10,00" in str(above.value)
    first = cashier_bank_deposit(tenure=tenure, player=mesa.players["ana"], amount=Decimal("10.01"),
                                 posted_by=cashier)
    assert (first.kind, first.rebuild, first.transaction.kind) == ("bank_deposit", rebuild,
                                                                   Transaction.Kind.BANK_REBUILD)
    with pytest.raises(BankNotReady) as waiting:  # pepe and rosa still owe theirs
        services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    assert "reconstitución" in str(waiting.value) and "pepe" in str(waiting.value) and "rosa" in str(waiting.value)
    deposit_bank(mesa.table, cashier)
    assert awaiting_deposit(tenure) == []
    # Cash in at the cage: the members' chips are untouched, the bank holds the rebuild.
    assert {code: chips(mesa.players[code]) for code in ("ana", "pepe", "rosa")} == chips_before
    hand = services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)
    assert hand.number == 2 and hand.tenure.account.balance == Decimal("30.01")
    assert ledger_faults() == []


def test_a_bank_awaiting_its_rebuild_may_be_given_up_and_its_deposits_go_back_as_chips(mesa):
    tenure = _wiped_out_syndicate(mesa)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    cashier = UserFactory(username="caja-rebuild", roles=["cashier"])
    open_drawer(cashier)
    cashier_bank_deposit(tenure=tenure, player=mesa.players["rosa"], amount=Decimal("10"), posted_by=cashier)
    before = chips(mesa.players["rosa"])
    services.table_bank_give_up(table=mesa.table, by=mesa.supervisor)
    tenure.refresh_from_db()
    assert tenure.closed_at is not None and chips(mesa.players["rosa"]) - before == Decimal("10.00")
    with pytest.raises(TenureError):  # a closed bank takes no more deposit
        cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("10"), posted_by=cashier)
    assert ledger_faults() == []
    from django.utils import timezone

    from reports.banks import bank_rotation_report

    today = timezone.localdate()
    row = bank_rotation_report(mesa.table, today, today)["tenures"][-1]
    assert (row["rebuilds"], row["reconciled"]) == ("0.00", True)  # deposited 10.00, paid back 10.00


def test_a_bank_awaiting_its_rebuild_is_not_sold(mesa):
    _wiped_out_syndicate(mesa)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    with pytest.raises(TenureError) as refused:
        services.table_bank_sell(table=mesa.table, buyer=mesa.players["luis"], price=Decimal("5"),
                                 capital=Decimal("50"), by=mesa.supervisor)
    assert refused.value.field == "tenure"


def test_postgresql_refuses_a_hand_while_a_rebuild_awaits_its_deposits(mesa):
    from tables.models import Hand

    tenure = _wiped_out_syndicate(mesa)
    rebuild = services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    table = Table.objects.get(pk=mesa.table.pk)
    with pytest.raises(IntegrityError, match="rebuild"), transaction.atomic():
        Hand.objects.create(table=table, number=table.last_hand_number + 1, tenure=tenure, bank=tenure.holder,
                            seats=["luis"], rules=table.rules, min_bet=table.min_bet, max_bet=table.max_bet)
    with pytest.raises(IntegrityError, match="awaits its deposits"), transaction.atomic():  # a second order
        BankRebuild.objects.create(tenure=tenure, number=2, amount=Decimal("5"), held=Decimal("0"),
                                   ordered_by=mesa.supervisor)
    (slip,) = deposit_bank(mesa.table)[:1]
    with pytest.raises(IntegrityError, match="exceed"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cage_cashierslip (number, kind, player_id, amount, balance_after, transaction_id, "
            "issued_at, issued_by_id, drawer_id, tenure_id, rebuild_id) SELECT number + 10, kind, player_id, 1, "
            "balance_after, transaction_id, issued_at, issued_by_id, drawer_id, tenure_id, rebuild_id "
            "FROM cage_cashierslip WHERE id = %s", [slip.pk])
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        BankRebuild.objects.filter(pk=rebuild.pk).update(amount=Decimal("1"))


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
    deposit_bank(mesa.table)  # the rebuild deposited at the cage
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


def test_a_rebuilds_deposit_is_voided_before_the_next_hand_never_after(mesa):
    from django.utils import timezone

    from cage.services.slips import cashier_slip_void
    from ledger.errors import VoidRefused
    from reports.banks import bank_rotation_report

    tenure = _wiped_out_syndicate(mesa)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    cashier = UserFactory(username="caja-rebuild", roles=["cashier"])
    supervisor = UserFactory(username="cage-super", roles=["cage_supervisor"])
    open_drawer(cashier)
    wrong = cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("10"), posted_by=cashier)
    cashier_slip_void(slip=wrong, reason="rosa's cash booked to pepe", voided_by=supervisor)
    assert [(r["player"].code, r["owing"]) for r in awaiting_deposit(tenure)] == [
        ("ana", Decimal("10.00")), ("pepe", Decimal("10.00")), ("rosa", Decimal("10.00"))]
    slips = deposit_bank(mesa.table, cashier)
    play(mesa, ["luis deal 5O", "bank deal 6E", "luis bet 5", "luis stand", "bank stand"],
         seats=("luis",))
    with pytest.raises(VoidRefused):
        cashier_slip_void(slip=slips[0], reason="too late", voided_by=supervisor)
    with pytest.raises(IntegrityError, match="not voided once its bank has played"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute("INSERT INTO cage_slipvoid (slip_id, reason, voided_at, voided_by_id, reversal_id) "
                       "SELECT id, 'x', now(), issued_by_id, transaction_id FROM cage_cashierslip WHERE id = %s",
                       [slips[0].pk])
    assert ledger_faults() == []
    today = timezone.localdate()
    row = bank_rotation_report(mesa.table, today, today)["tenures"][-1]
    assert (row["rebuilds"], row["reconciled"]) == ("30.00", True), row  # the voided 10.00 netted


def test_a_rebuilds_deposit_slip_names_the_rebuild(client, mesa):
    tenure = _wiped_out_syndicate(mesa)
    services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    cashier = UserFactory(username="caja-slip", roles=["cashier"])
    open_drawer(cashier)
    slip = cashier_bank_deposit(tenure=tenure, player=mesa.players["rosa"], amount=Decimal("10"), posted_by=cashier)
    client.force_login(cashier)
    page = client.get(f"/cage/slips/{slip.number}/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "la reconstitución n.º 1 de la banca (30,00 €)" in page


def test_a_rebuild_is_refused_on_a_bank_not_wiped_out_naming_its_balance_and_capital(mesa):
    """A rebuild is for a limited bank wiped out: the pit's order on an open bank, or on a
    limited bank still covering the table's minimum, is refused and nothing is written."""
    play(mesa, BANK_LOSES)  # ana's open bank of 100.00 pays 30.00: it holds 70.00
    with pytest.raises(TenureError) as open_bank:
        services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    assert open_bank.value.field == "tenure"
    assert "70,00 €" in str(open_bank.value) and "100,00 €" in str(open_bank.value)
    assert "abierta" in str(open_bank.value)
    mesa.table.bank_cover = True
    mesa.table.save(update_fields=["bank_cover"])
    with pytest.raises(TenureError) as limited:  # 70.00 still covers the minimum of 5.00
        services.table_bank_rebuild(table=mesa.table, amount=Decimal("30"), by=mesa.supervisor)
    assert limited.value.field == "tenure"
    assert "70,00 €" in str(limited.value) and "100,00 €" in str(limited.value) and "5,00 €" in str(limited.value)
    assert not BankRebuild.objects.exists()
    services.hand_open(table=mesa.table, seats=["luis"], opened_by=mesa.dealer)  # the table plays on
    assert ledger_faults() == []
