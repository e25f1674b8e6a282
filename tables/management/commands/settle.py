"""``manage.py settle FILE [FILE ...]``: check and settle hand records, writing nothing.

Prints one JSON object per record, in order; exits with status 2 after the last record
if any record was invalid. Needs no database: the work is the engine's
(``game.settling.settle_record``). [hand-record.md "Settling"]
"""

import orjson
from django.core.management.base import BaseCommand, CommandError

from game.recordfiles import read_record_files
from game.settling import settle_record


class Command(BaseCommand):
    help = ("Check and settle hand records (files, JSON Lines, directories, or - for standard "
            "input) without writing to any database; one JSON line per record.")
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("paths", nargs="+", metavar="FILE",
                            help="a hand record, a .jsonl file of them, a directory, or -")

    def handle(self, *args, paths, **options):
        invalid = 0
        write = self.stdout.write
        dumps = orjson.dumps
        for source, record in read_record_files(paths, stdin=self.stdin if hasattr(self, "stdin") else None):
            result, valid = settle_record(record)
            invalid += not valid
            head = {"file": source.file}
            if source.line is not None:
                head["line"] = source.line
            head.update(result)
            write(dumps(head).decode())
        if invalid:
            raise CommandError(f"{invalid} invalid record(s)", returncode=2)
