"""Every ledger transaction points at what justifies it, and that record points back
(issue 29, point 3): balanced postings inserted by SQL as the app's role — a copy of a
buy-in's two legs, a "transfer" from the cage, a second opening, a slip's reversal with no
void — each is an orphan that ``ledger_check`` names; the honest books of a played shift
with a void, buy-ins and a slip's void stay quiet."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from cage.services.slips import cashier_buy_in, cashier_slip_void
from ledger.chips import chips_opening
from ledger.models import Account, Transaction
from reports.justification import orphan_transactions
from tests.factories import UserFactory
from tests.test_database_roles import app_role, as_app  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def forge(db, *, kind, cause, legs, key):
    """As the app's role: a balanced transaction with its entries and the balances moved
    to match (what the app's grants allow)."""
    with db.transaction():
        pk = db.execute("INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, memo, "
                        "detail, cause) VALUES (%s, 'forged', %s, 'system:sql', now(), '', '{}', %s) RETURNING id",
                        [kind, key, json.dumps(cause)]).fetchone()[0]
        for account, side, amount in legs:
            db.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES (%s, %s, %s, %s)",
                       [pk, account, side, amount])
            db.execute("UPDATE ledger_account SET balance = balance + %s WHERE id = %s",
                       [amount if side == "C" else -amount, account])
    return pk


def check():
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", stdout=out, stderr=err)
        return 0, err.getvalue()
    except SystemExit as exit_:
        return exit_.code, err.getvalue()


@pytest.fixture
def books(played, staff):
    """The played shift (hands, a takeover, a void) and the cage: two buy-ins, one voided."""
    luis = played.players["luis"]
    cashier_buy_in(player=luis, amount=Decimal("50.00"), posted_by=staff["cashier"])
    second = cashier_buy_in(player=luis, amount=Decimal("20.00"), posted_by=staff["cashier"])
    cashier_slip_void(slip=second, reason="counted twice", voided_by=UserFactory(username="jefa",
                                                                                 roles=["cage_supervisor"]))
    return played


def test_honest_books_have_no_orphan(books):
    assert orphan_transactions() == []
    assert check()[0] == 0


def test_a_copy_of_a_buy_ins_legs_is_an_orphan(books, as_app):  # noqa: F811
    buy_in = Transaction.objects.filter(kind="buy_in").first()
    legs = [(entry.account_id, entry.side, entry.amount) for entry in buy_in.entries.all()]
    forged = forge(as_app, kind="buy_in", cause=buy_in.cause, legs=legs, key="copy-1")
    assert [(fault["transaction"], fault["kind"]) for fault in orphan_transactions()] == [(forged, "buy_in")]
    code, err = check()
    assert code == 1 and f"transaction #{forged} (buy-in, forged) has no record that justifies it" in err


def test_a_transfer_from_the_cage_is_an_orphan(books, as_app):  # noqa: F811
    cage = Account.objects.get(kind=Account.Kind.CAGE).pk
    marta = Account.objects.get(player=books.players["marta"]).pk
    forged = forge(as_app, kind="transfer", cause={"kind": "transfer", "giver": "cage", "receiver": "marta"},
                   legs=[(cage, "D", Decimal("777.00")), (marta, "C", Decimal("777.00"))], key="gift-777")
    assert [fault["transaction"] for fault in orphan_transactions()] == [forged]


def test_a_second_opening_is_an_orphan_and_the_first_is_not(books, as_app):  # noqa: F811
    rosa = books.players["rosa"]
    chips_opening(player=rosa, amount=Decimal("10.00"))
    cage = Account.objects.get(kind=Account.Kind.CAGE).pk
    forged = forge(as_app, kind="opening", cause={"kind": "opening", "player": rosa.code},
                   legs=[(cage, "D", Decimal("5000.00")), (Account.objects.get(player=rosa).pk, "C", Decimal("5000.00"))],
                   key=f"opening-again:{rosa.pk}")
    assert {fault["transaction"] for fault in orphan_transactions()} >= {forged}


def test_a_slips_reversal_with_no_void_is_an_orphan(books, as_app):  # noqa: F811
    buy_in = Transaction.objects.filter(kind="buy_in", slip__void__isnull=True).first()
    legs = [(entry.account_id, "C" if entry.side == "D" else "D", entry.amount) for entry in buy_in.entries.all()]
    with as_app.transaction():
        pk = as_app.execute("INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, "
                            "memo, detail, cause, reverses_id) VALUES ('reversal', 'forged', 'undo-1', 'system:sql', "
                            "now(), '', '{}', '{}', %s) RETURNING id", [buy_in.pk]).fetchone()[0]
        for account, side, amount in legs:
            as_app.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) "
                           "VALUES (%s, %s, %s, %s)", [pk, account, side, amount])
    assert [fault["transaction"] for fault in orphan_transactions()] == [pk]
