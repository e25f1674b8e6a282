"""``manage.py ledger_check`` and ``manage.py ledger_balances``."""
import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from cage.services.slips import cashier_buy_in
from ledger.models import Account
from tables.bank.tenures import tenure_close
from tables.importing import hand_import_record
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def ledger(players, ana_bank, fund):
    """luis and marta buy chips (40.00 and 10.00: their stakes must be covered), then the
    p03 hand is imported at Mesa 1 under ana's bank (its posting has its hand: a hand
    posting no hand points at is a fault, ``tables.replay``)."""
    fund(players["luis"], "40.00")
    fund(players["marta"], "10.00")
    hand = hand_import_record(record={**conformance_record("p03"), "table": "Mesa 1"})
    assert hand.transaction.detail == settlement_of(conformance_record("p03")).as_dict()
    return ana_bank


def run(*args):
    out, err = StringIO(), StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue(), err.getvalue()


def test_a_sound_ledger_passes(ledger):
    code, out, err = run("ledger_check")
    assert (code, err) == (0, "")
    assert "OK" in out


def test_a_balance_altered_behind_the_triggers_back_is_caught_and_named(ledger, players):
    luis = Account.objects.get(player=players["luis"])
    with connection.cursor() as cursor:
        cursor.execute("UPDATE ledger_account SET balance = balance + 5 WHERE id = %s", [luis.id])
    code, _out, err = run("ledger_check")
    assert code == 1
    assert f"account #{luis.id} (player:luis): balance column 65.00 but its entries sum to 60.00" in err
    assert "the accounts' balances sum to 5.00, not 0" in err
    assert "2 fault(s)" in err


def test_a_reversal_that_does_not_mirror_its_original_is_caught(ledger, players, cashier):
    # Forged with raw SQL: balanced, so the triggers let it in, but it is no mirror.
    slip = cashier_buy_in(player=players["rosa"], amount=Decimal("10.00"), posted_by=cashier)
    cage = Account.objects.get(kind="cage").id
    rosa = Account.objects.get(player=players["rosa"]).id
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, memo,"
                       " detail, reverses_id) VALUES ('reversal', 'forged', 'forged', 'system:x', now(), '', '{}',"
                       " %s) RETURNING id", [slip.transaction_id])
        (forged,) = cursor.fetchone()
        cursor.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                       " (%s, %s, 'C', 9), (%s, %s, 'D', 9)", [forged, cage, forged, rosa])
        cursor.execute("UPDATE ledger_account SET balance = balance + 9 WHERE id = %s", [cage])
        cursor.execute("UPDATE ledger_account SET balance = balance - 9 WHERE id = %s", [rosa])
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
    code, _out, err = run("ledger_check")
    assert code == 1
    assert f"reversal #{forged} does not mirror transaction #{slip.transaction_id}" in err


def test_balances_as_json(ledger, players):
    code, out, _err = run("ledger_balances", "--format", "json")
    assert code == 0
    report = json.loads(out)
    balances = {row["account"]: row["balance"] for row in report["accounts"]}
    # The cage holds the cashier's open drawer's float too (1 000.00, lent by the cage floats).
    assert balances == {"cage": "-2050.00", "floats": "1000.00", "player:ana": "500.00",
                        f"tenure:{ledger.pk}": "470.00", "player:luis": "60.00", "player:marta": "20.00"}
    assert report["total"] == "0.00"
    tenure_row = next(row for row in report["accounts"] if row["kind"] == "tenure")
    assert tenure_row["owner"] == f"Mesa 1 · tenure #{ledger.pk}" and tenure_row["open"] is True


def test_balances_as_a_table(ledger):
    code, out, _err = run("ledger_balances")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["id", "account", "owner", "balance"]
    assert any(line.split()[1:] == ["player:luis", "luis", "60.00"] for line in lines)
    assert lines[-1].startswith("total 0.00 over 6 accounts")


def test_a_closed_tenure_that_still_holds_money_is_a_fault(ledger, cashier):
    tenure_close(tenure=ledger, posted_by=cashier)
    bank = Account.objects.get(tenure=ledger)
    with transaction.atomic(), connection.cursor() as cursor:
        # Forged behind the services: a balanced transaction into the closed account.
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # ALTER TABLE needs no pending trigger events
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("ALTER TABLE ledger_entry DISABLE TRIGGER ledger_entry_account_open")
        cursor.execute("INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, memo,"
                       " detail) VALUES ('hand', 'forged', 'forged-2', 'system:x', now(), '', '{}') RETURNING id")
        (forged,) = cursor.fetchone()
        cage = Account.objects.get(kind="cage").id
        cursor.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                       " (%s, %s, 'C', 3), (%s, %s, 'D', 3)", [forged, bank.id, forged, cage])
        cursor.execute("UPDATE ledger_account SET balance = balance + 3 WHERE id = %s", [bank.id])
        cursor.execute("UPDATE ledger_account SET balance = balance - 3 WHERE id = %s", [cage])
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("ALTER TABLE ledger_entry ENABLE TRIGGER ledger_entry_account_open")
    code, _out, err = run("ledger_check")
    assert code == 1
    assert f"account #{bank.id} (tenure:{ledger.pk}) is closed but holds 3.00" in err
    assert f"transaction #{forged} (forged) is a hand posting no hand points at" in err
    assert f"transaction #{forged} (hand, forged) is not signed with the ledger's key" in err
    assert "3 fault(s)" in err
