"""``manage.py aml_register --day YYYY-MM-DD [--format text|csv]``: the AML register of a
gaming day (each patron's totals, the alerts with their reviews, the movements; in the US
profile the log), as the compliance officer's page shows it."""

from datetime import date

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from cage import selectors
from casino import periods


class Command(BaseCommand):
    help = "The anti-money-laundering register of a gaming day (default: today's), as text or CSV."

    def add_arguments(self, parser):
        parser.add_argument("--day", help="the gaming day, YYYY-MM-DD (default: the current one)")
        parser.add_argument("--format", choices=["text", "csv"], default="text")

    def handle(self, *args, day=None, format="text", **options):
        try:
            day = date.fromisoformat(day) if day else periods.gaming_day(timezone.now())
        except ValueError:
            raise CommandError(f"--day is a date as YYYY-MM-DD, not {day!r}") from None
        register = selectors.aml_register(day=day)
        if format == "csv":
            self.stdout.write(selectors.register_csv(register), ending="")
            return
        start, end = register["bounds"]
        self.stdout.write(f"AML register, gaming day {day.isoformat()} ({start.isoformat()} to {end.isoformat()}), "
                          f"profile {register['profile']}, threshold {register['threshold']}")
        self.stdout.write("patrons:")
        for code, row in register["totals"]:
            self.stdout.write(f"  {code}: in {row['in']} out {row['out']} total {row['total']} "
                              f"({row['movements']} movements, identity {'on file' if row['identified'] else 'MISSING'})")
        self.stdout.write(f"alerts: {len(register['alerts'])}")
        for alert in register["alerts"]:
            review = alert.latest_review
            state = (f"reviewed by {review.reviewed_by.get_username()} at {review.reviewed_at.isoformat()}: {review.note}"
                     if review else "NOT REVIEWED")
            self.stdout.write(f"  #{alert.pk} {alert.kind} {alert.player.code} total {alert.total} "
                              f"({alert.movements} movements) {state}")
        if register["profile"] == "us":
            self.stdout.write(f"log (movements above {register['log_threshold']}): {len(register['log'])}")
            for movement in register["log"]:
                self.stdout.write(f"  {movement.at.isoformat()} {movement.player.code} {movement.kind} "
                                  f"{movement.direction} {movement.amount}")
        self.stdout.write(f"movements: {len(register['movements'])}")
