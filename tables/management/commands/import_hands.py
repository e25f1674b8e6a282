"""``manage.py import_hands FILE...``: record and settle hand records, in order.

Each record goes through ``tables.services.hand_import_record`` (the engine, then the
table's services, in one transaction): it is opened at the table its ``table`` names,
every event entered, and the finished hand settled and posted to the ledger.

The first record refused stops the import: the command prints its file, its line (JSON
Lines) and its event number (0 outside the events) with the reason, and exits with
status 1. The records before it stay imported; nothing of the refused one is written.
At the end it prints how many hands were imported per table.
[issue 4 "Around the hand"; hand-record.md]
"""

from collections import Counter

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError
from django.utils.translation import gettext as _

from tables.engine.recordfiles import UnreadableRecord, read_record_files
from tables.services import hand_import_record


class Command(BaseCommand):
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

    def handle(self, *args, paths, create_tables=False, user=None, **options):
        """Import every record under ``paths``; see the module's docstring.

        Raises:
            CommandError: (status 1) an unknown ``--user``, or the first record refused,
            with its file, line and event.
        """
        imported_by = self._user(user) if user else None
        imported = Counter()
        for source, record in read_record_files(paths):
            if isinstance(record, UnreadableRecord):
                self._stop(imported, source, 0, record.message)
            try:
                hand = hand_import_record(record=record, imported_by=imported_by, create_tables=create_tables)
            except ValidationError as error:  # RecordRefused, and the ledger's refusals
                self._stop(imported, source, getattr(error, "event", 0), " ".join(error.messages))
            imported[hand.table.name] += 1
        self._report(imported)

    def _user(self, username):
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise CommandError(_("there is no active user %(username)s") % {"username": username})
        return user

    def _report(self, imported):
        total = sum(imported.values())
        self.stdout.write(_("%(count)s hand(s) imported") % {"count": total})
        for table, count in sorted(imported.items()):
            self.stdout.write(_("  %(table)s: %(count)s") % {"table": table, "count": count})

    def _stop(self, imported, source, event, message):
        self._report(imported)
        where = (_("%(file)s, line %(line)s") % {"file": source.file, "line": source.line}
                 if source.line is not None else source.file)
        raise CommandError(_("%(where)s, event %(event)s: %(message)s — import stopped; nothing of this record "
                             "was written") % {"where": where, "event": event, "message": message}, returncode=1)
