"""Statements: newest first, a running balance on every line, page after page."""
from decimal import Decimal

import pytest

from cage.services.slips import cashier_cash_out
from ledger.selectors import player_statement

pytestmark = pytest.mark.django_db


def test_running_balance_runs_across_pages(players, fund, cashier):
    luis = players["luis"]
    for amount in ("10.00", "20.00", "30.00"):
        fund(luis, amount)
    cashier_cash_out(player=luis, amount=Decimal("5.00"), posted_by=cashier)
    fund(luis, "1.50")
    # Balance after each posting, oldest first: 10, 30, 60, 55, 56.50.
    first = player_statement(player=luis, page=1, per_page=2)
    second = player_statement(player=luis, page="2", per_page=2)
    third = player_statement(player=luis, page=3, per_page=2)
    assert first.balance == Decimal("56.50")
    assert [(line.signed, line.running) for line in first.lines] == [
        (Decimal("1.50"), Decimal("56.50")), (Decimal("-5.00"), Decimal("55.00"))]
    assert [(line.signed, line.running) for line in second.lines] == [
        (Decimal("30.00"), Decimal("60.00")), (Decimal("20.00"), Decimal("30.00"))]
    assert [(line.signed, line.running) for line in third.lines] == [(Decimal("10.00"), Decimal("10.00"))]
    assert (first.page.has_previous, first.page.has_next) == (False, True)
    assert (second.page.has_previous, second.page.has_next, third.page.has_next) == (True, True, False)
    assert [line.transaction.reference for line in first.lines] == ["slip 000005", "slip 000004"]


def test_a_bad_page_number_gives_the_first_page_and_a_player_without_account_an_empty_statement(players, fund):
    fund(players["luis"], "10.00")
    assert player_statement(player=players["luis"], page="abc").page.number == 1
    empty = player_statement(player=players["rosa"])
    assert (empty.balance, empty.lines, empty.page.has_next) == (Decimal("0.00"), [], False)
