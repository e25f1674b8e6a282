"""Tips at the table, recounts and the drop counted into the cage. [issue 16 "Tips
(tronc)", "Table sessions"]"""

from decimal import Decimal

import pytest
from django.db import IntegrityError, connection, transaction

from boxes.errors import BoxError
from boxes.models import BoxCount, TableTip
from boxes.services import (
    box_count,
    box_recount,
    open_variances,
    table_buy_in,
    table_tip,
    variance_explain,
)
from boxes.tronc import tronc_distribute, undistributed_tips
from ledger.errors import AlreadyPosted, InsufficientChips, InvalidAmount
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from reports.shift import shift_report

pytestmark = pytest.mark.django_db


def balance(**filters):
    return Account.objects.filter(**filters).values_list("balance", flat=True).first() or Decimal("0.00")


def test_a_tip_in_chips_leaves_the_player_for_the_sessions_tips_box(mesa):
    luis = mesa.players["luis"]
    tip = table_tip(shift=mesa.shift, player=luis, amount=Decimal("12.50"), recorded_by=mesa.dealer)
    assert balance(player=luis) == Decimal("487.50")
    box = mesa.shift.tips_box.account
    box.refresh_from_db()
    assert box.kind == Account.Kind.TIPS_BOX and box.balance == Decimal("12.50")
    assert tip.kind == TableTip.Kind.CHIPS and tip.transaction.kind == Transaction.Kind.TIP
    assert sorted((e.account_id, e.side, e.amount) for e in tip.transaction.entries.all()) == sorted(
        [(Account.objects.get(player=luis).pk, "D", Decimal("12.50")), (box.pk, "C", Decimal("12.50"))])
    assert ledger_faults() == []


def test_a_tip_the_players_chips_do_not_cover_is_refused_naming_him_and_his_holding(mesa):
    luis = mesa.players["luis"]
    with pytest.raises(InsufficientChips) as refused:
        table_tip(shift=mesa.shift, player=luis, amount=Decimal("500.01"), recorded_by=mesa.dealer)
    assert refused.value.field == "amount"
    assert "luis" in str(refused.value) and "500,00" in str(refused.value)
    assert not TableTip.objects.exists() and balance(player=luis) == Decimal("500.00")
    with pytest.raises(InvalidAmount):
        table_tip(shift=mesa.shift, player=luis, amount=Decimal("0"), recorded_by=mesa.dealer)


def test_a_cash_tip_is_recorded_without_chips_and_a_tip_sent_twice_once(mesa):
    tip = table_tip(shift=mesa.shift, amount=Decimal("5.00"), recorded_by=mesa.dealer, idempotency_key="k1")
    assert tip.kind == TableTip.Kind.CASH and tip.transaction is None and tip.player is None
    with pytest.raises(AlreadyPosted):
        table_tip(shift=mesa.shift, amount=Decimal("5.00"), recorded_by=mesa.dealer, idempotency_key="k1")
    assert TableTip.objects.count() == 1


def test_no_tip_in_a_closed_session(mesa):
    shift = mesa.close()
    with pytest.raises(BoxError):
        table_tip(shift=shift, player=mesa.players["luis"], amount=Decimal("1"), recorded_by=mesa.dealer)
    assert not TableTip.objects.exists()


def test_the_tips_count_is_compared_with_the_tips_recorded(mesa, counters):
    table_tip(shift=mesa.shift, player=mesa.players["luis"], amount=Decimal("10.00"), recorded_by=mesa.dealer)
    table_tip(shift=mesa.shift, amount=Decimal("5.00"), recorded_by=mesa.dealer)
    shift = mesa.close()
    first, second = counters
    tronc_before = balance(kind=Account.Kind.TRONC)
    count = box_count(shift=shift, box="tips", pieces={"10.00": 1, "2.00": 1}, first_counter=first,
                      second_counter=second, recorded_by=first)
    assert (count.total, count.expected, count.variance) == (Decimal("12.00"), Decimal("15.00"), Decimal("-3.00"))
    assert {"code": "box_variance", "box": "tips", "counted": "12.00", "expected": "15.00",
            "variance": "-3.00"} in shift_report(shift)["exceptions"]
    # The tronc gets what was counted; the chips left the tips box; the cash beyond them reached the cage.
    assert balance(kind=Account.Kind.TRONC) == tronc_before + Decimal("12.00")
    assert balance(tips_box__shift=shift) == 0
    assert ledger_faults() == []


def test_the_drop_counted_moves_to_the_cage_and_its_variance_to_the_variance_account(mesa, counters):
    table_buy_in(shift=mesa.shift, player=mesa.players["pepe"], amount=Decimal("200.00"), recorded_by=mesa.dealer)
    shift = mesa.close()
    first, second = counters
    cage = balance(kind=Account.Kind.CAGE)
    assert balance(kind=Account.Kind.DROP) == Decimal("-200.00")
    count = box_count(shift=shift, box="drop", pieces={"100.00": 1, "50.00": 1}, first_counter=first,
                      second_counter=second, recorded_by=first)
    assert count.variance == Decimal("-50.00") and count.transaction.kind == Transaction.Kind.BOX_COUNT
    assert balance(kind=Account.Kind.DROP) == 0
    assert balance(kind=Account.Kind.CAGE) == cage - Decimal("150.00")
    assert balance(kind=Account.Kind.VARIANCE) == Decimal("-50.00")
    assert ledger_faults() == []
    # Counted again, right: the 50 found; the cage takes it, the variance account back to zero.
    recount = box_recount(count=count, pieces={"100.00": 2}, first_counter=second, second_counter=first,
                          reason="a 50 note stuck in the box's slot", recorded_by=first)
    assert recount.supersedes == count and recount.variance == 0 and recount.reason.startswith("a 50")
    assert balance(kind=Account.Kind.DROP) == 0 and balance(kind=Account.Kind.VARIANCE) == 0
    assert balance(kind=Account.Kind.CAGE) == cage - Decimal("200.00")
    assert list(open_variances(shift)) == []
    rows = shift_report(shift)["boxes"]["counts"]
    assert [(r["counted"], r["latest"]) for r in rows] == [("150.00", False), ("200.00", True)]
    assert not [e for e in shift_report(shift)["exceptions"] if e["code"] == "box_variance"]
    assert ledger_faults() == []


def test_a_recount_needs_a_reason_two_counters_not_the_dealer_and_the_latest_count(mesa, counters):
    shift = mesa.close()
    first, second = counters
    count = box_count(shift=shift, box="cagnotte", pieces={"1.00": 1}, first_counter=first, second_counter=second,
                      recorded_by=first)
    kwargs = {"count": count, "pieces": {}, "recorded_by": first}
    with pytest.raises(BoxError) as no_reason:
        box_recount(**kwargs, first_counter=first, second_counter=second, reason=" ")
    assert no_reason.value.field == "reason"
    with pytest.raises(BoxError) as twice:
        box_recount(**kwargs, first_counter=first, second_counter=first, reason="again")
    assert twice.value.field == "second_counter"
    with pytest.raises(BoxError) as dealer:
        box_recount(**kwargs, first_counter=first, second_counter=mesa.dealer, reason="again")
    assert dealer.value.field == "second_counter"
    recount = box_recount(**kwargs, first_counter=first, second_counter=second, reason="the 1 € was another table's")
    assert recount.variance == 0 and not BoxCount.objects.get(pk=count.pk).is_latest
    with pytest.raises(BoxError) as stale:
        box_recount(**kwargs, first_counter=first, second_counter=second, reason="again")
    assert stale.value.field == "count"
    with pytest.raises(BoxError):
        variance_explain(count=count, text="explaining the superseded one", explained_by=first)


def test_the_database_keeps_the_recounts_rules(mesa, counters):
    shift = mesa.close()
    first, second = counters
    count = box_count(shift=shift, box="cagnotte", pieces={"1.00": 1}, first_counter=first, second_counter=second,
                      recorded_by=first)
    row = {"shift_id": shift.pk, "box": "cagnotte", "denominations": {}, "total": 0, "recorded_by_id": first.pk,
           "supersedes": count, "reason": "again"}
    for bad in ({"first_counter": first, "second_counter": first},
                {"first_counter": mesa.dealer, "second_counter": second},
                {"first_counter": first, "second_counter": second, "reason": ""},
                {"first_counter": first, "second_counter": second, "box": "tips"}):
        with pytest.raises(IntegrityError), transaction.atomic():
            BoxCount.objects.create(**{**row, **bad})
    BoxCount.objects.create(**row, first_counter=first, second_counter=second)
    with pytest.raises(IntegrityError), transaction.atomic():  # one recount per count
        BoxCount.objects.create(**row, first_counter=second, second_counter=first)
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE boxes_boxcount SET reason = 'x' WHERE id = %s", [count.pk])


def test_a_recounted_tips_box_shares_out_the_latest_count_and_a_shared_one_is_not_recounted(mesa, counters):
    table_tip(shift=mesa.shift, player=mesa.players["luis"], amount=Decimal("20.00"), recorded_by=mesa.dealer)
    shift = mesa.close()
    first, second = counters
    count = box_count(shift=shift, box="tips", pieces={"10.00": 1}, first_counter=first, second_counter=second,
                      recorded_by=first)
    # 10.00 of chips tipped not in the box: outstanding chips, never the cash variances.
    assert balance(kind=Account.Kind.CHIPS_OUT) == Decimal("10.00") and balance(kind=Account.Kind.VARIANCE) == 0
    recount = box_recount(count=count, pieces={"20.00": 1}, first_counter=first, second_counter=second,
                          reason="the other chip was under the lid", recorded_by=first)
    assert list(undistributed_tips()) == [recount]
    assert balance(kind=Account.Kind.CHIPS_OUT) == 0 and balance(kind=Account.Kind.TRONC) == Decimal("20.00")
    distribution = tronc_distribute(made_by=first)
    assert distribution.total == Decimal("20.00")
    with pytest.raises(BoxError) as shared:
        box_recount(count=recount, pieces={"20.00": 2}, first_counter=first, second_counter=second,
                    reason="again", recorded_by=first)
    assert shared.value.field == "count"
    assert ledger_faults() == []
