"""Reports for the auditors of the bank's takings: shift and bank-rotation reports,
computed by Celery tasks, stored, reconciled against the ledger."""
import logging

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

logger = logging.getLogger(__name__)


def queue_shift_report(sender, shift_id, **kwargs):
    """``tables.services.shift_closed`` receiver (sent on commit): ask for the shift's
    report, as the system. The request is the outbox row; its task is sent on commit."""
    from reports.models import ReportKind
    from reports.services import report_request
    from tables.models import Shift

    try:
        shift = Shift.objects.select_related("table").get(pk=shift_id)
        report_request(kind=ReportKind.SHIFT, table=shift.table, shift=shift, requested_by=None)
    except Exception:  # the shift is closed all the same; the outbox sweep asks again
        logger.exception("the report of shift #%s could not be asked for", shift_id)


def stored_exceptions(*, table, report_id):
    """The exceptions of the table's stored report ``report_id``, or None: the hand
    history's reader (``tables.report_exceptions``)."""
    from reports.models import Report

    report = Report.objects.filter(pk=report_id, table=table).only("pk", "result").first()
    if report is None:
        return None
    return report.result.get("exceptions", []) if isinstance(report.result, dict) else []


def checkpoint_section(table) -> dict:
    """The tables' integrity page's section of the audit's runs (``reports.checkpoints``):
    the latest runs, the latest run's faults at all tables and in the ledger, and whether
    the checkpoints' seals hold."""
    from reports.checkpoints import checkpoint_faults, latest_checkpoints

    points = latest_checkpoints(7)
    broken, _latest = checkpoint_faults()  # the latest's seal and link: what the next run rests on
    return {"points": points, "latest": points[0] if points else None, "broken": broken, "table": table}


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = _("Reports")

    def ready(self):
        from casino.navigation import register
        from casino.roles import AUDITOR
        from reports.integrity import table_audit_faults
        from tables import report_exceptions
        from tables.integrity import register_integrity_section, register_table_check
        from tables.services import shift_closed

        shift_closed.connect(queue_shift_report, dispatch_uid="reports.queue_shift_report")
        report_exceptions.register(stored_exceptions)
        register_table_check(table_audit_faults)
        register_integrity_section("reports/_checkpoints.html", checkpoint_section)
        register("reports:index", _("Reports"), AUDITOR)
        register("reports:alerts", _("Alerts"), AUDITOR)
        register("reports:review", _("Review"), AUDITOR)
        register("reports:results", _("Results"), AUDITOR)
        register("reports:journal", _("Journal"), AUDITOR)
        register("reports:statements", _("Statements"), AUDITOR)
        register("reports:privileges", _("Privileges"), AUDITOR)
