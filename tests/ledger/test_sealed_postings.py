"""Sealed postings and the ledger's audit of chips and slips (issues 14 and 29).

As the application would (triggers on): an entry added to a transaction posted in an
earlier database transaction is refused by PostgreSQL, even balanced; a hand is not
voided by SQL before its posting is reversed. As the database owner (triggers off with
``session_replication_role = replica``): the issue's attack on slip 000001 and a
player's chips below zero are found by ``ledger_check``. These tests commit (each
service call its own database transaction), so they are transactional.
"""

from decimal import Decimal
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction

from cage.models import CashierSlip
from cage.services.slips import cashier_buy_in, cashier_cash_out
from ledger.models import Account, Entry
from ledger.selectors import ledger_faults
from tables.settlement import ledger_post_settlement
from tests.hands import settled

pytestmark = pytest.mark.django_db(transaction=True)


def sql(statement, params=()):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


def check():
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", stdout=out, stderr=err)
        return 0, err.getvalue()
    except SystemExit as exit_:
        return exit_.code, err.getvalue()


@pytest.fixture
def slip_one(players, fund):
    """Slip 000001: luis buys 2,000.00 of chips."""
    return fund(players["luis"], "2000.00")


def test_a_balanced_pair_added_to_a_posted_transaction_is_refused(slip_one, players):
    cage = Account.objects.get(kind="cage").id
    luis = Account.objects.get(player=players["luis"]).id
    with pytest.raises(IntegrityError, match=f"ledger transaction {slip_one.transaction_id} is posted and sealed"):
        with transaction.atomic():
            sql("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
                " (%s, %s, 'D', 500), (%s, %s, 'C', 500)",
                [slip_one.transaction_id, cage, slip_one.transaction_id, luis])
    assert Entry.objects.filter(transaction_id=slip_one.transaction_id).count() == 2


def test_an_old_transaction_cannot_be_unsealed(slip_one):
    # The seal is the number of entries it was posted with (signed); the row never changes (append-only).
    with pytest.raises(IntegrityError, match="append-only"):
        with transaction.atomic():
            sql("UPDATE ledger_transaction SET legs = 4 WHERE id = %s", [slip_one.transaction_id])


def test_a_posting_made_inside_savepoints_is_sealed_by_its_top_level_transaction(players, cashier):
    with transaction.atomic():  # the service's own atomic blocks are savepoints in here
        with transaction.atomic():
            slip = cashier_buy_in(player=players["luis"], amount=Decimal("5.00"), posted_by=cashier)
        cashier_cash_out(player=players["luis"], amount=Decimal("1.00"), posted_by=cashier)
    assert Entry.objects.filter(transaction_id=slip.transaction_id).count() == 2 and ledger_faults() == []


def test_postings_still_write_their_entries_in_their_own_transaction(players, fund, cashier):
    fund(players["luis"], "100.00")
    cashier_cash_out(player=players["luis"], amount=Decimal("40.00"), posted_by=cashier)
    assert ledger_faults() == []


def test_the_issue_s_attack_as_the_owner_is_found_by_ledger_check(slip_one, players, fund):
    """issue 14 #3: as the owner, a balanced pair into transaction 1 and both balances
    adjusted: the triggers are off, ledger_check names the slip and the late entries."""
    fund(players["marta"], "10.00")
    cage = Account.objects.get(kind="cage").id
    luis = Account.objects.get(player=players["luis"]).id
    tx_id = slip_one.transaction_id
    with transaction.atomic():
        sql("SET LOCAL session_replication_role = replica")
        sql("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES"
            " (%s, %s, 'D', 500), (%s, %s, 'C', 500)", [tx_id, cage, tx_id, luis])
        sql("UPDATE ledger_account SET balance = balance - 500 WHERE id = %s", [cage])
        sql("UPDATE ledger_account SET balance = balance + 500 WHERE id = %s", [luis])
    code, err = check()
    assert code == 1
    assert (f"cashier slip 000001 reads 2000.00 but its transaction #{tx_id} moves 2500.00 in 4 entries: "
            "not the slip's two legs") in err
    assert (f"transaction #{tx_id} (buy_in, slip 000001) has 4 entries but was posted with 2: entries were added "
            "or removed after it was posted") in err
    assert f"transaction #{tx_id} (buy_in, slip 000001) does not match its signature" in err
    assert "3 fault(s)" in err  # slip 000002 and its transaction are sound


def test_a_slip_whose_transaction_moves_another_player_s_chips_is_found(slip_one, players):
    """The same amounts, on marta's chips instead of luis's: the legs are not the slip's."""
    marta = Account.objects.create(kind="player", player=players["marta"]).id
    luis = Account.objects.get(player=players["luis"]).id
    entry = Entry.objects.get(transaction_id=slip_one.transaction_id, side="C")
    with transaction.atomic():
        sql("SET LOCAL session_replication_role = replica")
        sql("UPDATE ledger_entry SET account_id = %s WHERE id = %s", [marta, entry.id])
        sql("UPDATE ledger_account SET balance = balance - 2000 WHERE id = %s", [luis])
        sql("UPDATE ledger_account SET balance = balance + 2000 WHERE id = %s", [marta])
    faults = ledger_faults()
    assert any(fault.startswith("cashier slip 000001 reads 2000.00") for fault in faults)
    assert (f"transaction #{slip_one.transaction_id} (buy_in, slip 000001) does not match its signature: it or its "
            "entries were changed, or it was not posted by the ledger") in faults


def test_a_player_s_chips_below_zero_are_a_fault(players, ana_bank):
    # A settlement posted straight to the ledger, behind the tables' check: luis never bought chips.
    ledger_post_settlement(tenure=ana_bank, settlement=settled("luis deal 5O", "bank deal 2E",
                                                                        "luis bet 10", "luis card 6B"),
                                    idempotency_key="h", reference="hand Mesa 1 #3")
    luis = Account.objects.get(player=players["luis"])
    code, err = check()
    assert code == 1
    assert f"account #{luis.id} (player:luis) holds -10.00: a player's chips never go below zero" in err


def test_a_slip_count_is_one_per_cashier_transaction(slip_one):
    assert CashierSlip.objects.count() == 1 and ledger_faults() == []
