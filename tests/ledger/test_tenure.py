"""Bank tenures: capital in from the holder or a syndicate, distribution by shares, sale,
transfer, and the bank's cover ("banca limitada")."""
from decimal import Decimal

import pytest

from cage.services.slips import cashier_buy_in
from ledger.errors import (
    CoverExceeded,
    InsufficientChips,
    InvalidAmount,
    InvalidSyndicate,
    TenureError,
)
from ledger.models import Account, Transaction
from ledger.selectors import account_balance, ledger_faults, player_balance
from tables.bank.statements import tenure_statement
from tables.bank.tenures import (
    bank_sell,
    bank_transfer,
    tenure_check_cover,
    tenure_close,
    tenure_open,
)
from tables.models import BankTenure
from tables.settlement import ledger_post_settlement
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db
D = Decimal


@pytest.fixture
def team(players, fund):
    """Seed 003's team: ana, luis and marta with 300.00 of chips each."""
    for code in ("ana", "luis", "marta"):
        fund(players[code], "300.00")
    return [players["ana"], players["luis"], players["marta"]]


def test_a_single_holder_pays_the_capital_from_her_chips(ana_bank, players):
    assert ana_bank.is_open and ana_bank.began == "draw" and ana_bank.capital == D("500.00")
    assert [(s.player.code, s.percent) for s in ana_bank.shares.all()] == [("ana", D("100.00"))]
    assert account_balance(account=ana_bank.account) == D("500.00")
    assert player_balance(player=players["ana"]) == D("500.00")
    capital = Transaction.objects.get(entries__account__tenure=ana_bank, kind="capital_in")
    assert capital.idempotency_key == f"tenure:{ana_bank.pk}:capital"


def test_a_syndicate_pays_the_capital_by_shares_to_the_cent(table, team, cashier):
    ana, luis, marta = team
    tenure = tenure_open(table=table, holder=ana, capital=D("100.00"), began="draw", posted_by=cashier,
                                  shares=[(ana, D("33.33")), (luis, D("33.33")), (marta, D("33.34"))])
    # 33.33, 33.33, 33.34 exactly: no remainder.
    assert [player_balance(player=p) for p in team] == [D("266.67"), D("266.67"), D("266.66")]
    assert account_balance(account=tenure.account) == D("100.00")
    assert ledger_faults() == []


def test_closing_distributes_the_balance_by_largest_remainder(table, team, cashier, players):
    ana, luis, marta = team
    tenure = tenure_open(table=table, holder=ana, capital=D("100.00"), began="draw", posted_by=cashier,
                                  shares=[(ana, D(50)), (luis, D(25)), (marta, D(25))])
    # The bank wins p01 (luis +10.00, marta -20.00): it holds 110.00.
    ledger_post_settlement(tenure=tenure, settlement=settlement_of(conformance_record("p01")),
                                    idempotency_key="h1", reference="hand 1")
    cashier_buy_in(player=players["pepe"], amount=D("1.00"), posted_by=cashier)
    assert account_balance(account=tenure.account) == D("110.00")
    before = [player_balance(player=p) for p in team]
    distribution = tenure_close(tenure=tenure, ended="closed", posted_by=cashier)
    assert distribution.kind == "distribution"
    got = [player_balance(player=p) - b for p, b in zip(team, before, strict=True)]
    assert got == [D("55.00"), D("27.50"), D("27.50")]
    tenure.refresh_from_db()
    assert not tenure.is_open and tenure.ended == "closed"
    assert account_balance(account=tenure.account) == D("0.00")
    assert not Account.objects.get(tenure=tenure).is_open
    assert ledger_faults() == []


def test_an_odd_cent_goes_to_the_largest_remainder(table, team, cashier):
    ana, luis, marta = team
    tenure = tenure_open(table=table, holder=ana, capital=D("0.10"), began="draw", posted_by=cashier,
                                  shares=[(ana, D("33.33")), (luis, D("33.33")), (marta, D("33.34"))])
    before = [player_balance(player=p) for p in team]
    tenure_close(tenure=tenure, posted_by=cashier)
    # exact 3.333, 3.333, 3.334 cents: marta's .334 is the largest remainder.
    assert [player_balance(player=p) - b for p, b in zip(team, before, strict=True)] == [
        D("0.03"), D("0.03"), D("0.04")]


def test_a_bank_that_lost_more_than_its_capital_charges_its_members(table, team, cashier):
    ana, luis, _marta = team
    tenure = tenure_open(table=table, holder=ana, capital=D("10.00"), began="draw", posted_by=cashier,
                                  shares=[(ana, D(60)), (luis, D(40))])
    # p03: the bank pays 30.00 and holds -20.00.
    ledger_post_settlement(tenure=tenure, settlement=settlement_of(conformance_record("p03")),
                                    idempotency_key="h", reference="hand")
    assert account_balance(account=tenure.account) == D("-20.00")
    before = [player_balance(player=p) for p in (ana, luis)]
    tenure_close(tenure=tenure, posted_by=cashier)
    assert [player_balance(player=p) - b for p, b in zip((ana, luis), before, strict=True)] == [
        D("-12.00"), D("-8.00")]
    assert ledger_faults() == []


def test_a_bank_closing_at_exactly_zero_posts_nothing(table, players, fund, cashier):
    fund(players["ana"], "30.00")
    tenure = tenure_open(table=table, holder=players["ana"], capital=D("30.00"), began="draw",
                                  posted_by=cashier)
    ledger_post_settlement(tenure=tenure, settlement=settlement_of(conformance_record("p03")),
                                    idempotency_key="h", reference="hand")
    assert tenure_close(tenure=tenure, posted_by=cashier) is None
    tenure.refresh_from_db()
    assert tenure.closed_at is not None


def test_capital_above_a_members_chips_is_refused_naming_him(table, team, cashier, players):
    ana, luis, _marta = team
    with pytest.raises(InsufficientChips, match="luis") as refused:
        tenure_open(table=table, holder=ana, capital=D("1000.00"), began="draw", posted_by=cashier,
                             shares=[(ana, D(60)), (luis, D(40))])
    assert refused.value.field == "capital"
    assert not BankTenure.objects.exists()
    assert player_balance(player=ana) == D("300.00")


@pytest.mark.parametrize("shares", [[("ana", "50"), ("luis", "40")], [("ana", "50"), ("ana", "50")],
                                    [("ana", "100.001")]])
def test_a_syndicate_must_be_distinct_players_summing_to_100(table, team, cashier, players, shares):
    with pytest.raises(InvalidSyndicate):
        tenure_open(table=table, holder=players["ana"], capital=D("10"), began="draw", posted_by=cashier,
                             shares=[(players[code], D(percent)) for code, percent in shares])
    assert not BankTenure.objects.exists()


def test_one_open_tenure_per_table(ana_bank, table, players, fund, cashier):
    fund(players["luis"], "50.00")
    with pytest.raises(TenureError, match="ya tiene una banca abierta"):
        tenure_open(table=table, holder=players["luis"], capital=D("10"), began="draw", posted_by=cashier)


def test_a_sale_pays_the_seller_closes_the_old_bank_and_opens_the_buyers(ana_bank, players, fund, cashier):
    fund(players["luis"], "400.00")
    ana_before = player_balance(player=players["ana"])
    new = bank_sell(tenure=ana_bank, buyer=players["luis"], price=D("50.00"), capital=D("300.00"),
                             posted_by=cashier)
    ana_bank.refresh_from_db()
    assert ana_bank.ended == "sale" and not ana_bank.is_open
    assert (new.began, new.price, new.seller, new.previous, new.holder) == (
        "sale", D("50.00"), players["ana"], ana_bank, players["luis"])
    # ana gets her 500.00 bank back plus the price; luis pays price and capital.
    assert player_balance(player=players["ana"]) - ana_before == D("550.00")
    assert player_balance(player=players["luis"]) == D("50.00")
    assert account_balance(account=new.account) == D("300.00")
    assert ledger_faults() == []


def test_a_buyer_who_cannot_pay_the_price_changes_nothing(ana_bank, players, fund, cashier):
    fund(players["luis"], "40.00")
    with pytest.raises(InsufficientChips, match="luis"):
        bank_sell(tenure=ana_bank, buyer=players["luis"], price=D("50.00"), capital=D("10.00"),
                           posted_by=cashier)
    ana_bank.refresh_from_db()
    assert ana_bank.is_open and BankTenure.objects.count() == 1
    assert account_balance(account=ana_bank.account) == D("500.00")


def test_tenure_open_for_a_sale_pays_the_named_seller(table, players, fund, cashier):
    fund(players["luis"], "100.00")
    tenure = tenure_open(table=table, holder=players["luis"], capital=D("60.00"), began="sale",
                                  price=D("25.00"), seller=players["rosa"], posted_by=cashier)
    assert player_balance(player=players["rosa"]) == D("25.00")
    assert player_balance(player=players["luis"]) == D("15.00")
    assert tenure.price == D("25.00")
    with pytest.raises(TenureError):
        tenure_open(table=table, holder=players["luis"], capital=D("1"), began="draw",
                             price=D("1"), seller=players["rosa"], posted_by=cashier)


def test_a_natural_takeover_passes_the_bank(ana_bank, players, fund, cashier):
    # p03: luis's 7½ takes the bank (Settlement.next_bank).
    settlement = settlement_of(conformance_record("p03"))
    ledger_post_settlement(tenure=ana_bank, settlement=settlement, idempotency_key="h", reference="hand")
    assert settlement.next_bank == "luis"
    fund(players["luis"], "80.00")
    new = bank_transfer(tenure=ana_bank, holder=players["luis"], capital=D("100.00"), cause="natural",
                                 posted_by=None)
    ana_bank.refresh_from_db()
    assert (ana_bank.ended, new.began, new.previous) == ("natural", "natural", ana_bank)
    assert player_balance(player=players["ana"]) == D("970.00")  # 500 kept + 470 back
    assert account_balance(account=new.account) == D("100.00")
    assert Transaction.objects.get(entries__account__tenure=new, kind="capital_in").source == "system:cashier"
    assert ledger_faults() == []


def test_the_cover_refusal_says_by_how_much(ana_bank, table):
    table.bank_cover = True
    table.save()
    ana_bank.table.refresh_from_db()
    assert tenure_check_cover(tenure=ana_bank, stakes=D("450.00")) == D("50.00")
    assert tenure_check_cover(tenure=ana_bank, stakes=D("500.00")) == D("0.00")
    with pytest.raises(CoverExceeded) as refused:
        tenure_check_cover(tenure=ana_bank, stakes=D("512.50"))
    assert "12,50 €" in str(refused.value) and "500,00 €" in str(refused.value)


def test_without_cover_there_is_no_limit(ana_bank):
    assert tenure_check_cover(tenure=ana_bank, stakes=D("100000")) is None


def test_the_tenure_statement_shows_shares_capital_and_distribution(table, team, cashier):
    ana, luis, marta = team
    tenure = tenure_open(table=table, holder=ana, capital=D("100.00"), began="draw", posted_by=cashier,
                                  shares=[(ana, D(50)), (luis, D(30)), (marta, D(20))])
    ledger_post_settlement(tenure=tenure, settlement=settlement_of(conformance_record("p01")),
                                    idempotency_key="h1", reference="hand 1")
    open_view = tenure_statement(tenure=tenure)
    assert open_view.balance == D("110.00")
    assert [(s.player.code, s.percent, s.capital, s.distribution) for s in open_view.shares] == [
        ("ana", D("50.00"), D("50.00"), D("55.00")), ("luis", D("30.00"), D("30.00"), D("33.00")),
        ("marta", D("20.00"), D("20.00"), D("22.00"))]
    assert [line.running for line in open_view.statement.lines] == [D("110.00"), D("120.00"), D("100.00")]
    tenure_close(tenure=tenure, posted_by=cashier)
    closed_view = tenure_statement(tenure=tenure)
    assert [s.distribution for s in closed_view.shares] == [D("55.00"), D("33.00"), D("22.00")]
    assert closed_view.distribution is not None and closed_view.balance == D("0.00")


def test_the_unique_index_backs_one_open_tenure_per_table_when_the_check_is_raced(ana_bank, table, players,
                                                                                   fund, cashier, monkeypatch):
    fund(players["luis"], "50.00")
    # A concurrent opening passed the existence check; the partial unique index refuses it.
    monkeypatch.setattr(BankTenure.objects, "filter", lambda **kwargs: BankTenure.objects.none())
    with pytest.raises(TenureError, match="ya tiene una banca abierta"):
        tenure_open(table=table, holder=players["luis"], capital=D("10"), began="draw", posted_by=cashier)
    monkeypatch.undo()
    assert BankTenure.objects.filter(table=table).count() == 1
    assert player_balance(player=players["luis"]) == D("50.00")


def test_a_bank_may_open_empty_and_then_covers_no_stake(table, players, cashier):
    table.bank_cover = True
    table.save()
    tenure = tenure_open(table=table, holder=players["ana"], capital=D("0.00"), began="draw",
                                  posted_by=cashier)
    assert not Transaction.objects.filter(entries__account__tenure=tenure).exists()
    assert account_balance(account=tenure.account) == D("0.00")
    with pytest.raises(CoverExceeded, match="5,00 €"):
        tenure_check_cover(tenure=tenure, stakes=D("5.00"))
    with pytest.raises(InvalidAmount, match="no puede ser negativo"):
        tenure_open(table=table, holder=players["luis"], capital=D("-1"), began="draw", posted_by=cashier)
