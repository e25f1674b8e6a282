"""The casino's results by gaming day, month and year to date against a year before: each
figure equals what the hands, the boxes and the ledger hold (computed apart); CSV in the
reader's locale; the page for the auditor only."""

from decimal import Decimal

import pytest
from django.db.models import Sum
from django.test import Client
from django.utils import timezone

from boxes.services import table_buy_in, table_tip
from casino.periods import gaming_day
from ledger.models import Entry
from reports.results import Figures, period_results, results_for, year_before
from tables.models import HandBet
from tests.reports.conftest import P01

pytestmark = pytest.mark.django_db
D = Decimal


@pytest.fixture
def night(mesa):
    """Mesa 1 at 5 % commission: P01 twice (the bank collects 10.00 net each: 0.50 each to
    the house), a table buy-in of 200.00, a tip of 5.00."""
    mesa.table.rules = {"profile": "reglamento", "commission_rate": "0.05"}
    mesa.table.save(update_fields=["rules"])
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], P01)
    table_buy_in(shift=mesa.shift, player=mesa.players["pepe"], amount=D("200.00"), recorded_by=mesa.dealer)
    table_tip(shift=mesa.shift, player=mesa.players["luis"], amount=D("5.00"), recorded_by=mesa.dealer)
    return mesa


def test_each_figure_is_what_the_hands_boxes_and_ledger_hold(night):
    day = gaming_day(timezone.now())
    results = period_results(first=day, last=day)
    handle = HandBet.objects.aggregate(total=Sum("stake"))["total"]
    players = HandBet.objects.aggregate(total=Sum("net"))["total"]
    house = Entry.objects.filter(account__kind="house", side="C").aggregate(total=Sum("amount"))["total"]
    casino = results.casino
    assert (casino.handle, casino.banks_result, casino.commission) == (handle, -players, house) == (
        D("60.00"), D("20.00"), D("1.00"))
    assert (casino.drop, casino.tips) == (D("200.00"), D("5.00"))
    assert casino.hold == D("1.67")  # 1.00 of 60.00
    assert list(results.tables) == ["Mesa 1"] and results.tables["Mesa 1"] == casino
    assert list(results.profiles) == ["reglamento"] and results.profiles["reglamento"] == casino
    periods = results_for(day)
    assert [p["now"].casino for p in periods] == [casino] * 3  # the month and the year are this night so far
    assert all(p["before"].casino == Figures() for p in periods)
    assert period_results(first=year_before(day), last=year_before(day)).tables == {}


def test_the_results_page_and_csv_for_the_auditor_only(night):
    client = Client()
    client.force_login(night.staff["auditor"])
    page = client.get("/reports/results/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Mesa 1" in page and "60,00" in page and "1,67 %" in page
    csv_text = client.get("/reports/results/?format=csv", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    lines = [line.split(";") for line in csv_text.splitlines()[2:]]
    casino_day = lines[0]
    assert casino_day[5:7] == ["200,00", "0,00"] and casino_day[7:9] == ["60,00", "0,00"]
    assert len(lines) == 3 * 3  # three periods: the casino, Mesa 1, reglamento
    dealer = Client()
    dealer.force_login(night.dealer)
    assert dealer.get("/reports/results/").status_code == 403


def test_the_year_before_of_a_leap_day_is_the_28th():
    from datetime import date

    assert year_before(date(2028, 2, 29)) == date(2027, 2, 28)
    assert year_before(date(2026, 11, 28)) == date(2025, 11, 28)
