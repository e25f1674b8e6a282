"""Every ledger transaction points at what justifies it, and that record points back
(issue 29, point 3): balanced postings inserted by SQL as the app's role — a copy of a
buy-in's two legs, a "transfer" from the cage, a transfer between two players with no
record, a withdrawal or a drawer's float with none, a second opening, a slip's reversal
with no void — each is an orphan that ``ledger_check`` names; the honest books of a played
shift with a void, buy-ins, a slip's void, a chip transfer, a bank withdrawal and a closed
drawer stay quiet. The records themselves are append-only and match their postings
(PostgreSQL)."""

import json
from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.utils import translation

from cage.models import Drawer
from cage.services.drawer import drawer_close
from cage.services.slips import cashier_buy_in, cashier_slip_void
from ledger.chips import chips_opening, chips_transfer
from ledger.models import Account, ChipTransfer, Transaction
from reports.justification import orphan_transactions
from tables import services
from tables.models import BankTenure, BankWithdrawal
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
    """The played shift (hands, a takeover, a void) and the cage: two buy-ins, one voided; a
    chip transfer from marta to pepe; luis withdraws 5.00 from his bank; caja1's drawer closed."""
    luis = played.players["luis"]
    cashier_buy_in(player=luis, amount=Decimal("50.00"), posted_by=staff["cashier"])
    second = cashier_buy_in(player=luis, amount=Decimal("20.00"), posted_by=staff["cashier"])
    supervisor = UserFactory(username="jefa", roles=["cage_supervisor"])
    cashier_slip_void(slip=second, reason="counted twice", voided_by=supervisor)
    chips_transfer(giver=played.players["marta"], receiver=played.players["pepe"], amount=Decimal("15.00"),
                   reason="a debt", posted_by=staff["supervisor"])
    services.table_bank_withdraw(table=played.table, amount=Decimal("5.00"), by=staff["supervisor"])
    drawer = Drawer.objects.get(cashier=staff["cashier"], closed_at__isnull=True)
    drawer_close(drawer=drawer, cashier=staff["cashier"], supervisor=supervisor, count={"50.00": 3})
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


def test_the_books_records_point_at_their_postings(books):
    transfer = ChipTransfer.objects.get()
    assert (transfer.transaction.kind, transfer.giver.code, transfer.receiver.code, transfer.amount) == (
        "transfer", "marta", "pepe", Decimal("15.00"))
    withdrawal = BankWithdrawal.objects.get()
    assert (withdrawal.transaction.kind, withdrawal.number, withdrawal.amount) == (
        "bank_withdrawal", 1, Decimal("5.00"))
    drawer = Drawer.objects.get()
    assert drawer.float_transaction.kind == "drawer_float" and drawer.close_transaction.kind == "drawer_close"


def test_a_transfer_between_two_players_with_no_record_is_an_orphan(books, as_app):  # noqa: F811
    marta = Account.objects.get(player=books.players["marta"]).pk
    rosa = Account.objects.get(player=books.players["rosa"]).pk
    forged = forge(as_app, kind="transfer", cause={"kind": "transfer", "giver": "marta", "receiver": "rosa"},
                   legs=[(marta, "D", Decimal("300.00")), (rosa, "C", Decimal("300.00"))], key="gift-300")
    assert [(fault["transaction"], fault["kind"]) for fault in orphan_transactions()] == [(forged, "transfer")]
    code, err = check()
    assert code == 1 and f"transaction #{forged} (chip transfer, forged)" in err


def test_a_withdrawal_with_no_record_is_an_orphan(books, as_app):  # noqa: F811
    tenure = BankTenure.objects.get(closed_at__isnull=True)
    luis = Account.objects.get(player=books.players["luis"]).pk
    forged = forge(as_app, kind="bank_withdrawal", cause={"kind": "bank_withdrawal", "number": 2, "tenure": tenure.pk},
                   legs=[(tenure.account_id, "D", Decimal("20.00")), (luis, "C", Decimal("20.00"))], key="take-20")
    assert [fault["transaction"] for fault in orphan_transactions()] == [forged]


def test_a_float_with_no_drawer_naming_it_is_an_orphan(books, as_app):  # noqa: F811
    drawer = Drawer.objects.get()
    cage = Account.objects.get(kind=Account.Kind.CAGE).pk
    floats = Account.objects.get(kind=Account.Kind.FLOATS).pk
    forged = forge(as_app, kind="drawer_float", cause={"kind": "drawer_float", "drawer": drawer.pk},
                   legs=[(cage, "D", Decimal("900.00")), (floats, "C", Decimal("900.00"))], key="float-again")
    assert [fault["transaction"] for fault in orphan_transactions()] == [forged]


def test_a_drawer_that_lent_a_float_names_its_posting(books, as_app):  # noqa: F811
    """The records' side: a drawer opened by SQL with a float and no posting is named."""
    from tests.factories import UserFactory as Users

    cashier = Users(username="caja9", roles=["cashier"])
    with as_app.transaction():
        pk = as_app.execute("INSERT INTO cage_drawer (cashier_id, opened_at, float_count, float_amount, note) "
                            "VALUES (%s, now(), '{\"50.00\": 2}', 100.00, '') RETURNING id",
                            [cashier.pk]).fetchone()[0]
    assert orphan_transactions() == [{"code": "record_without_posting", "drawer": pk, "kind": "drawer_float"}]
    code, err = check()
    assert code == 1 and f"drawer #{pk} lent a float but names no posting of it" in err


def test_the_records_are_append_only_and_match_their_postings(books, as_app):  # noqa: F811
    import psycopg

    transfer, withdrawal = ChipTransfer.objects.get(), BankWithdrawal.objects.get()
    buy_in = Transaction.objects.filter(kind="buy_in").first()
    refused = [
        ("UPDATE ledger_chiptransfer SET amount = 1500 WHERE id = %s", [transfer.pk]),
        ("DELETE FROM ledger_chiptransfer WHERE id = %s", [transfer.pk]),
        ("UPDATE tables_bankwithdrawal SET amount = 1 WHERE id = %s", [withdrawal.pk]),
        ("DELETE FROM tables_bankwithdrawal WHERE id = %s", [withdrawal.pk]),
        # A record pointed at a posting that is not its own kind, or moves other money:
        ("INSERT INTO ledger_chiptransfer (transaction_id, giver_id, receiver_id, amount, reason, recorded_by_id, "
         "recorded_at) VALUES (%s, %s, %s, 50, 'x', %s, now())",
         [buy_in.pk, transfer.giver_id, transfer.receiver_id, transfer.recorded_by_id]),
        ("UPDATE cage_drawer SET float_transaction_id = %s WHERE id = %s",
         [buy_in.pk, Drawer.objects.get().pk]),
    ]
    for sql, params in refused:  # by the app role's grants or by the records' guards
        with pytest.raises(psycopg.Error):
            with as_app.transaction():
                as_app.execute(sql, params)
    assert (ChipTransfer.objects.get().amount, BankWithdrawal.objects.get().amount) == (
        Decimal("15.00"), Decimal("5.00"))
    assert Drawer.objects.get().float_transaction.kind == "drawer_float"
