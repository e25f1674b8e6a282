"""The bank's capital deposited at the cage before its first hand; an auctioned bank that
ends with the last of its sessions. [issue 16: "The bank's capital is deposited at the
cage (a slip from the banker, or from each syndicate member for his share) before its
first hand"; "awarded for one session or several"]"""

from decimal import Decimal

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils import timezone

from cage.models import AmlMovement, CashierSlip
from cage.services.drawer import drawer_cash, open_drawer_of
from cage.services.slips import (
    awaiting_deposit,
    cashier_bank_deposit,
    cashier_slip_void,
    deposits_owed,
)
from ledger.errors import TenureError, VoidRefused
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults, player_balance
from reports.banks import bank_rotation_report
from tables import services
from tables.bank.life import auction_award, auction_bid, auction_open
from tables.errors import BankNotReady
from tables.models import BankTenure, Hand
from tests.factories import TableFactory, UserFactory, deposit_bank
from tests.tables.test_console_views import Console, refusal_of

pytestmark = pytest.mark.django_db

P01 = ("luis deal 5O", "marta deal 3C", "bank deal 6E", "luis bet 10", "luis stand", "marta bet 10",
       "marta card 3B", "marta stand", "bank stand")


def balance(tenure):
    return Account.objects.get(tenure=tenure).balance


@pytest.fixture
def syndicate_bank(mesa):
    """Mesa 2, drawn for by pepe with 300.00, pepe 60 % and rosa 40 %: awaiting deposits."""
    table = TableFactory(name="Mesa 2")
    tenure = services.table_bank_draw(table=table, holder=mesa.players["pepe"], capital=Decimal("300.00"),
                                      shares=[(mesa.players["pepe"], Decimal("60")),
                                              (mesa.players["rosa"], Decimal("40"))], by=mesa.supervisor)
    return table, tenure


def test_a_drawn_bank_waits_for_each_members_deposit_before_its_first_hand(mesa, syndicate_bank):
    table, tenure = syndicate_bank
    p = mesa.players
    assert tenure.deposit_required and balance(tenure) == Decimal("0.00")
    assert (player_balance(player=p["pepe"]), player_balance(player=p["rosa"])) == (Decimal("500.00"),
                                                                                      Decimal("500.00"))
    assert [(row["player"].code, row["due"], row["owing"]) for row in deposits_owed(tenure)] == [
        ("pepe", Decimal("180.00"), Decimal("180.00")), ("rosa", Decimal("120.00"), Decimal("120.00"))]
    with pytest.raises(BankNotReady) as refused:
        services.hand_open(table=table, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    assert "pepe" in str(refused.value) and "rosa" in str(refused.value) and "180" in str(refused.value)

    drawer = open_drawer_of(mesa.cashier)
    cash_in_before, _out = drawer_cash(drawer)
    first = cashier_bank_deposit(tenure=tenure, player=p["pepe"], amount=Decimal("100.00"), posted_by=mesa.cashier)
    cashier_bank_deposit(tenure=tenure, player=p["pepe"], amount=Decimal("80.00"), posted_by=mesa.cashier)
    assert (first.kind, first.tenure, first.drawer) == ("bank_deposit", tenure, drawer)
    assert first.transaction.kind == Transaction.Kind.CAPITAL_IN and first.transaction.entries.filter(account__tenure=tenure).exists()
    with pytest.raises(BankNotReady) as refused:  # rosa still owes her 120.00
        services.hand_open(table=table, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    assert "rosa" in str(refused.value) and "pepe" not in str(refused.value).split(":", 1)[1]
    cashier_bank_deposit(tenure=tenure, player=p["rosa"], amount=Decimal("120.00"), posted_by=mesa.cashier)
    assert awaiting_deposit(tenure) == [] and balance(tenure) == Decimal("300.00")
    # Cash in at the drawer and in the AML totals, as a buy-in; the chips untouched.
    assert drawer_cash(drawer)[0] - cash_in_before == Decimal("300.00")
    assert sorted(AmlMovement.objects.filter(transaction__entries__account__tenure=tenure).values_list(
        "player__code", "direction", "amount")) == [("pepe", "in", Decimal("80.00")),
                                                    ("pepe", "in", Decimal("100.00")),
                                                    ("rosa", "in", Decimal("120.00"))]
    assert (player_balance(player=p["pepe"]), player_balance(player=p["rosa"])) == (Decimal("500.00"),
                                                                                      Decimal("500.00"))
    hand = services.hand_open(table=table, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    assert hand.tenure == tenure and hand.bank.code == "pepe"
    assert ledger_faults() == []


def test_a_deposit_is_refused_for_a_stranger_above_the_share_or_for_a_bank_from_chips(mesa, syndicate_bank):
    table, tenure = syndicate_bank
    p = mesa.players
    with pytest.raises(TenureError) as refused:
        cashier_bank_deposit(tenure=tenure, player=p["luis"], amount=Decimal("10"), posted_by=mesa.cashier)
    assert refused.value.field == "player"
    with pytest.raises(TenureError) as refused:
        cashier_bank_deposit(tenure=tenure, player=p["rosa"], amount=Decimal("120.01"), posted_by=mesa.cashier)
    assert refused.value.field == "amount" and "120,00" in str(refused.value)
    from_chips = BankTenure.objects.get(table=mesa.table, closed_at__isnull=True)  # mesa's: deposited already
    with pytest.raises(TenureError):
        cashier_bank_deposit(tenure=from_chips, player=p["ana"], amount=Decimal("1"), posted_by=mesa.cashier)
    transferred = services.table_bank_transfer(table=mesa.table, holder=p["marta"], capital=Decimal("50"),
                                               by=mesa.supervisor)  # the bank passes at the table: from chips
    assert not transferred.deposit_required and player_balance(player=p["marta"]) == Decimal("450.00")
    with pytest.raises(TenureError) as refused:
        cashier_bank_deposit(tenure=transferred, player=p["marta"], amount=Decimal("1"), posted_by=mesa.cashier)
    assert refused.value.field == "tenure"
    assert CashierSlip.objects.filter(kind="bank_deposit", tenure__in=[tenure, transferred]).count() == 0


def test_postgresql_refuses_a_hand_on_a_bank_awaiting_deposits_and_a_deposit_beyond_its_capital(
        mesa, syndicate_bank):
    table, tenure = syndicate_bank
    with pytest.raises(IntegrityError, match="awaits its deposits"), transaction.atomic():
        Hand.objects.create(table=table, number=table.last_hand_number + 1, tenure=tenure, bank=tenure.holder,
                            seats=["luis"], rules=table.rules, min_bet=table.min_bet, max_bet=table.max_bet)
    slip = cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("180.00"),
                                posted_by=mesa.cashier)
    with pytest.raises(IntegrityError, match="exceed"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO cage_cashierslip (number, kind, player_id, amount, balance_after, transaction_id, "
            "issued_at, issued_by_id, drawer_id, tenure_id) SELECT number + 1, kind, player_id, 121, balance_after, "
            "transaction_id, issued_at, issued_by_id, drawer_id, tenure_id FROM cage_cashierslip WHERE id = %s",
            [slip.pk])
    with pytest.raises(IntegrityError, match="cage_slip_deposit_has_tenure"), transaction.atomic(), \
            connection.cursor() as cursor:  # a deposit names its bank
        cursor.execute(
            "INSERT INTO cage_cashierslip (number, kind, player_id, amount, balance_after, transaction_id, "
            "issued_at, issued_by_id, drawer_id, tenure_id) SELECT number + 1, kind, player_id, 1, balance_after, "
            "transaction_id, issued_at, issued_by_id, drawer_id, NULL FROM cage_cashierslip WHERE id = %s",
            [slip.pk])


def test_a_deposit_is_voided_before_the_bank_plays_never_after(mesa, syndicate_bank, staff):
    table, tenure = syndicate_bank
    supervisor = UserFactory(username="cage-super", roles=["cage_supervisor"])
    slip = cashier_bank_deposit(tenure=tenure, player=mesa.players["rosa"], amount=Decimal("120.00"),
                                posted_by=mesa.cashier)
    cashier_slip_void(slip=slip, reason="wrong bank", voided_by=supervisor)
    assert balance(tenure) == Decimal("0.00")
    assert [row["player"].code for row in awaiting_deposit(tenure)] == ["pepe", "rosa"]
    deposit_bank(table, mesa.cashier)
    services.hand_open(table=table, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    last = CashierSlip.objects.filter(tenure=tenure).order_by("-number").first()
    with pytest.raises(VoidRefused):
        cashier_slip_void(slip=last, reason="too late", voided_by=supervisor)
    assert ledger_faults() == []


def test_a_sale_takes_its_price_from_chips_and_its_capital_at_the_cage(mesa):
    p = mesa.players
    new = services.table_bank_sell(table=mesa.table, buyer=p["pepe"], price=Decimal("50"), capital=Decimal("200"),
                                   by=mesa.supervisor)
    assert new.deposit_required and player_balance(player=p["pepe"]) == Decimal("450.00")
    with pytest.raises(BankNotReady, match="pepe"):
        mesa.open("luis", "marta")
    deposit_bank(mesa.table, mesa.cashier)
    assert mesa.open("luis", "marta").tenure == new


def test_a_7_and_a_half_takeover_still_takes_the_capital_from_chips(mesa):
    mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10",
              "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand")
    hand = mesa.open("marta")
    assert hand.bank.code == "luis" and not hand.tenure.deposit_required and hand.tenure.began == "natural"


def test_an_auctioned_bank_ends_at_the_close_of_its_last_awarded_session(mesa):
    p, pit = mesa.players, mesa.supervisor
    services.table_bank_give_up(table=mesa.table, by=pit)
    auction = auction_open(table=mesa.table, sessions=2, opened_by=pit)
    auction_bid(auction=auction, player=p["pepe"], amount=Decimal("60"), recorded_by=pit)
    tenure = auction_award(auction=auction, awarded_by=pit).tenure
    deposit_bank(mesa.table, mesa.cashier)
    mesa.play(mesa.open("luis", "marta"), *P01)  # the session open at the award is its first
    services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=pit)
    tenure.refresh_from_db()
    assert tenure.is_open
    services.shift_open(table=mesa.table, dealer=mesa.dealer, opened_by=pit)
    mesa.play(mesa.open("luis", "marta"), *P01)
    held = balance(tenure)
    chips_before = player_balance(player=p["pepe"])
    services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=pit)
    tenure.refresh_from_db()
    assert (tenure.is_open, tenure.ended) == (False, "term")
    assert player_balance(player=p["pepe"]) == chips_before + held  # paid back to his chips on record
    services.shift_open(table=mesa.table, dealer=mesa.dealer, opened_by=pit)
    with pytest.raises(BankNotReady):  # the pit auctions or draws again
        mesa.open("luis", "marta")
    today = timezone.localdate()
    row = bank_rotation_report(mesa.table, today, today)["tenures"][-1]
    assert (row["ended"], row["deposits"], row["paid_back"], row["reconciled"]) == (
        "term", "60.00", str(held), True)


def test_the_console_shows_the_bank_awaiting_its_deposit_and_refuses_the_hand(client, mesa, syndicate_bank):
    table, _tenure = syndicate_bank
    services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    client.force_login(mesa.dealer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    screen = Console(client, table)
    html = screen.load().content.decode()
    assert "pendiente de depósito en caja" in html and "rosa debe 120,00 €" in html
    response = screen.send("form-open", seats="luis")
    assert response.status_code == 200 and "rosa" in refusal_of(response)
    assert not Hand.objects.filter(table=table).exists()
    deposit_bank(table, mesa.cashier)
    html = client.get(reverse("tables:console", args=[table.pk])).content.decode()
    assert "pendiente de depósito" not in html
    screen.load()
    assert screen.send("form-open", seats="luis").status_code == 302


def test_the_cashier_books_a_deposit_on_the_cage_page(client, mesa, syndicate_bank):
    table, tenure = syndicate_bank
    client.force_login(mesa.cashier)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    form = client.get(reverse("cage:bank_deposit"), follow=True)
    html = form.content.decode()
    assert "Mesa 2" in html and "pepe debe 180,00 €" in html
    url = form.redirect_chain[-1][0]
    refused = client.post(url, {"tenure": tenure.pk, "player": "rosa", "amount": "130,00"})
    assert refused.status_code == 200 and "120,00" in refused.content.decode()
    done = client.post(url, {"tenure": tenure.pk, "player": "rosa", "amount": "120,00"}, follow=True)
    slip = CashierSlip.objects.get(tenure=tenure)
    assert (slip.player.code, slip.amount) == ("rosa", Decimal("120.00"))
    assert f"Mesa 2, banca de pepe (n.º {tenure.pk})" in done.content.decode()  # the slip printed
    assert "el capital de la banca" in done.content.decode()  # what the deposit is for
    again = client.post(url, {"tenure": tenure.pk, "player": "rosa", "amount": "120,00"}, follow=True)
    assert CashierSlip.objects.filter(tenure=tenure).count() == 1 and again.status_code == 200


def test_a_member_who_paid_his_share_is_told_so_and_nothing_is_booked(mesa, syndicate_bank):
    _table, tenure = syndicate_bank
    cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("180.00"),
                         posted_by=mesa.cashier)
    slips = CashierSlip.objects.count()
    with pytest.raises(TenureError) as refused:
        cashier_bank_deposit(tenure=tenure, player=mesa.players["pepe"], amount=Decimal("10.00"),
                             posted_by=mesa.cashier)
    assert refused.value.field == "player"
    assert "pepe" in str(refused.value) and "capital" in str(refused.value) and "0,00" not in str(refused.value)
    assert CashierSlip.objects.count() == slips and balance(tenure) == Decimal("180.00")
