"""Every posting signed, every hand's opening signed (issue 29, items 1 and 2): what
someone holding the app's database password (the app's role) or the database's owner
(triggers off) can write without the key is named by ``manage.py ledger_check`` and on
the integrity page; honest books, the demo's included, stay clean, and so does a plain
``pg_dump -Fc`` and ``pg_restore`` of the demo into a new database.

As the app's role (``casino.dbroles``): a balanced transaction inserted by SQL — a copy
of a buy-in's two legs (its signature copied too), a transfer of 777.00 from the cage to
a player, an opening of 5,000.00 — passes every trigger, and is a fault naming it; an
entry added to a posted transaction is refused. As the owner, who can turn the triggers
off and make the rows agree with each other: a leg's amount changed, a leg added, a
hand's commission rate or a seat changed, are faults. These tests commit (the app's
role is another connection), so they are transactional.
"""

import os
import shutil
import subprocess
import sys
from decimal import Decimal
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import translation
from psycopg import errors

from ledger.chips import chips_transfer
from ledger.models import Account, Entry, Transaction
from tests.conftest import ROOT, database_url
from tests.test_database_roles import app_role, mesa, server_params  # noqa: F401 (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)

#: luis alone against the bank, and wins (7 against 6): the bank wins nothing, so no
#: commission is due whatever its rate; the hand replays alike under any rate.
BANK_LOSES = ["luis deal 5O", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand", "bank card 4E",
              "bank stand"]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def ledger_check():
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", stdout=out, stderr=err)
        return 0, err.getvalue()
    except SystemExit as exit_:
        return exit_.code, err.getvalue()


def integrity_page(table, user):
    client = Client()
    client.force_login(user)
    client.cookies["django_language"] = "en"
    response = client.get(reverse("tables:hand_integrity", args=[table.pk]))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def as_app(app_role):  # noqa: F811 (the fixture imported above)
    """A psycopg connection to the test database as the app's role, autocommit off: each
    attack is one database transaction, committed."""
    with psycopg.connect(**server_params(user=app_role, password="app-role-test")) as db:
        yield db


def as_the_owner(*statements):
    """Statements with the triggers off (``session_replication_role = replica``), in one
    database transaction: what only the database's owner (or a superuser) can do."""
    with connection.cursor() as cursor:
        cursor.execute("BEGIN")
        cursor.execute("SET LOCAL session_replication_role = replica")
        for sql, params in statements:
            cursor.execute(sql, params)
        cursor.execute("COMMIT")


def forge(db, *, kind, reference, key, legs, posted_by_id=None, source="system:forged", copy_of=None):
    """Insert, as ``db``'s role, one balanced transaction and its legs and move the
    balances to match: what the app's role may do by SQL. Without ``copy_of``, only the
    columns a transaction had before it was signed (the database fills the others);
    with it, the Transaction whose signature, previous signature, key id, number of legs
    and cause are copied. Returns the new id."""
    columns, values = [], []
    if copy_of is not None:
        cause = Transaction.objects.filter(pk=copy_of.pk).values_list("cause", flat=True).get()
        columns = ["cause", "signature", "previous_signature", "key_id", "legs"]
        values = [psycopg.types.json.Jsonb(cause), copy_of.signature, copy_of.previous_signature, copy_of.key_id,
                  copy_of.legs]
    with db.transaction():
        (tx_id,) = db.execute(
            "INSERT INTO ledger_transaction (kind, reference, idempotency_key, posted_by_id, source, posted_at, memo,"
            f" detail{''.join(', ' + column for column in columns)})"
            f" VALUES (%s, %s, %s, %s, %s, now(), '', '{{}}'{', %s' * len(values)}) RETURNING id",
            [kind, reference, key, posted_by_id, source, *values]).fetchone()
        for account_id, side, amount in legs:
            db.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES (%s, %s, %s, %s)",
                       [tx_id, account_id, side, amount])
            db.execute("UPDATE ledger_account SET balance = balance + %s WHERE id = %s",
                       [amount if side == "C" else -amount, account_id])
    return tx_id


def test_a_copy_of_a_buy_in_inserted_as_the_app_s_role_is_a_fault(mesa, as_app, staff):  # noqa: F811
    buy_in = Transaction.objects.filter(kind="buy_in").order_by("id").first()
    legs = list(buy_in.entries.order_by("id").values_list("account_id", "side", "amount"))
    forged = forge(as_app, kind="buy_in", reference=buy_in.reference, key=f"{buy_in.idempotency_key}-again",
                   legs=legs, posted_by_id=buy_in.posted_by_id, source=buy_in.source, copy_of=buy_in)
    code, err = ledger_check()
    assert code == 1
    assert f"FAULT: transaction #{forged} (buy_in, {buy_in.reference}) does not match its signature" in err
    page = integrity_page(mesa.table, staff["auditor"])
    assert f"transaction #{forged} (buy_in, {buy_in.reference}) does not match its signature" in page


def test_a_transfer_of_777_from_the_cage_inserted_as_the_app_s_role_is_a_fault(mesa, as_app, staff):  # noqa: F811
    cage = Account.objects.get(kind="cage").id
    luis = Account.objects.get(player=mesa.players["luis"]).id
    forged = forge(as_app, kind="transfer", reference="cage → luis", key="forged-transfer",
                   legs=[(cage, "D", Decimal("777.00")), (luis, "C", Decimal("777.00"))])
    code, err = ledger_check()
    assert code == 1
    assert (f"FAULT: transaction #{forged} (transfer, cage → luis) is not signed with the ledger's key: it was not "
            "posted by the ledger") in err
    assert "transaction #" in integrity_page(mesa.table, staff["auditor"])


def test_an_opening_of_5000_inserted_as_the_app_s_role_is_a_fault(mesa, as_app):  # noqa: F811
    cage = Account.objects.get(kind="cage").id
    marta = Account.objects.get(player=mesa.players["marta"]).id
    honest = Transaction.objects.order_by("-id").first()
    # Made to look chained: the last transaction's signature as its previous one, a signature of its own.
    with as_app.transaction():
        (forged,) = as_app.execute(
            "INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, memo, detail,"
            " cause, signature, previous_signature, key_id, legs) VALUES ('opening', 'opening chips marta',"
            " 'opening:forged', 'system:import', now(), '', '{}', '{}', %s, %s, '1', 2) RETURNING id",
            ["ab" * 32, honest.signature]).fetchone()
        as_app.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                       " (%s, %s, 'D', 5000), (%s, %s, 'C', 5000)", [forged, cage, forged, marta])
        as_app.execute("UPDATE ledger_account SET balance = balance - 5000 WHERE id = %s", [cage])
        as_app.execute("UPDATE ledger_account SET balance = balance + 5000 WHERE id = %s", [marta])
    code, err = ledger_check()
    assert code == 1
    assert f"FAULT: transaction #{forged} (opening, opening chips marta) does not match its signature" in err


def test_an_entry_added_to_a_posted_transaction_as_the_app_s_role_is_refused(mesa, as_app):  # noqa: F811
    buy_in = Transaction.objects.filter(kind="buy_in").order_by("id").first()
    cage = Account.objects.get(kind="cage").id
    luis = Account.objects.get(player=mesa.players["luis"]).id
    with pytest.raises(errors.IntegrityConstraintViolation, match=f"ledger transaction {buy_in.pk} is posted"):
        with as_app.transaction():
            as_app.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                           " (%s, %s, 'D', 500), (%s, %s, 'C', 500)", [buy_in.pk, cage, buy_in.pk, luis])
    assert Entry.objects.filter(transaction=buy_in).count() == 2


@pytest.fixture
def transfer(mesa):  # noqa: F811
    """100.00 of chips handed from luis to marta: a posting no other record (slip, hand)
    repeats, so only its signature can tell it was changed."""
    return chips_transfer(giver=mesa.players["luis"], receiver=mesa.players["marta"], amount=Decimal("100.00"),
                          reason="deuda", posted_by=mesa.supervisor)


def test_a_leg_s_amount_changed_by_the_owner_is_a_fault(transfer):
    luis, marta = (Account.objects.get(player__code=code).id for code in ("luis", "marta"))
    # Both legs, the balances, and the transaction's row itself (its entries then look
    # written with it): the books balance and agree.
    as_the_owner(("UPDATE ledger_entry SET amount = 400 WHERE transaction_id = %s", [transfer.pk]),
                 ("UPDATE ledger_transaction SET memo = memo WHERE id = %s", [transfer.pk]),
                 ("UPDATE ledger_account SET balance = balance - 300 WHERE id = %s", [luis]),
                 ("UPDATE ledger_account SET balance = balance + 300 WHERE id = %s", [marta]))
    code, err = ledger_check()
    assert code == 1
    assert f"FAULT: transaction #{transfer.pk} (transfer, {transfer.reference}) does not match its signature" in err


def test_a_posting_s_time_moved_by_a_microsecond_by_the_owner_is_a_fault(transfer):
    """The signed time is read in UTC without its zone (``ledger.signing._READ_SQL``): the
    honest transfer checks clean in a session of another time zone, and the same posting
    moved by one microsecond does not match its signature."""
    from ledger.signing import signature_scan

    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'America/Havana'")
        try:
            assert signature_scan()[0] == []
        finally:
            cursor.execute("SET TIME ZONE 'UTC'")
    as_the_owner(("UPDATE ledger_transaction SET posted_at = posted_at + interval '1 microsecond' WHERE id = %s",
                  [transfer.pk]))
    code, err = ledger_check()
    assert code == 1
    assert f"FAULT: transaction #{transfer.pk} (transfer, {transfer.reference}) does not match its signature" in err


def test_a_leg_added_by_the_owner_is_a_fault(transfer):
    luis, marta = (Account.objects.get(player__code=code).id for code in ("luis", "marta"))
    # The new legs, and the transaction's row and its first legs rewritten as they were, so
    # that every row of it looks written by one database transaction.
    as_the_owner(("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                  " (%s, %s, 'D', 50), (%s, %s, 'C', 50)", [transfer.pk, luis, transfer.pk, marta]),
                 ("UPDATE ledger_transaction SET memo = memo WHERE id = %s", [transfer.pk]),
                 ("UPDATE ledger_entry SET amount = amount WHERE transaction_id = %s", [transfer.pk]),
                 ("UPDATE ledger_account SET balance = balance - 50 WHERE id = %s", [luis]),
                 ("UPDATE ledger_account SET balance = balance + 50 WHERE id = %s", [marta]))
    code, err = ledger_check()
    assert code == 1
    assert (f"FAULT: transaction #{transfer.pk} (transfer, {transfer.reference}) has 4 entries but was posted "
            "with 2: entries were added or removed after it was posted") in err


@pytest.fixture
def bank_lost(mesa):  # noqa: F811
    """A settled hand luis won alone: no commission is due, whatever the rate."""
    hand = mesa.play(mesa.open("luis"), *BANK_LOSES)
    assert hand.status == "settled" and Decimal(hand.settlement["commission"]) == 0
    return hand


def test_a_hand_s_commission_rate_changed_by_the_owner_is_a_fault(bank_lost, mesa, staff):  # noqa: F811
    rules = {**({"profile": bank_lost.rules} if isinstance(bank_lost.rules, str) else bank_lost.rules),
             "commission_rate": "0.5"}
    as_the_owner(("UPDATE tables_hand SET rules = %s WHERE id = %s",
                  [psycopg.types.json.Jsonb(rules), bank_lost.pk]))
    code, err = ledger_check()
    assert code == 1
    words = (f"hand #{bank_lost.number}: its table, seats, bank, rules or limits are not those it was opened with "
             "(changed after the fact)")
    assert f"FAULT: Mesa 1: {words}" in err
    assert words in integrity_page(mesa.table, staff["auditor"])


def test_a_hand_s_seat_changed_by_the_owner_is_a_fault(bank_lost):
    as_the_owner(("UPDATE tables_hand SET seats = %s WHERE id = %s",
                  [psycopg.types.json.Jsonb(["luis", "pepe"]), bank_lost.pk]))
    code, err = ledger_check()
    assert code == 1
    assert (f"FAULT: Mesa 1: hand #{bank_lost.number}: its table, seats, bank, rules or limits are not those it was "
            "opened with (changed after the fact)") in err


def test_honest_play_is_clean(mesa, bank_lost, transfer, staff):  # noqa: F811
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10",
              "luis card 2B", "luis stand", "marta bet 20", "marta card 1O", "marta stand", "bank card 4E",
              "bank stand")
    code, err = ledger_check()
    assert (code, err) == (0, "")
    page = integrity_page(mesa.table, staff["auditor"])
    assert "errorlist" not in page
    assert "every posting of the ledger is signed with its key, whole and chained" in page


def test_the_demo_is_clean():
    call_command("demo", stdout=StringIO())
    code, err = ledger_check()
    assert (code, err) == (0, "")
    assert Transaction.objects.exists() and not Transaction.objects.filter(signature="").exists()
    assert not Transaction.objects.filter(hand__signature="").exists()


#: PostgreSQL 15's client programs (the server's version), else those on the PATH.
PG_BIN = Path("/usr/lib/postgresql/15/bin")


def pg_program(name):
    program = PG_BIN / name
    return str(program) if program.exists() else shutil.which(name)


def test_a_plain_pg_restore_of_the_demo_is_clean(tmp_path):
    """issue 29: a backup made with ``pg_dump -Fc`` and restored with a plain ``pg_restore``
    into a new database gives a clean ``ledger_check`` (each table is restored by a
    database transaction of its own: nothing may rest on PostgreSQL's transaction ids),
    and the guards hold in the restored database (a late entry is still refused)."""
    call_command("demo", stdout=StringIO())
    assert ledger_check() == (0, "")
    params = server_params()
    env = {**os.environ, "PGHOST": params.get("host", "127.0.0.1"), "PGPORT": str(params.get("port", 5432)),
           "PGUSER": params.get("user", "postgres"), "PGPASSWORD": params.get("password", "")}
    dump, restored = tmp_path / "casino.dump", f"{params['dbname']}_restored"[:63]
    subprocess.run([pg_program("pg_dump"), "-Fc", "-f", str(dump), params["dbname"]], env=env, check=True,
                   capture_output=True, timeout=300)
    owner = {**params, "dbname": "postgres"}
    with psycopg.connect(**owner, autocommit=True) as admin:
        admin.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
        admin.execute(f'CREATE DATABASE "{restored}"')
    try:
        done = subprocess.run([pg_program("pg_restore"), "-d", restored, str(dump)], env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        url = database_url(dbname=restored, user=params.get("user"), password=params.get("password"),
                           host=params.get("host"), port=params.get("port"))
        check = subprocess.run([sys.executable, "manage.py", "ledger_check"], cwd=ROOT, capture_output=True, text=True,
                               timeout=600, env={**os.environ, "DATABASE_URL": url,
                                                 "DJANGO_SETTINGS_MODULE": "casino.settings.test",
                                                 # the restored copy keeps its witness identity: same file
                                                 "SEAL_WITNESS_DIR": str(settings.SEAL_WITNESS_DIR)})
        assert check.returncode == 0, check.stdout + check.stderr
        assert "ledger_check: OK" in check.stdout
        with psycopg.connect(**{**params, "dbname": restored}) as db:
            tx_id, account_id = db.execute("SELECT transaction_id, account_id FROM ledger_entry LIMIT 1").fetchone()
            with pytest.raises(errors.IntegrityConstraintViolation, match=f"ledger transaction {tx_id} is posted"):
                db.execute("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                           " (%s, %s, 'D', 1), (%s, %s, 'C', 1)", [tx_id, account_id, tx_id, account_id])
    finally:
        with psycopg.connect(**owner, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{restored}" WITH (FORCE)')
