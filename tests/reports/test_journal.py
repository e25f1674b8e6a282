"""The accounting journal of a gaming day: one balanced entry per kind of posting, lines per
account of the casino's chart, totals equal to the movement of `ledger_balances` over the
day; CSV in the reader's locale, JSON for an accounting system, the page and the API for
the auditor only; a chart that names an unknown account kind is refused."""

import json
import re
from collections import defaultdict
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from boxes.services import table_buy_in, table_tip
from casino.periods import gaming_day
from ledger.chips import chips_transfer
from ledger.models import Account, Entry
from reports.journal import chart, journal_day, journal_json
from tests.api.conftest import Api

pytestmark = pytest.mark.django_db
D = Decimal


def balances_by_kind():
    """``manage.py ledger_balances --format json``, summed per account kind."""
    out = StringIO()
    call_command("ledger_balances", "--format", "json", stdout=out)
    kinds = dict(Account.objects.values_list("id", "kind"))
    totals = defaultdict(Decimal)
    for row in json.loads(out.getvalue())["accounts"]:
        totals[kinds[row["id"]]] += Decimal(row["balance"])
    return totals


@pytest.fixture
def day_of_play(played):
    """The reports' known shift (hands, a takeover, an undo, a void), a table buy-in, a tip
    and a chip transfer, all on today's gaming day."""
    mesa = played
    shift = mesa.shift
    table_buy_in(shift=shift, player=mesa.players["pepe"], amount=D("200.00"), recorded_by=mesa.dealer)
    table_tip(shift=shift, player=mesa.players["luis"], amount=D("5.00"), recorded_by=mesa.dealer)
    chips_transfer(giver=mesa.players["rosa"], receiver=mesa.players["marta"], amount=D("25.00"),
                   reason="le presta", posted_by=mesa.supervisor)
    return mesa


def test_the_journal_balances_and_equals_the_ledgers_movement_for_the_day(day_of_play):
    before = defaultdict(Decimal)  # a fresh database: every account started the day at zero
    after = balances_by_kind()
    journal = journal_day(day=gaming_day(timezone.now()))
    assert journal.faults == []
    assert journal.debit == journal.credit > 0
    for entry in journal.entries:
        assert entry.debit == entry.credit, entry
    kinds = {entry.kind for entry in journal.entries}
    assert {"buy_in", "hand", "table_buy_in", "tip", "transfer"} <= kinds
    codes = chart()
    for kind, moved in ((kind, after[kind] - before[kind]) for kind in Account.Kind.values):
        code = codes[kind][0]
        net = journal.accounts.get(code, {"net": D("0.00")})["net"]
        assert net == moved, (kind, net, moved)
    # Every entry of the day is in it, once.
    assert journal.debit == sum(Entry.objects.filter(side="D").values_list("amount", flat=True))


def test_the_journal_as_csv_json_page_and_api_for_the_auditor_only(day_of_play, settings):
    settings.ACCOUNTING_CHART = {"cage": ["570000", "Caja central"]}
    mesa = day_of_play
    day = gaming_day(timezone.now())
    client = Client()
    client.force_login(mesa.staff["auditor"])
    page = client.get(f"/reports/journal/?day={day.isoformat()}", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Caja central" in page and "570000" in page and 'id="reconciled"' in page
    csv_text = client.get(f"/reports/journal/?day={day.isoformat()}&format=csv",
                          HTTP_ACCEPT_LANGUAGE="es").content.decode()
    lines = csv_text.splitlines()
    assert lines[1].split(";")[:3] == ["Fecha", "Asiento", "Descripción"]
    rows = [line.split(";") for line in lines[2:]]
    assert any(row[4] == "570000" for row in rows)
    assert all(re.fullmatch(r"\d+,\d\d", field) for row in rows for field in row[-2:]), rows
    as_json = client.get(f"/reports/journal/?day={day.isoformat()}&format=json").json()
    assert as_json == json.loads(json.dumps(journal_json(journal_day(day=day))))
    assert as_json["debit"] == as_json["credit"] and as_json["faults"] == []
    assert Api(mesa.staff["auditor"]).get("/api/journal/", day=day.isoformat()).json()["debit"] == as_json["debit"]
    bad = Api(mesa.staff["auditor"]).get("/api/journal/", day="ayer")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "day"
    dealer = Client()
    dealer.force_login(mesa.dealer)
    assert dealer.get("/reports/journal/").status_code == 403
    assert Api(mesa.dealer).get("/api/journal/").status_code == 403
    out = StringIO()
    call_command("journal", "--day", day.isoformat(), "--format", "json", stdout=out)
    assert json.loads(out.getvalue())["debit"] == as_json["debit"]


def test_every_kind_of_ledger_account_has_a_place_in_the_default_chart():
    assert set(chart()) == set(Account.Kind.values)


def test_a_chart_naming_an_account_kind_the_ledger_lacks_is_refused(settings):
    settings.ACCOUNTING_CHART = {"bar": ["6000", "Bar"]}
    with pytest.raises(ValueError, match="bar"):
        chart()


def test_a_quiet_day_has_an_empty_journal(db):
    journal = journal_day(day=gaming_day(timezone.now()))
    assert journal.entries == [] and journal.faults == [] and journal.debit == 0
