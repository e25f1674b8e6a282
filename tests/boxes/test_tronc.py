"""Tips (tronc): the tips counted go to the tronc account; a distribution splits it by the
configured policy (staff pool and casino), the pool by minutes worked, to the cent.
[issue 16 "Tips (tronc)", "Tests"]"""

from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from boxes.errors import BoxError
from boxes.models import TroncShare
from boxes.services import box_count
from boxes.tronc import split_by_weights, tronc_distribute, tronc_plan
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from tables import services
from tables.models import Shift, Table
from tests.factories import UserFactory


@given(st.integers(min_value=0, max_value=10**12), st.lists(st.integers(min_value=0, max_value=10**6), min_size=1,
                                                            max_size=12).filter(sum))
def test_a_split_by_weights_adds_to_the_cent_and_each_part_is_within_a_cent(total, weights):
    parts = split_by_weights(total, weights)
    assert sum(parts) == total and len(parts) == len(weights)
    for part, weight in zip(parts, weights, strict=True):
        assert abs(Fraction(part) - Fraction(total * weight, sum(weights))) < 1


def test_a_split_refuses_no_weight():
    with pytest.raises(ValueError):
        split_by_weights(100, [0, 0])


def _session(table, dealer, pit, minutes):
    shift = services.shift_open(table=table, dealer=dealer, opened_by=pit)
    shift = services.shift_close(shift=shift, closed_by=pit)
    Shift.objects.filter(pk=shift.pk).update(opened_at=shift.closed_at - timedelta(minutes=minutes))
    return Shift.objects.get(pk=shift.pk)


@pytest.mark.django_db
def test_a_tronc_distribution_adds_to_the_cent(staff, settings):
    """100.01 of tips at 75 %: staff 75.01, casino 25.00; the staff pool by minutes,
    60 and 120: 25.00 and 50.01."""
    settings.TRONC_STAFF_PERCENT = "75.00"
    pit, second = staff["supervisor"], UserFactory(username="pit2", roles=["pit_supervisor"])
    other = UserFactory(username="dealer2", roles=["dealer"])
    table = Table.objects.create(name="Mesa T", rules="reglamento", min_bet=Decimal("5"), max_bet=Decimal("100"))
    first = _session(table, staff["dealer"], pit, 60)
    later = _session(table, other, pit, 120)
    box_count(shift=first, box="tips", pieces={"20.00": 2, "0.01": 1}, first_counter=pit, second_counter=second,
              recorded_by=pit)
    box_count(shift=later, box="tips", pieces={"50.00": 1, "10.00": 1}, first_counter=pit, second_counter=second,
              recorded_by=pit)
    tronc = Account.objects.get(kind=Account.Kind.TRONC)
    assert tronc.balance == Decimal("100.01") and Transaction.objects.filter(kind="tips").count() == 2
    plan = tronc_plan()
    assert (plan["total"], plan["staff_total"], plan["casino_total"]) == (
        Decimal("100.01"), Decimal("75.01"), Decimal("25.00"))
    distribution = tronc_distribute(made_by=pit)
    shares = {s.user.username: (s.minutes, s.amount) for s in TroncShare.objects.filter(distribution=distribution)}
    assert shares == {"dealer1": (60, Decimal("25.00")), "dealer2": (120, Decimal("50.01"))}
    assert sum(amount for _m, amount in shares.values()) + distribution.casino_total == distribution.total
    tronc.refresh_from_db()
    assert tronc.balance == Decimal("0.00")
    assert Account.objects.get(kind=Account.Kind.HOUSE).balance == Decimal("25.00")
    assert ledger_faults() == []
    with pytest.raises(BoxError):
        tronc_distribute(made_by=pit)


@pytest.mark.django_db
def test_the_pit_shares_out_the_tronc_after_confirming(client, staff):
    client.cookies["django_language"] = "es"
    pit, second = staff["supervisor"], UserFactory(username="pit2", roles=["pit_supervisor"])
    table = Table.objects.create(name="Mesa T", rules="reglamento", min_bet=Decimal("5"), max_bet=Decimal("100"))
    box_count(shift=_session(table, staff["dealer"], pit, 90), box="tips", pieces={"5.00": 3}, first_counter=pit,
              second_counter=second, recorded_by=pit)
    client.force_login(staff["auditor"])
    assert client.post("/boxes/tronc/", {"confirm": "yes"}).status_code == 403
    client.force_login(pit)
    page = client.get("/boxes/tronc/", {"confirm": "1"}).content.decode()
    assert "El tronco tiene 15,00 €" in page and "Confirmar el reparto" in page and "11,25 €" in page
    done = client.post("/boxes/tronc/", {"confirm": "yes"}, follow=True).content.decode()
    assert "11,25 € al personal, 3,75 € al casino" in done
    assert TroncShare.objects.get().amount == Decimal("11.25")
