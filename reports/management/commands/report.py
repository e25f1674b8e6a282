"""``manage.py report``: compute a report here and now, without Celery (the same code as
the task: ``reports.services.report_compute``).

    manage.py report shift --table "Mesa 1" --shift 12 --format json
    manage.py report banks --table "Mesa 1" --from 2026-11-01 --to 2026-11-30 --format json

``--table`` is the table's name; ``--shift`` is the shift's id (``Shift.pk``, shown as
"shift #12" on the reports page); ``--from``/``--to`` are days (YYYY-MM-DD), both
included, in the casino's time zone. ``--format`` is json (default), csv or pdf (pdf
needs ``--output``). ``--store`` also stores the report as a new version of the subject's report
(the versions before it stay), as the task does. Exit status 1 with ``--strict`` if the report has exceptions.
"""

import json
import sys
import time
from datetime import date
from decimal import Decimal

from django.core.management.base import BaseCommand, CommandError

from reports.exports import report_csv, report_pdf
from reports.models import Report, ReportKind
from reports.services import ReportError, report_compute, report_store
from tables.models import Shift, Table


def _day(text):
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise CommandError(f"{text!r} is not a day written YYYY-MM-DD") from None


class Command(BaseCommand):
    help = "Compute a shift or bank-rotation report without Celery and print it (json, csv) or write it (pdf)."

    def add_arguments(self, parser):
        kinds = parser.add_subparsers(dest="kind", required=True, metavar="{shift,banks}")
        for name, help_text in (("shift", "a table's shift"), ("banks", "a table's bank rotation over a period")):
            sub = kinds.add_parser(name, help=help_text)
            sub.add_argument("--table", required=True, help="the table's name, e.g. \"Mesa 1\"")
            if name == "shift":
                sub.add_argument("--shift", required=True, type=int, help="the shift's id (Shift.pk)")
            else:
                sub.add_argument("--from", dest="date_from", required=True, type=_day, help="first day, YYYY-MM-DD")
                sub.add_argument("--to", dest="date_to", required=True, type=_day, help="last day, YYYY-MM-DD")
            sub.add_argument("--format", choices=("json", "csv", "pdf"), default="json")
            sub.add_argument("--output", help="write to this file instead of standard output")
            sub.add_argument("--store", action="store_true", help="also store it as a new version of the subject's report")
            sub.add_argument("--strict", action="store_true", help="exit with status 1 if it has exceptions")

    def handle(self, *args, **options):
        table = Table.objects.filter(name=options["table"]).first()
        if table is None:
            raise CommandError(f"there is no table named {options['table']!r}")
        subject = {"kind": options["kind"], "table": table, "shift": None, "date_from": None, "date_to": None}
        if options["kind"] == ReportKind.SHIFT:
            shift = Shift.objects.filter(pk=options["shift"]).select_related("table").first()
            if shift is None:
                raise CommandError(f"there is no shift #{options['shift']}")
            subject["shift"] = shift
        else:
            subject["date_from"], subject["date_to"] = options["date_from"], options["date_to"]
        if options["format"] == "pdf" and not options["output"]:
            raise CommandError("--format pdf needs --output FILE")
        started = time.perf_counter()
        try:
            result = report_compute(**subject)
        except ReportError as error:
            raise CommandError(str(error)) from None
        seconds = Decimal(str(round(time.perf_counter() - started, 3)))
        if options["store"]:
            report = report_store(**subject, result=result, seconds=seconds)
        else:
            report = Report(kind=subject["kind"], table=table, shift=subject["shift"], date_from=subject["date_from"],
                            date_to=subject["date_to"], result=result, exceptions=len(result["exceptions"]))
        if options["format"] == "json":
            self._write(options, json.dumps(result, indent=2, ensure_ascii=False) + "\n")
        elif options["format"] == "csv":
            self._write(options, report_csv(report))
        else:
            with open(options["output"], "wb") as handle:
                handle.write(report_pdf(report))
        count = len(result["exceptions"])
        self.stderr.write(f"report {options['kind']}: {count} exception(s), computed in {seconds} s"
                          + (f", stored as report #{report.pk} (version {report.version}"
                             + (", the one at the shift's close" if report.at_close else "") + ", beside the "
                             "versions before it)" if options["store"] else ""))
        if options["strict"] and count:
            sys.exit(1)

    def _write(self, options, text):
        if options["output"]:
            with open(options["output"], "w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            self.stdout.write(text, ending="")
