"""Hypothesis: whatever the order of buy-ins, cash-outs and voids across players, each
slip keeps the player's balance just after it as it was at issue (the sum of his entries
up to the slip's own), later movements change no slip, and the ledger stays sound."""
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Case, F, Sum, When
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cage.models import CashierSlip
from cage.services.slips import cashier_buy_in, cashier_cash_out, cashier_slip_void
from casino.roles import CAGE_SUPERVISOR, ensure_role_groups
from ledger.errors import AlreadyReversed, InsufficientChips
from ledger.models import Entry
from ledger.selectors import ledger_faults

pytestmark = pytest.mark.django_db

CODES = ("luis", "marta", "pepe")
OPERATIONS = st.lists(st.one_of(
    st.tuples(st.just("buy_in"), st.sampled_from(CODES), st.integers(1, 50_000)),
    st.tuples(st.just("cash_out"), st.sampled_from(CODES), st.integers(1, 50_000)),
    st.tuples(st.just("void"), st.integers(0, 30), st.just(0)),
), min_size=1, max_size=25)


class _Rollback(Exception):
    pass


def _balance_up_to(slip):
    own = Entry.objects.filter(transaction_id=slip.transaction_id, account__player=slip.player).order_by("-id").first()
    total = (Entry.objects.filter(account_id=own.account_id, id__lte=own.id)
             .aggregate(total=Sum(Case(When(side="C", then=F("amount")), default=-F("amount")))))["total"]
    return total


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS)
def test_each_slip_keeps_the_balance_at_issue(players, cashier, operations):
    try:
        with transaction.atomic():
            supervisor = User.objects.create_user("supercaja-h")
            supervisor.groups.add(ensure_role_groups()[CAGE_SUPERVISOR])
            issued = []
            for kind, who, cents in operations:
                try:
                    if kind == "void":
                        if issued:
                            cashier_slip_void(slip=issued[who % len(issued)][0], reason="h",
                                                       voided_by=supervisor)
                        continue
                    book = cashier_buy_in if kind == "buy_in" else cashier_cash_out
                    slip = book(player=players[who], amount=Decimal(cents).scaleb(-2), posted_by=cashier)
                    issued.append((slip, slip.balance_after))
                except (InsufficientChips, AlreadyReversed):
                    continue
            for slip, at_issue in issued:
                stored = CashierSlip.objects.get(pk=slip.pk).balance_after
                assert stored == at_issue == _balance_up_to(slip)
            assert sorted(s.number for s, _b in issued) == list(range(1, len(issued) + 1)) or not issued
            assert ledger_faults() == []
            raise _Rollback
    except _Rollback:
        pass
