"""PostgreSQL itself refuses writes that would make the ledger wrong, whoever sends them.

Raw SQL on purpose: these writes bypass the services. Tests that need a real COMMIT (the
deferred balance check) are transactional.
"""
from decimal import Decimal

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from cage.models import CashierSlip
from ledger.models import Account, Entry, Transaction
from ledger.selectors import ledger_faults
from tables.bank.tenures import tenure_close, tenure_open
from tables.models import BankTenure, SyndicateShare


def sql(statement, params=()):
    with connection.cursor() as cursor:
        cursor.execute(statement, params)
        return cursor.fetchone() if cursor.description else None


def new_transaction(key):
    (tx_id,) = sql("INSERT INTO ledger_transaction (kind, reference, idempotency_key, source, posted_at, memo, detail)"
                   " VALUES ('buy_in', 'raw', %s, 'system:test', now(), '', '{}') RETURNING id", [key])
    return tx_id


def new_entry(tx_id, account_id, side, amount):
    sql("INSERT INTO ledger_entry (transaction_id, account_id, side, amount) VALUES (%s, %s, %s, %s)",
        [tx_id, account_id, side, amount])


@pytest.fixture
def accounts(players, fund):
    """(cage account id, luis's chips account id) after a 100.00 buy-in by luis."""
    fund(players["luis"], "100.00")
    return Account.objects.get(kind="cage").id, Account.objects.get(player=players["luis"]).id


@pytest.mark.django_db(transaction=True)
class TestBalanceIsCheckedAtCommit:
    def test_an_unbalanced_transaction_is_refused_at_commit(self, accounts):
        cage, luis = accounts
        with pytest.raises(IntegrityError, match="does not balance: debits 10.00 <> credits 9.99"):
            with transaction.atomic():
                tx_id = new_transaction("raw-1")
                new_entry(tx_id, cage, "D", "10.00")
                new_entry(tx_id, luis, "C", "9.99")
        assert not Transaction.objects.filter(idempotency_key="raw-1").exists()
        assert Entry.objects.exclude(transaction__kind="drawer_float").count() == 2  # the buy-in's only

    def test_a_single_entry_is_refused(self, accounts):
        cage, _luis = accounts
        with pytest.raises(IntegrityError, match="has 1 entries"):
            with transaction.atomic():
                new_entry(new_transaction("raw-2"), cage, "D", "10.00")

    def test_a_transaction_without_entries_is_refused(self, accounts):
        with pytest.raises(IntegrityError, match="has 0 entries"):
            with transaction.atomic():
                new_transaction("raw-3")

    def test_an_entry_added_later_to_a_posted_transaction_is_refused(self, accounts):
        cage, luis = accounts
        buy_in = CashierSlip.objects.get().transaction_id
        # Sealed (ledger 0005): refused at once, before the balance check at commit.
        with pytest.raises(IntegrityError, match=f"ledger transaction {buy_in} is posted and sealed"):
            with transaction.atomic():
                new_entry(buy_in, luis, "C", "50.00")
        assert Entry.objects.filter(transaction_id=buy_in).count() == 2

    def test_a_balanced_raw_transaction_commits_but_ledger_check_sees_the_balances_untouched(self, accounts):
        cage, luis = accounts
        with transaction.atomic():
            tx_id = new_transaction("raw-4")
            new_entry(tx_id, cage, "D", "5.00")
            new_entry(tx_id, luis, "C", "5.00")
        assert Entry.objects.filter(transaction_id=tx_id).count() == 2
        faults = ledger_faults()
        assert any(f"account #{luis} (player:luis): balance column 100.00 but its entries sum to 105.00" in fault
                   for fault in faults)

    def test_syndicate_shares_must_sum_to_100(self, players, table, fund, cashier):
        fund(players["ana"], "100.00")
        tenure = tenure_open(table=table, holder=players["ana"], capital=Decimal("10.00"), began="draw",
                                      posted_by=cashier)
        with pytest.raises(IntegrityError, match=f"shares of bank tenure {tenure.pk} sum to 150.00 percent"):
            with transaction.atomic():
                SyndicateShare.objects.create(tenure=tenure, player=players["luis"], percent=Decimal(50))


@pytest.mark.django_db
class TestAppendOnly:
    @pytest.fixture
    def posted(self, accounts):
        slip = CashierSlip.objects.get()
        return slip, slip.transaction, slip.transaction.entries.first()

    @pytest.mark.parametrize("statement", [
        "UPDATE ledger_entry SET amount = 1000 WHERE id = %(entry)s",
        "UPDATE ledger_entry SET account_id = account_id WHERE id = %(entry)s",
        "DELETE FROM ledger_entry WHERE id = %(entry)s",
        "UPDATE ledger_transaction SET reference = 'edited' WHERE id = %(txn)s",
        "DELETE FROM ledger_transaction WHERE id = %(txn)s",
        "UPDATE cage_cashierslip SET amount = 1 WHERE id = %(slip)s",
        "DELETE FROM cage_cashierslip WHERE id = %(slip)s",
    ])
    def test_update_and_delete_are_refused(self, posted, statement):
        slip, txn, entry = posted
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            sql(statement, {"entry": entry.id, "txn": txn.id, "slip": slip.id})
        entry.refresh_from_db()
        txn.refresh_from_db()
        assert entry.amount == Decimal("100.00") and txn.reference == "slip 000001"

    def test_the_orm_is_refused_too(self, posted):
        _slip, txn, entry = posted
        entry.amount = Decimal("1.00")
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            entry.save()
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            Entry.objects.filter(transaction=txn).delete()
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            Transaction.objects.filter(pk=txn.pk).update(memo="edited")

    @pytest.mark.parametrize("amount", ["0.00", "-5.00"])
    def test_an_amount_not_above_zero_is_refused(self, accounts, amount):
        cage, _luis = accounts
        with pytest.raises(IntegrityError, match="ledger_entry_amount_positive"), transaction.atomic():
            new_entry(new_transaction("raw-5"), cage, "D", amount)

    def test_an_account_may_only_change_its_balance(self, accounts):
        cage, luis = accounts
        with pytest.raises(DatabaseError, match="only its balance may change"), transaction.atomic():
            sql("UPDATE ledger_account SET kind = 'house', player_id = NULL WHERE id = %s", [luis])
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            sql("DELETE FROM ledger_account WHERE id = %s", [luis])
        sql("UPDATE ledger_account SET balance = 42 WHERE id = %s", [luis])  # allowed: ledger_check sees it
        assert Account.objects.get(pk=luis).balance == Decimal("42.00")

    def test_a_closed_account_stays_closed_and_takes_no_entry(self, ana_bank, cashier, accounts):
        tenure_close(tenure=ana_bank, posted_by=cashier)
        bank = Account.objects.get(tenure=ana_bank)
        assert not bank.is_open
        with pytest.raises(DatabaseError, match="closed for good"), transaction.atomic():
            sql("UPDATE ledger_account SET is_open = true WHERE id = %s", [bank.id])
        with pytest.raises(DatabaseError, match="is closed: nothing more is posted"), transaction.atomic():
            new_entry(new_transaction("raw-6"), bank.id, "C", "1.00")

    def test_a_tenure_only_records_its_closing(self, ana_bank, cashier):
        with pytest.raises(DatabaseError, match="only its closing"), transaction.atomic():
            BankTenure.objects.filter(pk=ana_bank.pk).update(capital=Decimal("1.00"))
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            sql("DELETE FROM tables_banktenure WHERE id = %s", [ana_bank.pk])
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
            SyndicateShare.objects.filter(tenure=ana_bank).update(percent=Decimal(50))
        tenure_close(tenure=ana_bank, posted_by=cashier)
        with pytest.raises(DatabaseError, match="is closed: it cannot change"), transaction.atomic():
            BankTenure.objects.filter(pk=ana_bank.pk).update(ended="sale")
