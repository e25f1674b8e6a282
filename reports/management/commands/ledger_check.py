"""``manage.py ledger_check [--full]``: audit the ledger and the tables; exit 1 naming each fault.

Without ``--full``, the incremental check: what was added since the latest audit
checkpoint (``reports.checkpoints``: the last transaction, and each table's last entry and
hand, a check verified, sealed), the chains continuing from the hashes it verified; the
first run, or one after a checkpoint's seal broke, checks everything. ``--full`` checks
everything from the genesis, in chunks (the ledger, each table, a table of more than
``AUDIT_CHUNK_HANDS`` hands in ranges of that many) sent to Celery workers
when there are (one task a chunk, ``reports.check_chunk``; a result backend needed), else
one after the other here. Either way the run is stored as a new sealed checkpoint, its
faults with it (shown on the tables' integrity pages). What an incremental run cannot see:
docs/security.md, "Incremental checks".

The checks: every account's balance against its entries, a closed tenure's account
holding nothing, every transaction with two entries or more and balanced, all balances
summing to zero, every reversal mirroring its original, cashier slips without gaps and
each exactly its transaction's two legs, no player's chips below zero, syndicate shares
summing to 100, every transaction's signature with as many entries as it was posted with,
chained to the one before (``ledger.selectors.ledger_scan``, ``ledger.signing``); every
transaction justified by its business record (``reports.justification``); every hand
worked out again from its entries and compared with its stored bets, settlement and
posting, and every hand posting's hand (``tables.replay``); each table's keyed chain of
entries, each hand's own fields against its signed opening, its hand numbers without
gaps, every stored shift report's seal against the chain now and every stored report
against the seals' witness outside the database (``reports.witness``); every signed
monthly statement. Last, it lists the privilege changes PostgreSQL recorded
(``reports.privileges``: users made superuser or staff, roles and permissions given or
taken, lock-out records deleted), for the auditor to read: they are not faults.
"""

import sys

from django.core.management.base import BaseCommand

from reports.checkpoints import check_run
from reports.privileges import line, privilege_changes


class Command(BaseCommand):
    help = ("Audit the ledger and the tables from the latest checkpoint (--full: everything); exit 1 and name "
            "each fault found.")

    def add_arguments(self, parser):
        parser.add_argument("--full", action="store_true",
                            help="check everything from the genesis, not only what was added since the last check")
        parser.add_argument("--here", action="store_true",
                            help="run every chunk in this process, even when Celery workers are there")

    def handle(self, *args, **options):
        point = check_run(full=options["full"], fan_out=False if options["here"] else None)
        self.list_privilege_changes()
        faults = point.faults
        if point.fault_count:
            for fault in faults:
                self.stderr.write(f"FAULT: {fault}")
            if point.fault_count > len(faults):
                self.stderr.write(f"… and {point.fault_count - len(faults)} more (checkpoint #{point.pk})")
            self.stderr.write(f"ledger_check: {point.fault_count} fault(s)")
            sys.exit(1)
        mode = "full" if point.full else "incremental"
        self.stdout.write(f"ledger_check: OK ({mode}, checkpoint #{point.pk}, {point.chunks} chunks in "
                          f"{point.workers}, {point.seconds} s: {point.transactions} transactions, "
                          f"{point.hands} hands replayed, {point.entries} entries of the tables' chains verified; "
                          "balances match their entries and sum to zero, every posting is signed and chained, every "
                          "hand replays to what was posted and holds to its signed opening, every table's chain of "
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
