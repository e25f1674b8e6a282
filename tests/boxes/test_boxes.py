"""Table sessions' boxes: table buy-ins into the drop box, two-person counts by
denomination, variances against the hands and the buy-ins, exceptions until explained.
[issue 16 "Table sessions", "Tests"; issue 14 "Chips"]"""

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction

from boxes.errors import BoxError
from boxes.models import BoxCount, TableBuyIn
from boxes.services import box_count, session_commission, table_buy_in, variance_explain
from ledger.errors import InvalidAmount
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from reports.shift import shift_report
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db


def chips(player):
    return Account.objects.get(player=player).balance


def test_a_table_buy_in_raises_the_players_chips_and_the_drop_box(mesa):
    luis = mesa.players["luis"]
    buy_in = table_buy_in(shift=mesa.shift, player=luis, amount=Decimal("150.50"), recorded_by=mesa.dealer)
    assert chips(luis) == Decimal("650.50")
    drop = mesa.table.drop_box.account
    drop.refresh_from_db()
    assert drop.kind == Account.Kind.DROP and drop.balance == Decimal("-150.50")  # the cash the box holds
    txn = buy_in.transaction
    assert txn.kind == Transaction.Kind.TABLE_BUY_IN and txn.posted_by == mesa.dealer
    assert sorted((e.account_id, e.side, e.amount) for e in txn.entries.all()) == sorted(
        [(drop.pk, "D", Decimal("150.50")), (Account.objects.get(player=luis).pk, "C", Decimal("150.50"))])
    assert ledger_faults() == []


@pytest.mark.parametrize("amount", [Decimal("0"), Decimal("-5"), Decimal("1.005"), Decimal("100000.01")])
def test_a_bad_buy_in_amount_is_refused_naming_the_field(mesa, amount):
    with pytest.raises(InvalidAmount) as refused:
        table_buy_in(shift=mesa.shift, player=mesa.players["luis"], amount=amount, recorded_by=mesa.dealer)
    assert refused.value.field == "amount"
    assert not TableBuyIn.objects.exists() and chips(mesa.players["luis"]) == Decimal("500.00")


def test_no_buy_in_into_a_closed_session(mesa):
    shift = mesa.close()
    with pytest.raises(BoxError):
        table_buy_in(shift=shift, player=mesa.players["luis"], amount=Decimal("10"), recorded_by=mesa.dealer)
    assert not TableBuyIn.objects.exists()


def _closed_session_with_commission(mesa):
    """P01 at 5 %: the bank collects 20.00 and pays 10.00: commission 0.50; a buy-in of 200."""
    table_buy_in(shift=mesa.shift, player=mesa.players["pepe"], amount=Decimal("200.00"), recorded_by=mesa.dealer)
    mesa.hand(["luis", "marta"], P01)
    return mesa.close()


def test_two_people_count_neither_the_dealer_nor_one_person_twice(mesa, counters):
    shift = _closed_session_with_commission(mesa)
    first, second = counters
    with pytest.raises(BoxError) as twice:
        box_count(shift=shift, box="drop", pieces={"100.00": 2}, first_counter=first, second_counter=first,
                  recorded_by=first)
    assert twice.value.field == "second_counter" and "pit1" in str(twice.value)
    with pytest.raises(BoxError) as dealer:
        box_count(shift=shift, box="drop", pieces={"100.00": 2}, first_counter=mesa.dealer, second_counter=second,
                  recorded_by=first)
    assert dealer.value.field == "first_counter"
    assert not BoxCount.objects.exists()
    count = box_count(shift=shift, box="drop", pieces={"100.00": 1, "50": 2}, first_counter=first,
                      second_counter=second, recorded_by=first)
    assert (count.total, count.expected, count.variance) == (Decimal("200.00"), Decimal("200.00"), Decimal("0.00"))
    assert count.denominations == {"100.00": 1, "50.00": 2}
    with pytest.raises(BoxError) as again:
        box_count(shift=shift, box="drop", pieces={"100.00": 2}, first_counter=first, second_counter=second,
                  recorded_by=first)
    assert again.value.field == "box"


def test_the_database_refuses_one_person_twice_the_dealer_and_any_change(mesa, counters):
    shift = _closed_session_with_commission(mesa)
    first, second = counters
    row = {"shift_id": shift.pk, "box": "tips", "denominations": {}, "total": 0, "recorded_by_id": first.pk}
    with pytest.raises(IntegrityError), transaction.atomic():
        BoxCount.objects.create(**row, first_counter=first, second_counter=first)
    with pytest.raises(IntegrityError), transaction.atomic():
        BoxCount.objects.create(**row, first_counter=mesa.dealer, second_counter=second)
    count = BoxCount.objects.create(**row, first_counter=first, second_counter=second)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE boxes_boxcount SET total = 5 WHERE id = %s", [count.pk])
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DELETE FROM boxes_boxcount WHERE id = %s", [count.pk])


def test_an_open_session_is_not_counted(mesa, counters):
    with pytest.raises(BoxError):
        box_count(shift=mesa.shift, box="tips", pieces={"5": 1}, first_counter=counters[0],
                  second_counter=counters[1], recorded_by=counters[0])


def test_a_bad_denomination_is_refused(mesa, counters):
    shift = mesa.close()
    for pieces in ({"3.00": 1}, {"5.00": -1}, {"5.00": 1.5}, {"x": 1}):
        with pytest.raises(BoxError) as refused:
            box_count(shift=shift, box="tips", pieces=pieces, first_counter=counters[0],
                      second_counter=counters[1], recorded_by=counters[0])
        assert refused.value.field == "denominations"


def test_a_cagnotte_one_euro_short_is_an_exception_until_explained(mesa, counters):
    """The hands' commission: 0.50 + 0.50 + 0.50 = 1.50; the box holds 0.50: 1.00 short."""
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()
    assert session_commission(shift) == Decimal("1.50")
    first, second = counters
    count = box_count(shift=shift, box="cagnotte", pieces={"0.50": 1}, first_counter=first, second_counter=second,
                      recorded_by=first)
    assert count.variance == Decimal("-1.00")
    report = shift_report(shift)
    assert {"code": "box_variance", "box": "cagnotte", "counted": "0.50", "expected": "1.50",
            "variance": "-1.00"} in report["exceptions"]
    with pytest.raises(BoxError) as empty:
        variance_explain(count=count, text="  ", explained_by=first)
    assert empty.value.field == "text"
    variance_explain(count=count, text="a 1 € chip fell under the table; found at the close", explained_by=first)
    report = shift_report(shift)
    assert not [e for e in report["exceptions"] if e["code"] == "box_variance"]
    (row,) = report["boxes"]["counts"]
    assert row["variance"] == "-1.00" and row["noted_by"] == "pit1" and "fell" in row["note"]
    assert set(report["boxes"]["not_counted"]) == {"drop", "tips"}


def test_a_count_without_variance_needs_no_explanation(mesa, counters):
    shift = _closed_session_with_commission(mesa)
    count = box_count(shift=shift, box="cagnotte", pieces={"0.50": 1}, first_counter=counters[0],
                      second_counter=counters[1], recorded_by=counters[0])
    assert count.variance == Decimal("0.00")
    with pytest.raises(BoxError):
        variance_explain(count=count, text="nothing", explained_by=counters[0])
    assert shift_report(shift)["exceptions"] == []
