"""The cashier's drawer: float by denomination, slips against it, the close's count,
expected amount, variance and two signatures; PostgreSQL's guards. [issue 15 "The drawer"]"""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.test import override_settings
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from cage.denominations import count_total
from cage.errors import DrawerError
from cage.models import CashierSlip, Drawer
from cage.services.drawer import drawer_close, drawer_open, drawer_preview
from cage.services.slips import cashier_buy_in, cashier_cash_out
from ledger import posting
from reports.audit import drawer_exceptions
from reports.texts import exception_text
from tests.factories import UserFactory

FLOAT = {"50.00": 10, "20.00": 20, "0.50": 4}  # 500 + 400 + 2 = 902.00


def test_a_count_adds_up_by_denomination():
    assert count_total({"500.00": 1, "0.01": 3, "0.20": 2}) == Decimal("500.43")


def test_no_slip_without_an_open_drawer(cashier, luis):
    with pytest.raises(DrawerError, match="no open drawer"):
        cashier_buy_in(player=luis, amount=Decimal("10.00"), posted_by=cashier)
    assert CashierSlip.objects.count() == 0 and luis.aml_movements.count() == 0


def test_a_drawer_from_opening_to_close_with_a_variance(cashier, supervisor, luis):
    drawer = drawer_open(cashier=cashier, count=FLOAT)
    assert drawer.float_amount == Decimal("902.00") and drawer.float_count["50.00"] == 10
    cashier_buy_in(player=luis, amount=Decimal("300.00"), posted_by=cashier)
    cashier_cash_out(player=luis, amount=Decimal("120.50"), posted_by=cashier)
    assert set(drawer.slips.values_list("kind", flat=True)) == {"buy_in", "cash_out"}
    # expected 902.00 + 300.00 − 120.50 = 1,081.50; counted 1,071.50: 10.00 short
    count = {"50.00": 15, "20.00": 15, "10.00": 1, "5.00": 2, "1.00": 1, "0.50": 1}
    assert count_total(count) == Decimal("1071.50")
    closed = drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor, count=count, note="recount done")
    closed.refresh_from_db()
    assert (closed.cash_in, closed.cash_out, closed.expected, closed.counted, closed.variance) == (
        Decimal("300.00"), Decimal("120.50"), Decimal("1081.50"), Decimal("1071.50"), Decimal("-10.00"))
    assert closed.supervisor == supervisor and closed.cashier == cashier and closed.tolerance == Decimal("5.00")
    assert closed.beyond_tolerance
    with pytest.raises(DrawerError, match="no open drawer"):
        cashier_buy_in(player=luis, amount=Decimal("1.00"), posted_by=cashier)
    found = drawer_exceptions(closed.closed_at - timedelta(minutes=1), closed.closed_at + timedelta(minutes=1))
    assert [(e["code"], e["drawer"], e["variance"]) for e in found] == [("drawer_variance", closed.pk, "-10.00")]
    assert "-10.00" in exception_text(found[0]) and "caja" in exception_text(found[0])


def test_a_variance_within_the_tolerance_is_no_exception(cashier, supervisor, settings):
    settings.CAGE_DRAWER_TOLERANCE = "2.00"
    drawer = drawer_open(cashier=cashier, count={"10.00": 1})
    closed = drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor, count={"10.00": 1, "2.00": 1})
    assert closed.variance == Decimal("2.00") and not closed.beyond_tolerance
    now = timezone.now()
    assert drawer_exceptions(now - timedelta(hours=1), now + timedelta(hours=1)) == []


def test_a_voided_slip_leaves_the_expected_amount(cashier, luis):
    drawer = drawer_open(cashier=cashier, count={"50.00": 2})
    slip = cashier_buy_in(player=luis, amount=Decimal("40.00"), posted_by=cashier)
    posting.reverse(transaction=slip.transaction, posted_by=cashier, reason="wrong player")
    assert drawer_preview(drawer=drawer, count={"50.00": 2})["expected"] == Decimal("100.00")


def test_the_close_needs_a_cage_supervisor_other_than_the_cashier(cashier, supervisor):
    drawer = drawer_open(cashier=cashier, count={"5.00": 1})
    with pytest.raises(DrawerError, match="cage supervisor"):
        drawer_close(drawer=drawer, cashier=cashier, supervisor=cashier, count={})
    both = UserFactory(username="both", roles=["cashier", "cage_supervisor"])
    own = drawer_open(cashier=both, count={})
    with pytest.raises(DrawerError, match="not the cashier"):
        drawer_close(drawer=own, cashier=both, supervisor=both, count={})
    with pytest.raises(DrawerError, match="only its cashier"):
        drawer_close(drawer=drawer, cashier=both, supervisor=supervisor, count={})
    assert Drawer.objects.filter(closed_at__isnull=False).count() == 0


def test_one_open_drawer_per_cashier_and_bad_counts_refused(cashier):
    drawer_open(cashier=cashier, count={"5.00": 1})
    with pytest.raises(DrawerError, match="open already"):
        drawer_open(cashier=cashier, count={"5.00": 1})
    other = UserFactory(username="caja9", roles=["cashier"])
    with pytest.raises(DrawerError, match="3.00"):
        drawer_open(cashier=other, count={"3.00": 1})
    with pytest.raises(DrawerError, match="-1"):
        drawer_open(cashier=other, count={"5.00": -1})
    with pytest.raises(DrawerError, match="only a cashier"):
        drawer_open(cashier=UserFactory(username="dealer7", roles=["dealer"]), count={})


def test_postgresql_refuses_a_slip_without_an_open_drawer_and_changes_to_a_closed_one(cashier, supervisor, luis):
    drawer = drawer_open(cashier=cashier, count={"5.00": 1})
    slip = cashier_buy_in(player=luis, amount=Decimal("5.00"), posted_by=cashier)
    drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor, count={"10.00": 1})
    with connection.cursor() as cursor:
        for statement, params, refusal in [
            ("UPDATE cage_drawer SET note = 'x' WHERE id = %s", [drawer.pk], "a closed drawer never changes"),
            ("DELETE FROM cage_drawer WHERE id = %s", [drawer.pk], "never deleted"),
            ("INSERT INTO cage_cashierslip (number, kind, player_id, amount, transaction_id, issued_at, "
             "issued_by_id, drawer_id) VALUES (99, 'buy_in', %s, 1, %s, now(), %s, %s)",
             [luis.pk, slip.transaction_id, cashier.pk, drawer.pk], "no open drawer of its cashier"),
        ]:
            with pytest.raises((DatabaseError, IntegrityError), match=refusal), transaction.atomic():
                cursor.execute(statement, params)
    drawer.refresh_from_db()
    assert drawer.note == "" and drawer.variance == Decimal("0.00") and drawer.expected == Decimal("10.00")


def test_the_bank_rotation_report_shows_the_drawers_beyond_tolerance(cashier, supervisor):
    from reports.banks import bank_rotation_report
    from tests.factories import TableFactory

    drawer = drawer_open(cashier=cashier, count={"20.00": 5})
    drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor, count={"20.00": 6})  # 20.00 over
    today = timezone.localdate()
    report = bank_rotation_report(TableFactory(name="Mesa R"), today, today)
    (found,) = [e for e in report["exceptions"] if e["code"] == "drawer_variance"]
    assert (found["drawer"], found["variance"], found["expected"], found["counted"], found["supervisor"]) == (
        drawer.pk, "20.00", "100.00", "120.00", "jefa")


slips = st.lists(st.tuples(st.sampled_from(["buy_in", "cash_out"]), st.integers(min_value=1, max_value=100_000),
                           st.booleans()), max_size=10)


@examples(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pieces=st.dictionaries(st.sampled_from(["500.00", "20.00", "0.05"]), st.integers(0, 50)), booked=slips)
@override_settings(CAGE_SLIP_MAXIMUM=Decimal("2000000.00"))  # one buy-in funds every cash-out drawn
def test_the_expected_amount_is_the_float_plus_cash_in_minus_cash_out_of_the_live_slips(pieces, booked, cashier, luis):
    with transaction.atomic():
        drawer = drawer_open(cashier=cashier, count=pieces)
        cashier_buy_in(player=luis, amount=Decimal("2000000.00"), posted_by=cashier)
        expected = count_total(pieces) + Decimal("2000000.00")
        for kind, cents, voided in booked:
            amount = Decimal(cents).scaleb(-2)
            service = cashier_buy_in if kind == "buy_in" else cashier_cash_out
            slip = service(player=luis, amount=amount, posted_by=cashier)
            if voided:
                posting.reverse(transaction=slip.transaction, posted_by=cashier, reason="voided")
            else:
                expected += amount if kind == "buy_in" else -amount
        preview = drawer_preview(drawer=drawer, count={"0.01": 7})
        assert preview["expected"] == expected == drawer.float_amount + preview["cash_in"] - preview["cash_out"]
        assert preview["variance"] == Decimal("0.07") - expected
        transaction.set_rollback(True)
