"""``manage.py import_hands FILE...``: record and settle hand records, in order.

The records go through ``tables.importing.hand_import_records`` in batches (``--batch``
records, default 1000, per database transaction): each is checked by the engine, opened
at the table its ``table`` names, every event entered, and the finished hand settled and
posted to the ledger, each record written whole or not at all (a savepoint for a record
that writes before its batch's end; the others' rows wait in memory and are written in
bulk, the balances moved once per batch: see ``benchmarks/import.py`` for the speed).

The first record refused stops the import: the command prints its file, its line (JSON
Lines) and its event number (0 outside the events) with the reason, and exits with
status 1. The records before it stay imported (those of its batch too: they are
committed before the command stops); nothing of the refused one is written. A file that
cannot be read stops it the same way, after the records before it. At the end it prints
how many hands were imported per table.

Every bet is checked against its player's chips on record (a record whose stakes a
player cannot cover is refused, naming him and his holding); a player the import creates
holds nothing unless ``--opening-chips AMOUNT`` books him that much, for a migration, as
marked opening chips (``ledger.services.chips_opening``).
[hand-record.md]
"""

import argparse
import gc
from collections import Counter
from decimal import Decimal, InvalidOperation

from django.contrib.auth import get_user_model
from django.core.checks import Tags
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from game.recordfiles import UnreadableRecord, read_record_files
from ledger.money import CENT
from tables.errors import unreadable_message
from tables.importing import hand_import_records

#: Records per database transaction: the tables and accounts they touch stay locked until
#: it commits (about a second for 1,000). A record that writes before the batch's end
#: (players created, a bank drawn for) takes two or three subtransactions (its savepoint,
#: the ledger's); past 64 in one transaction PostgreSQL looks their ids up in pg_subtrans
#: and every statement slows down, but a night's records, chained at known tables, write
#: nothing early after their players' first hands. Each batch has a fixed cost (its reads
#: and locks, its COMMIT): larger batches import faster up to about 1,000 records, no
#: faster beyond (benchmarks/RESULTS.md).
BATCH = 1000


def _amount(value):
    """``--opening-chips``: euros above zero with at most two decimals, as a ``Decimal``."""
    try:
        amount = Decimal(value)
        valid = amount.is_finite() and amount > 0 and amount == amount.quantize(CENT) and amount < 10**12
    except InvalidOperation:
        valid = False
    if not valid:
        raise argparse.ArgumentTypeError(_("%(value)s is not an amount of euros above zero with at most two "
                                           "decimals") % {"value": value})
    return amount


class Command(BaseCommand):
    # The models' checks only, not every system check: the others load the URLs (the API's schema
    # views and what they import), which an import never serves; loading them nearly doubles the
    # command's start-up.
    requires_system_checks = [Tags.models]
    help = ("Record and settle hand records (files, JSON Lines, directories) at their tables, in order; "
            "the first invalid record stops the import.")

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="FILE",
                            help="a hand record (.json), JSON Lines of records (.jsonl), or a directory of them")
        parser.add_argument("--create-tables", action="store_true",
                            help="create a table the records name but that does not exist, from the record's "
                                 "rules and limits")
        parser.add_argument("--user", metavar="USERNAME",
                            help="the user the entries and postings are attributed to (default: the system)")
        parser.add_argument("--opening-chips", type=_amount, default=None, metavar="AMOUNT",
                            help="for a migration: book AMOUNT euros of opening chips (a marked buy-in) for each "
                                 "player the import creates; without it a new player holds no chips and his "
                                 "bets are refused")
        parser.add_argument("--batch", type=int, default=BATCH, metavar="N",
                            help=f"records per database transaction (default {BATCH}); the tables they name "
                                 "are locked until it commits")

    def handle(self, *args, paths, create_tables=False, user=None, batch=BATCH, opening_chips=None, **options):
        """Import every record under ``paths``; see the module's docstring.

        Raises:
            CommandError: (status 1) an unknown ``--user``, or the first record refused,
            with its file, line and event.
        """
        if batch < 1:
            raise CommandError(_("--batch must be at least 1"))
        # What was loaded before the import (Django, the apps, the settings) is kept out of the
        # garbage collector's way while it runs (``gc.freeze``, as ``casino.wsgi`` does), so
        # that the full collections the import's many objects set off walk only those
        # (benchmarks/RESULTS.md). ``gc.unfreeze`` at the end: the process goes on as it was.
        gc.freeze()
        try:
            self._import(paths, create_tables=create_tables, user=user, batch=batch, opening_chips=opening_chips)
        finally:
            gc.unfreeze()

    def _import(self, paths, *, create_tables, user, batch, opening_chips):
        imported_by = self._user(user) if user else None
        imported = Counter()
        pending = []  # (Source, record) not imported yet

        def flush():
            if not pending:
                return
            try:
                hands = hand_import_records(records=[record for _source, record in pending],
                                            imported_by=imported_by, create_tables=create_tables,
                                            opening_chips=opening_chips)
            except ValidationError as error:  # RecordRefused, and the ledger's refusals
                imported.update(hand.table.name for hand in error.imported)
                self._stop(imported, pending[error.index][0], getattr(error, "event", 0), " ".join(error.messages))
            imported.update(hand.table.name for hand in hands)
            pending.clear()

        for source, record in read_record_files(paths):
            if isinstance(record, UnreadableRecord):
                flush()
                self._stop(imported, source, 0, unreadable_message(record))
            pending.append((source, record))
            if len(pending) >= batch:
                flush()
        flush()
        self._report(imported)

    def _user(self, username):
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(_("there is no active user %(username)s") % {"username": username})
        return user

    def _report(self, imported):
        total = sum(imported.values())
        self.stdout.write(ngettext("%(count)s hand imported", "%(count)s hands imported", total) % {"count": total})
        for table, count in sorted(imported.items()):
            self.stdout.write(_("  %(table)s: %(count)s") % {"table": table, "count": count})

    def _stop(self, imported, source, event, message):
        self._report(imported)
        where = (_("%(file)s, line %(line)s") % {"file": source.file, "line": source.line}
                 if source.line is not None else source.file)
        raise CommandError(_("%(where)s, event %(event)s: %(message)s — import stopped; nothing of this record "
                             "was written") % {"where": where, "event": event, "message": message}, returncode=1)
