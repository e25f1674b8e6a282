"""``manage.py ledger_check``: audit the ledger from its entries; exit 1 naming each fault.

Recomputes every account's balance from its entries, checks that a closed tenure's
account holds nothing, that every transaction has two entries or more and balances, that all balances sum to zero, that every reversal
mirrors its original, that cashier slips have no gaps and each is exactly its
transaction's two legs of the slip's amount, that no player's chips are below zero,
that syndicate shares sum to 100, and that every transaction's signature holds, with as
many entries as it was posted with, chained to the one before (``ledger.selectors.ledger_faults``,
``ledger.signing``: one inserted by SQL, altered, or with an entry added or removed is named); then every hand is worked out again from
its entries and compared with its stored bets, settlement and posting, and every hand
posting must have its hand (``tables.replay``); then each table's keyed chain of entries
is recomputed, each hand's own fields checked against its signed opening, its hand numbers
checked for gaps, and every stored shift report's seal compared with the chain now, and
every stored report with the seals' witness outside the database
(``reports.integrity.all_faults``: a table's integrity page shows the same faults of that
table). Last, it lists the privilege changes PostgreSQL recorded (``reports.privileges``:
users made superuser or staff, roles and permissions given or taken, lock-out records
deleted), for the auditor to read: they are not faults.
"""

import sys

from django.core.management.base import BaseCommand

from ledger.models import Account, Transaction
from reports.integrity import all_faults
from reports.models import Report
from reports.privileges import line, privilege_changes
from tables.models import Hand, HandEvent


class Command(BaseCommand):
    help = "Audit the ledger: recompute balances from entries; exit 1 and name each fault found."

    def handle(self, *args, **options):
        faults = all_faults()
        self.list_privilege_changes()
        if faults:
            for fault in faults:
                self.stderr.write(f"FAULT: {fault}")
            self.stderr.write(f"ledger_check: {len(faults)} fault(s)")
            sys.exit(1)
        self.stdout.write(f"ledger_check: OK ({Account.objects.count()} accounts, "
                          f"{Transaction.objects.count()} transactions, {Hand.objects.count()} hands, "
                          f"{HandEvent.objects.count()} entries, {Report.objects.count()} stored reports; balances "
                          "match their entries and sum to zero, every posting is signed and chained, every hand "
                          "replays to what was posted and holds to its signed opening, every table's chain of "
                          "entries is whole and every stored report's seal is the chain's and the witness's)")

    def list_privilege_changes(self):
        """Every privilege change recorded, oldest first, but django-axes' clean-ups of
        expired lock-outs, which are counted."""
        changes = privilege_changes(expired=True).order_by("at", "id")
        shown = [line(change) for change in changes if not change.expired]
        cleaned = sum(1 for change in changes if change.expired)
        self.stdout.write(f"privilege changes: {len(shown)}"
                          + (f" (and {cleaned} expired lock-out records cleaned up)" if cleaned else ""))
        for item in shown:
            change = item.change
            self.stdout.write(f"  {change.at.isoformat(timespec='seconds')} {item.what} — by {item.by} "
                              f"(database role {change.db_role}; {change.operation} on {change.table_name})")
