"""The reports' Celery tasks: thin, by id, safe to run twice.

Each task re-reads the database and calls a service. ``run_report`` is acknowledged
late (``CELERY_TASK_ACKS_LATE``): a worker killed in the middle leaves the message to be
given again, and nothing half-written (the report is stored in one transaction).
"""

from datetime import date, timedelta

from celery import shared_task
from django.db import OperationalError
from django.utils import timezone

from reports import services


@shared_task(name="reports.run_report", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def run_report(request_id: int) -> str:
    """Compute and store the report of ``ReportRequest`` ``request_id``.

    Returns:
        the request's status afterwards (``done`` or ``failed``).
    """
    return services.report_run(request_id=request_id).status


@shared_task(name="reports.dispatch_pending")
def dispatch_pending() -> int:
    """The outbox's sweep (every minute by beat): send the requests the broker missed.

    Returns:
        how many were sent.
    """
    return services.report_dispatch_pending()


@shared_task(name="reports.nightly_bank_reports")
def nightly_bank_reports(day: str | None = None) -> int:
    """Ask for yesterday's bank-rotation report of every table that played (beat, nightly).

    Args:
        day: ``YYYY-MM-DD`` to report another day than yesterday.
    Returns:
        how many reports were asked for.
    """
    return len(services.report_request_nightly_banks(day=date.fromisoformat(day) if day else None))


@shared_task(name="reports.transfer_alerts", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def transfer_alerts(day: str | None = None) -> int:
    """Raise the alerts of the chip transfers of the week ending with gaming day ``day``
    (``YYYY-MM-DD``; default yesterday's): ``reports.transfers.transfer_findings`` (beat,
    nightly). Idempotent: a pattern already raised is not raised again.

    Returns:
        how many alerts were opened now.
    """
    from casino.periods import gaming_day
    from reports.alerts import alerts_raise
    from reports.transfers import transfer_findings

    night = date.fromisoformat(day) if day else gaming_day(timezone.now()) - timedelta(days=1)
    return len(alerts_raise(findings=transfer_findings(day=night)))


@shared_task(name="reports.raise_alerts", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def raise_alerts(report_id: int) -> int:
    """Raise the alerts of stored ``Report`` ``report_id``: its exceptions, large bets and
    the bank's changes (``reports.detection.report_findings``); the statistical review of
    its hands is left to the nightly pooled review (``pooled_review``), whose one
    correction raises it. Idempotent: a finding already raised is not raised again.

    Returns:
        how many alerts were opened now.
    """
    from reports.alerts import alerts_raise
    from reports.detection import report_findings
    from reports.models import Report

    report = Report.objects.select_related("table", "shift").filter(pk=report_id).first()
    if report is None:
        return 0
    return len(alerts_raise(findings=report_findings(report)))


@shared_task(name="reports.monthly_statement", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def monthly_statement(statement_id: int) -> str:
    """Compute ``MonthlyStatement`` ``statement_id`` (``reports.statements.statement_compute``).

    Returns:
        its status afterwards (``done`` or ``failed``).
    """
    from reports.statements import statement_compute

    return statement_compute(statement_id=statement_id).status


@shared_task(name="reports.monthly_statement_nightly")
def monthly_statement_nightly() -> int | None:
    """Beat, nightly: ask for the month to date of the gaming day just ended
    (``reports.statements.statement_request_nightly``).

    Returns:
        the statement's id, or None when that day's was asked for already.
    """
    from reports.statements import statement_request_nightly

    statement = statement_request_nightly()
    return None if statement is None else statement.pk


@shared_task(name="reports.pooled_review", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def pooled_review(run_id: int) -> str | None:
    """Compute pending ``PooledReview`` ``run_id`` and raise its alerts
    (``reports.pooling.pooled_review_run``). Idempotent: a run already done is left as it is.

    Returns:
        its status afterwards, None when there is no such run.
    """
    from reports.pooling import pooled_review_run

    run = pooled_review_run(run_id=run_id)
    return None if run is None else run.status


@shared_task(name="reports.pooled_review_nightly")
def pooled_review_nightly(day: str | None = None) -> int:
    """Beat, nightly: ask for the pooled review of the day, week and month ending with
    gaming day ``day`` (``YYYY-MM-DD``; default yesterday's), computed by
    ``reports.pooled_review`` once queued.

    Returns:
        the PooledReview's id.
    """
    from casino.periods import gaming_day
    from reports.pooling import pooled_review_request

    night = date.fromisoformat(day) if day else gaming_day(timezone.now()) - timedelta(days=1)
    return pooled_review_request(day=night).pk


# Not acknowledged late: a chunk runs longer than the broker's visibility timeout, and would
# be given to a second worker while the first still works on it.
@shared_task(name="reports.check_chunk", ignore_result=False, acks_late=False)
def check_chunk_task(spec: dict) -> dict:
    """One chunk of the audit's checks (``reports.checkpoints.check_chunk``, the same code
    as in-process): the ledger's part or one table's, from the point in ``spec``. Reads
    only; safe to run twice.

    Returns:
        the chunk's faults and the point it reached (JSON).
    """
    from reports.checkpoints import check_chunk

    return check_chunk(spec)


@shared_task(name="reports.integrity_check", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def integrity_check(full: bool = False) -> int:
    """Beat: the audit's checks (``reports.checkpoints.check_run``), nightly incremental,
    weekly ``full``, in this worker (a task does not wait on others), stored as a sealed
    checkpoint whose result the tables' integrity pages show.

    Returns:
        how many faults it found.
    """
    from reports.checkpoints import check_run

    return check_run(full=full, fan_out=False).fault_count


@shared_task(name="reports.review_theory", acks_late=True, reject_on_worker_lost=True,
             autoretry_for=(OperationalError,), retry_backoff=5, retry_backoff_max=300, max_retries=6)
def review_theory(spec: dict) -> bool:
    """Simulate and store every edge the review of ``spec`` needs (the strategy fitted to
    its hands and its neighbours, per rule set and seat count: ``detection.Sums`` with a
    computing ``Theory``), asked by the review page or ``GET /api/review/`` when one was
    missing. ``spec``: ``reports.selectors.review_hands``'s arguments (dates as ISO text).
    Idempotent: a stored edge is read, not simulated again.

    Returns:
        True when the hands have settled bets (their edges are stored now), else False.
    """
    from reports.detection import Sums, Theory
    from reports.selectors import review_hands

    hands = review_hands(**{**spec, "date_from": date.fromisoformat(spec["date_from"]),
                            "date_to": date.fromisoformat(spec["date_to"])})
    return not Sums(hands, Theory()).empty
