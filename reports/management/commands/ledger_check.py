"""``manage.py ledger_check``: audit the ledger from its entries; exit 1 naming each fault.

Recomputes every account's balance from its entries, checks that a closed tenure's
account holds nothing, that every transaction has two entries or more and balances, that all balances sum to zero, that every reversal
mirrors its original, that cashier slips have no gaps and each is exactly its
transaction's two legs of the slip's amount, that no player's chips are below zero,
that no entry was added to a transaction after it was posted, and that syndicate shares
sum to 100 (``ledger.selectors.ledger_faults``); then every hand is worked out again from
its entries and compared with its stored bets, settlement and posting, and every hand
posting must have its hand (``tables.replay``).
"""

import sys

from django.core.management.base import BaseCommand

from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults
from tables.models import Hand
from tables.replay import all_hand_faults


class Command(BaseCommand):
    help = "Audit the ledger: recompute balances from entries; exit 1 and name each fault found."

    def handle(self, *args, **options):
        faults = ledger_faults() + all_hand_faults()
        if faults:
            for fault in faults:
                self.stderr.write(f"FAULT: {fault}")
            self.stderr.write(f"ledger_check: {len(faults)} fault(s)")
            sys.exit(1)
        self.stdout.write(f"ledger_check: OK ({Account.objects.count()} accounts, "
                          f"{Transaction.objects.count()} transactions, {Hand.objects.count()} hands; balances "
                          "match their entries and sum to zero, every hand replays to what was posted)")
