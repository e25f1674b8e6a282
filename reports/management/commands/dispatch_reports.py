"""``manage.py dispatch_reports``: send the report requests the broker missed (the
outbox's sweep, as the beat task ``reports.dispatch_pending`` does every minute).

Run it when Redis is back after an outage if beat is not running. Prints how many
requests were sent and how many are still waiting.
"""

from django.core.management.base import BaseCommand

from reports.models import ReportRequest
from reports.services import report_dispatch_pending


class Command(BaseCommand):
    help = "Send pending report requests to the Celery broker (after a broker outage)."

    def handle(self, *args, **options):
        sent = report_dispatch_pending()
        waiting = ReportRequest.objects.filter(status=ReportRequest.Status.PENDING, dispatched_at__isnull=True).count()
        self.stdout.write(f"dispatch_reports: {sent} request(s) sent, {waiting} still waiting for the broker")
