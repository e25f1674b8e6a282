"""Every input kept in ``../shared/regressions/`` (one test per file: a file added there
without a test here fails ``test_every_regression_file_has_a_test``)."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db.models import Sum
from django.utils import translation

from ledger.models import Account, Entry, Transaction
from tables.models import BankTenure, Hand
from tests.conftest import SHARED

REGRESSIONS = SHARED / "regressions"

#: The files of ../shared/regressions/ that the tests below read.
COVERED = {"takeover-then-commission.jsonl"}


def test_every_regression_file_has_a_test():
    kept = {path.name for path in REGRESSIONS.iterdir() if path.name != "README.md"}
    assert kept <= COVERED, f"no test for {sorted(kept - COVERED)}"


@pytest.mark.django_db
def test_a_takeover_then_a_bank_win_with_commission_imports_all_three_hands():
    """Three americana records with ``commission_rate`` 0.05: a 7½ passes the bank in the
    second (passed in memory with the batch), the new bank wins the third and pays the
    house its commission; the import used to look for the new tenure's account in the
    database, where it was not written yet ("la banca n.º N no tiene cuenta")."""
    path = REGRESSIONS / "takeover-then-commission.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    out = StringIO()
    with translation.override("es"):
        call_command("import_hands", "--create-tables", "--opening-chips", "1000", str(path), stdout=out)
    hands = list(Hand.objects.filter(table__name="Mesa A").order_by("number"))
    assert [h.status for h in hands] == [Hand.Status.SETTLED] * 3
    assert [h.bank.code for h in hands] == [r["bank"] for r in records] == ["p21", "p21", "p26"]
    third = hands[2]
    commission = Decimal(third.settlement["commission"])
    assert commission > 0
    assert third.tenure.holder.code == "p26" and third.tenure.began == BankTenure.Began.NATURAL
    house = Account.objects.get(kind=Account.Kind.HOUSE)
    assert Entry.objects.filter(transaction=third.transaction, account=house, side=Entry.Side.CREDIT).get().amount == commission
    # Every hand posted once, and the ledger balances.
    assert Transaction.objects.filter(kind="hand").count() == 3
    sides = dict(Entry.objects.values_list("side").annotate(total=Sum("amount")))
    assert sides[Entry.Side.DEBIT] == sides[Entry.Side.CREDIT]
