"""Every euro a count finds is in the ledger, with one sign convention (docs/ledger.md):
a drawer's float is posted when it opens and goes back at its close with the variance;
the cagnotte's count leaves the house holding what was found; chips a tips box lacks are
outstanding chips, never the cash variances; the count variances account is credited
what a cash count found over and debited what it found short."""

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from boxes.services import box_count, box_recount, table_tip
from cage.services.drawer import drawer_close, drawer_open
from cage.services.slips import cashier_buy_in, cashier_cash_out
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from tests.factories import PlayerFactory, UserFactory
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db

FLOAT = {"50.00": 10, "20.00": 20, "0.50": 4}  # 902.00


def balance(kind):
    return Account.objects.filter(kind=kind).values_list("balance", flat=True).first() or Decimal("0.00")


def _balances():
    return {kind: balance(kind) for kind in (Account.Kind.CAGE, Account.Kind.FLOATS, Account.Kind.VARIANCE)}


def test_a_drawers_float_is_posted_and_its_close_posts_the_float_back_and_the_variance(db):
    cashier = UserFactory(username="caja", roles=["cashier"])
    supervisor = UserFactory(username="jefa", roles=["cage_supervisor"])
    luis = PlayerFactory(code="luis")
    start = _balances()
    drawer = drawer_open(cashier=cashier, count=FLOAT)
    lent = Transaction.objects.get(kind=Transaction.Kind.DRAWER_FLOAT)
    assert lent.cause == {"kind": "drawer_float", "drawer": drawer.pk}
    assert balance(Account.Kind.FLOATS) == Decimal("902.00")
    assert balance(Account.Kind.CAGE) == start[Account.Kind.CAGE] - Decimal("902.00")  # debited: cash in the cage
    cashier_buy_in(player=luis, amount=Decimal("300.00"), posted_by=cashier)
    cashier_cash_out(player=luis, amount=Decimal("120.50"), posted_by=cashier)
    # Counted 1 071,50 € against 1 081,50 € expected: 10,00 € short.
    drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor,
                 count={"50.00": 15, "20.00": 15, "10.00": 1, "5.00": 2, "1.00": 1, "0.50": 1})
    closed = Transaction.objects.get(kind=Transaction.Kind.DRAWER_CLOSE)
    assert closed.cause == {"kind": "drawer_close", "drawer": drawer.pk} and closed.posted_by == supervisor
    assert balance(Account.Kind.FLOATS) == Decimal("0.00")
    assert balance(Account.Kind.VARIANCE) == Decimal("-10.00")  # short: debited
    # The cage holds minus the cash the drawer took in beyond its float: 1 071,50 − 902,00.
    assert balance(Account.Kind.CAGE) == start[Account.Kind.CAGE] - Decimal("169.50")
    assert ledger_faults() == []


@examples(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(floats=st.lists(st.integers(0, 40), min_size=1, max_size=3),
       buy_ins=st.lists(st.integers(1, 50_000), max_size=3), off=st.lists(st.integers(-3, 3), min_size=3, max_size=3))
def test_the_count_variances_account_holds_the_drawers_variances_with_their_sign(db, floats, buy_ins, off):
    """Over random drawers: the count variances account moves by each close's variance
    (over credited, short debited), the floats account ends at zero, and the cage by the
    cash counted beyond the floats."""
    from django.db import transaction

    with transaction.atomic():
        luis = PlayerFactory()
        supervisor = UserFactory(roles=["cage_supervisor"])
        start = _balances()
        variances = counted_beyond = Decimal("0.00")
        for fifties, delta in zip(floats, off, strict=False):
            cashier = UserFactory(roles=["cashier"])
            drawer = drawer_open(cashier=cashier, count={"50.00": fifties})
            for amount in buy_ins:
                cashier_buy_in(player=luis, amount=Decimal(amount).scaleb(-2), posted_by=cashier)
            expected = drawer.float_amount + sum((Decimal(a).scaleb(-2) for a in buy_ins), Decimal("0"))
            found = max(int((expected + delta) * 100), 0)  # cents, a few off the expected
            count = {"50.00": found // 5000, "0.01": found % 5000}
            closed = drawer_close(drawer=drawer, cashier=cashier, supervisor=supervisor, count=count)
            variances += closed.variance
            counted_beyond += closed.counted - closed.float_amount
        assert balance(Account.Kind.VARIANCE) - start[Account.Kind.VARIANCE] == variances
        assert balance(Account.Kind.FLOATS) == Decimal("0.00")
        assert balance(Account.Kind.CAGE) - start[Account.Kind.CAGE] == -counted_beyond
        assert ledger_faults() == []
        transaction.set_rollback(True)


def test_the_cagnotte_count_leaves_the_house_holding_what_was_found(mesa, counters):
    mesa.hand(["luis", "marta"], P01)  # a commission of 0.50 levied for the house
    shift = mesa.close()
    house, chips_out = balance(Account.Kind.HOUSE), balance(Account.Kind.CHIPS_OUT)
    first, second = counters
    short = box_count(shift=shift, box="cagnotte", pieces={"0.20": 1}, first_counter=first,
                      second_counter=second, recorded_by=first)
    assert (short.expected, short.variance) == (Decimal("0.50"), Decimal("-0.30"))
    assert short.transaction is not None and short.transaction.kind == Transaction.Kind.BOX_COUNT
    assert balance(Account.Kind.HOUSE) == house - Decimal("0.30")  # found short: debited
    assert balance(Account.Kind.CHIPS_OUT) == chips_out + Decimal("0.30")  # levied chips not in the box
    assert balance(Account.Kind.VARIANCE) == Decimal("0.00")  # chips, not cash
    over = box_recount(count=short, pieces={"1.00": 1}, first_counter=second, second_counter=first,
                       reason="a chip under the lid", recorded_by=first)
    assert over.variance == Decimal("0.50")
    assert balance(Account.Kind.HOUSE) == house + Decimal("0.50")  # found over: credited
    assert balance(Account.Kind.CHIPS_OUT) == chips_out - Decimal("0.50")
    assert ledger_faults() == []


def test_chips_a_tips_box_lacks_are_outstanding_chips_not_a_cash_variance(mesa, counters):
    table_tip(shift=mesa.shift, player=mesa.players["luis"], amount=Decimal("20.00"), recorded_by=mesa.dealer)
    shift = mesa.close()
    first, second = counters
    box_count(shift=shift, box="tips", pieces={"10.00": 1}, first_counter=first, second_counter=second,
              recorded_by=first)
    assert balance(Account.Kind.CHIPS_OUT) == Decimal("10.00") and balance(Account.Kind.VARIANCE) == Decimal("0.00")
    # A drop found short is a cash variance: debited.
    box_count(shift=shift, box="drop", pieces={}, first_counter=first, second_counter=second, recorded_by=first)
    assert ledger_faults() == []
