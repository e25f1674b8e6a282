"""``manage.py journal [--day YYYY-MM-DD] [--format csv|json]``: a gaming day's accounting
journal (``reports.journal``), reconciled with the ledger; exits 1 when it does not
reconcile (its faults on stderr)."""

import json
from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from casino import periods
from reports.journal import journal_csv, journal_day, journal_json


class Command(BaseCommand):
    help = "Print a gaming day's accounting journal (CSV or JSON), reconciled with the ledger."

    def add_arguments(self, parser):
        parser.add_argument("--day", help="the gaming day, YYYY-MM-DD (default today's)")
        parser.add_argument("--format", choices=("csv", "json"), default="json")

    def handle(self, *args, day=None, format="json", **options):
        try:
            wanted = date.fromisoformat(day) if day else periods.gaming_day(timezone.now())
        except ValueError:
            raise CommandError(f"--day is a date written YYYY-MM-DD, not {day!r}") from None
        journal = journal_day(day=wanted)
        if format == "csv":
            self.stdout.write(journal_csv(journal), ending="")
        else:
            self.stdout.write(json.dumps(journal_json(journal), ensure_ascii=False, indent=1))
        if journal.faults:
            for fault in journal.faults:
                self.stderr.write(fault)
            raise SystemExit(1)
