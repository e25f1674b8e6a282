"""``manage.py settle FILE [FILE ...]``: check and settle hand records, writing nothing.

Prints one JSON object per record, in order; exits with status 2 after the last record
if any record was invalid. Needs no database: the work is the engine's
(``game.settling.settle_files``). ``manage.py`` given only paths runs
``game.settling.main`` without starting Django; this command is the same with Django's
options (``--settings``, ``--traceback`` …) and for ``call_command``.
[hand-record.md "Settling"]
"""

from django.core.management.base import BaseCommand, CommandError

from game.settling import settle_files


class Command(BaseCommand):
    help = ("Check and settle hand records (files, JSON Lines, directories, or - for standard "
            "input) without writing to any database; one JSON line per record.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="FILE",
                            help="a hand record, a .jsonl file of them, a directory, or -")

    def handle(self, *args, paths, **options):
        out = self.stdout
        invalid = settle_files(paths, lambda text: out.write(text, ending=""),
                               stdin=self.stdin if hasattr(self, "stdin") else None)
        if invalid:
            raise CommandError(f"{invalid} invalid record(s)", returncode=2)
