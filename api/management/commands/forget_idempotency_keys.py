"""``manage.py forget_idempotency_keys [--days N]``: delete the API's Idempotency-Keys
older than N days (30 by default), so the table does not grow forever.

A client repeating a request after that is answered as a new request: the cashier's
postings still refuse a second posting (the ledger's own key), and an event sent with
its ``expected_version`` is refused as stale.
"""

from datetime import timedelta

from django.core.management.base import BaseCommand, CommandError
from django.utils import timezone

from api.models import IdempotencyKey


class Command(BaseCommand):
    help = "Delete the API's Idempotency-Keys older than --days (default 30)."

    def add_arguments(self, parser):
        parser.add_argument("--days", type=int, default=30, help="keep the keys of the last N days")

    def handle(self, *args, days, **options):
        if days < 1:
            raise CommandError("--days must be at least 1")
        cutoff = timezone.now() - timedelta(days=days)
        deleted, _rows = IdempotencyKey.objects.filter(created_at__lt=cutoff).delete()
        self.stdout.write(f"{deleted} idempotency key(s) older than {days} day(s) deleted")
