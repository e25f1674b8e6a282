"""A hand of a closed bank tenure can still be corrected (issue 17): its void posts the
reversal against the tenure's distribution, the holder's and the syndicate's shares by
largest remainder, and the ledger stays sound."""

import json
from decimal import Decimal

import pytest
from django.urls import reverse
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger import posting
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults, player_balance
from ledger.shares import split_by_shares
from tables import services
from tables.models import Hand

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]  # the bank +10.00
SHARES = [("pepe", Decimal("33.34")), ("rosa", Decimal("33.33")), ("ana", Decimal("33.33"))]


@pytest.fixture
def syndicate_hand(mesa, staff):
    """pepe's bank with rosa and ana (33.34 / 33.33 / 33.33 %), 90.00 of capital, wins
    +10.00 at P01, then passes to luis (the syndicate's tenure closes, 100.00 distributed).
    Returns (mesa, the hand, the closed tenure)."""
    p = mesa.players
    services.table_bank_transfer(table=mesa.table, holder=p["pepe"], capital=Decimal("90.00"),
                                 shares=[(p[code], percent) for code, percent in SHARES], by=staff["supervisor"])
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    tenure = hand.tenure
    services.table_bank_transfer(table=mesa.table, holder=p["luis"], capital=Decimal("50.00"), by=staff["supervisor"])
    tenure.refresh_from_db()
    assert tenure.closed_at is not None
    return mesa, hand, tenure


def test_the_void_of_a_closed_tenures_hand_is_taken_from_its_syndicate(syndicate_hand, staff):
    mesa, hand, tenure = syndicate_hand
    before = {code: player_balance(player=mesa.players[code]) for code in ("luis", "marta", "pepe", "rosa", "ana")}
    services.hand_void(hand=hand, reason="mazo equivocado", voided_by=staff["supervisor"])
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    after = {code: player_balance(player=mesa.players[code]) for code in before}
    change = {code: after[code] - before[code] for code in before}
    # the players' results undone; the bank's +10.00 taken back by shares, the odd cent
    # to the largest remainder (pepe's 333.4 cents)
    assert change == {"luis": Decimal("-10.00"), "marta": Decimal("20.00"), "pepe": Decimal("-3.34"),
                      "rosa": Decimal("-3.33"), "ana": Decimal("-3.33")}
    reversal = Transaction.objects.get(reverses=hand.transaction)
    assert not reversal.entries.filter(account__tenure=tenure).exists()  # the closed account stays empty
    assert Account.objects.get(tenure=tenure).balance == 0
    (moved,) = reversal.cause["through_distribution"]
    assert moved["tenure"] == tenure.pk and [share[2] for share in moved["shares"]] == [-334, -333, -333]
    assert ledger_faults() == []


def test_a_plain_reversal_of_it_is_still_refused(syndicate_hand):
    from ledger.errors import NotReversible

    _mesa, hand, _tenure = syndicate_hand
    with pytest.raises(NotReversible):
        posting.reverse(transaction=hand.transaction, reason="x", posted_by=None)


def test_the_ledger_check_finds_a_reversal_that_shares_the_wrong_amount(syndicate_hand, staff):
    from django.db import connection

    _mesa, hand, _tenure = syndicate_hand
    services.hand_void(hand=hand, reason="mazo equivocado", voided_by=staff["supervisor"])
    reversal = Transaction.objects.get(reverses=hand.transaction)
    cause = reversal.cause
    cause["through_distribution"][0]["legs"][0][2] += 1  # a cent more than was posted
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # past the append-only trigger
        cursor.execute("UPDATE ledger_transaction SET cause = %s::jsonb WHERE id = %s", [json.dumps(cause), reversal.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    faults = ledger_faults()
    assert any(f"reversal #{reversal.pk}" in fault for fault in faults)


def test_the_pit_voids_it_from_the_page(client, staff, syndicate_hand):
    mesa, hand, _tenure = syndicate_hand
    client.force_login(staff["supervisor"])
    response = client.post(reverse("tables:hand_void", args=[mesa.table.pk, hand.number]),
                           {"reason": "mazo equivocado", "confirm": "yes"})
    assert response.status_code == 302
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED
    page = client.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number])).content.decode()
    assert 'class="through-distribution"' in page and "según las participaciones" in page


@settings(max_examples=60, deadline=None)
@given(net=st.integers(-10**7, 10**7),
       percents=st.lists(st.integers(1, 9_999), min_size=1, max_size=6).filter(lambda xs: sum(xs) <= 10_000))
def test_shares_of_a_reversal_add_up_to_the_banks_result(net, percents):
    """Largest remainder: the syndicate's parts add up to the bank's result exactly, each
    within a cent of its exact share. [ledger.shares]"""
    percents = [Decimal(p) / 100 for p in percents]
    percents[-1] += Decimal(100) - sum(percents)
    parts = split_by_shares(net, percents)
    assert sum(parts) == net
    assert all(abs(Decimal(part) - Decimal(net) * percent / 100) < 1 for part, percent in zip(parts, percents,
                                                                                              strict=True))


def test_the_reports_reconcile_it(syndicate_hand, staff):
    """The shift's report and the bank rotation see the void taken from the syndicate:
    no difference with the ledger, no exception."""
    from reports.banks import bank_rotation_report
    from reports.shift import shift_report

    mesa, hand, tenure = syndicate_hand
    services.hand_void(hand=hand, reason="mazo equivocado", voided_by=staff["supervisor"])
    shift = services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=staff["supervisor"])
    assert shift_report(shift)["exceptions"] == []
    day = hand.opened_at.astimezone().date()
    banks = bank_rotation_report(mesa.table, day, day)
    assert banks["exceptions"] == []
    row = next(row for row in banks["tenures"] if row["id"] == tenure.pk)
    assert row["hands"] == 0 and row["voided"] == 1 and row["net_takings"] == "0.00"
    assert row["ledger_takings"] == "0.00"  # the hand's +10.00 and its reversal through the syndicate
    from reports.exports import closing
    from tables.bank.statements import tenure_closings

    # it distributed 100.00 (90.00 + 10.00) but the void took 10.00 back: its result is 0
    assert closing(row) == ("100.00", "0.00")
    tenure.account = Account.objects.get(tenure=tenure)
    assert tenure_closings([tenure])[tenure.pk] == (Decimal("100.00"), Decimal("0.00"))
