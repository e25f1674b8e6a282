"""The bank-rotation report: four tenures at Mesa 1 (a draw, a 7½ takeover, a sale to a
syndicate, a transfer), worked out by hand and reconciled with the ledger."""

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from ledger.models import Account, Entry, Transaction
from reports.banks import bank_rotation_report
from tables import services
from tables.models import BankTenure
from tests.factories import deposit_bank
from tests.reports.conftest import P01
from tests.reports.test_exceptions import behind_the_back


@pytest.fixture
def rotation(played):
    """After ``played`` (ana's bank −20.00 over two hands; luis's 7½ bank +30.00, one
    hand voided): luis sells to pepe (60 %) and rosa (40 %) for 50.00 with 150.00 of
    capital; pepe's bank wins 10.00; it is transferred to marta (capital 100.00), whose
    bank wins 10.00 and is still open."""
    mesa = played
    p = mesa.players
    services.table_bank_sell(table=mesa.table, buyer=p["pepe"], price=Decimal("50.00"), capital=Decimal("150.00"),
                             shares=[(p["pepe"], Decimal("60")), (p["rosa"], Decimal("40"))], by=mesa.supervisor)
    deposit_bank(mesa.table)
    mesa.hand(["luis", "marta"], P01)
    services.table_bank_transfer(table=mesa.table, holder=p["marta"], capital=Decimal("100.00"), by=mesa.supervisor)
    mesa.hand(["luis", "pepe"], [line.replace("marta", "pepe") for line in P01])
    return mesa


def today_report(mesa, **days):
    day = timezone.localdate() + timedelta(**days)
    return bank_rotation_report(mesa.table, day, day)


def test_each_tenure_in_order(rotation):
    report = today_report(rotation)
    rows = [(t["holder"], t["began"], t["ended"], t["hands"], t["capital"], t["net_takings"], t["commission"],
             t["ledger_takings"], t["distributed"], t["balance"]) for t in report["tenures"]]
    assert rows == [
        ("ana", "draw", "natural", 2, "100.00", "-20.00", "0.00", "-20.00", "80.00", "0.00"),
        ("luis", "natural", "sale", 1, "200.00", "30.00", "0.00", "30.00", "280.00", "0.00"),  # + the 50.00 price
        ("pepe", "sale", "transfer", 1, "150.00", "10.00", "0.00", "10.00", "160.00", "0.00"),
        ("marta", "transfer", None, 1, "100.00", "10.00", "0.00", "10.00", None, "110.00"),
    ]
    luis = report["tenures"][1]
    assert (luis["voided"], luis["sale_price_in"]) == (1, "50.00")
    pepe = report["tenures"][2]
    assert (pepe["price"], pepe["seller"]) == ("50.00", "luis")
    assert report["exceptions"] == []


def test_what_each_share_received(rotation):
    report = today_report(rotation)
    shares = {t["holder"]: [(s["player"], s["percent"], s["capital"], s["received"]) for s in t["shares"]]
              for t in report["tenures"]}
    assert shares == {
        "ana": [("ana", "100.00", "100.00", "80.00")],
        "luis": [("luis", "100.00", "200.00", "280.00")],
        "pepe": [("pepe", "60.00", "90.00", "96.00"), ("rosa", "40.00", "60.00", "64.00")],
        "marta": [("marta", "100.00", "100.00", "110.00")],  # if closed now
    }
    assert report["tenures"][3]["open"] is True


def test_the_chain_of_holders_and_the_summary(rotation):
    report = today_report(rotation)
    assert [(link["holder"], link["began"]) for link in report["chain"]] == [
        ("ana", "draw"), ("luis", "natural"), ("pepe", "sale"), ("marta", "transfer")]
    assert report["summary"] == {"tenures": 4, "hands": 5, "capital": "550.00", "commission": "0.00",
                                 "net_takings": "30.00", "win": "30.00", "holders": 4}
    assert [point[1] for point in report["chart"]["points"]] == ["-20.00", "10.00", "20.00", "30.00"]


def test_the_period_selects_the_tenures_open_in_it(rotation):
    assert today_report(rotation, days=-1)["tenures"] == []
    assert [t["holder"] for t in today_report(rotation, days=1)["tenures"]] == ["marta"]  # still open


def test_a_distribution_changed_behind_the_back(rotation):
    pepe = BankTenure.objects.get(holder__code="pepe")
    distribution = Transaction.objects.get(entries__account__tenure=pepe, kind="distribution")
    rosa = Account.objects.get(player__code="rosa")
    entry = Entry.objects.get(transaction=distribution, account=rosa)
    bank = Entry.objects.get(transaction=distribution, account__tenure=pepe)
    behind_the_back("UPDATE ledger_entry SET amount = amount - 1 WHERE id IN (%s, %s)", [entry.pk, bank.pk])
    report = today_report(rotation)
    assert {"code": "tenure_balance", "tenure": pepe.pk, "holder": "pepe", "movements": "1.00",
            "balance": "0.00"} in report["exceptions"]
    assert report["tenures"][2]["shares"][1]["received"] == "63.00"


def test_a_broken_chain_of_holders(rotation):
    marta = BankTenure.objects.get(holder__code="marta")
    behind_the_back("UPDATE tables_banktenure SET previous_id = NULL WHERE id = %s", [marta.pk])
    report = today_report(rotation)
    pepe = BankTenure.objects.get(holder__code="pepe")
    assert {"code": "holder_chain", "tenure": marta.pk, "previous": None, "expected": pepe.pk} in report["exceptions"]
