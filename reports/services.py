"""Writes of the reports: asking for a report, running it, storing it, the outbox.

``report_request`` writes a ``ReportRequest`` (the outbox row) in one transaction and
sends it to Celery once that commits; if the broker cannot be reached the row stays
``pending`` and ``report_dispatch_pending`` (beat task ``reports.dispatch_pending`` and
``manage.py dispatch_reports``) sends it later. ``report_run`` is the task's body: it
computes the report on a consistent snapshot of the database and stores it in one
transaction as a new version of the subject's report (``report_store``: the versions
before it stay as they were). A worker killed mid-way has written nothing
but the request's progress; the broker gives the task again (``acks_late``).
"""

import logging
import time
from contextlib import contextmanager
from datetime import date, timedelta
from decimal import Decimal

from django.core.exceptions import ValidationError
from django.db import DEFAULT_DB_ALIAS, IntegrityError, connection, connections
from django.db import transaction as db
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.periods import period_bounds
from reports.banks import bank_rotation_report
from reports.models import Report, ReportKind, ReportRequest, report_key
from reports.shift import shift_report
from reports.witness import witness_report
from tables.models import Hand, Shift, Table

logger = logging.getLogger(__name__)

#: A pending request sent this long ago and never started is sent again (a message the
#: broker lost; a duplicate is harmless: ``report_run`` runs a request once).
RESEND_AFTER = timedelta(minutes=3)
#: A running request whose run holds no lock (its worker died) this long after it started
#: is sent again by the sweep (beat, every minute): a dead run is retried within minutes.
RUNNING_GRACE = timedelta(minutes=1)
#: A run still alive (holding its lock) this long is marked failed (a hung worker).
RUNNING_TIMEOUT = timedelta(hours=3)
#: A request whose worker died this many times is marked failed, not sent again.
MAX_ATTEMPTS = 5
#: The first key of the session-level advisory lock a run holds while it computes
#: (``pg_try_advisory_lock(RUN_LOCK, request id)``): released when the run ends or its
#: connection closes (a killed worker), which is how the sweep knows a run is dead.
RUN_LOCK = 0x7E1A
#: Closed shifts this recent with no report and no request get one queued by the sweep.
SWEEP_SHIFTS_SINCE = timedelta(days=7)
#: PostgreSQL's ``work_mem`` inside a report's snapshot transaction.
REPORT_WORK_MEM = "64MB"
#: The longest period of a bank-rotation report.
MAX_PERIOD_DAYS = 366


class ReportError(ValidationError):
    """A report request refused: the message says why; ``field`` names the form field."""

    def __init__(self, message, *, params=None, field=None):
        super().__init__(message, code="report", params=params)
        self.field = field

    def __str__(self):
        return " ".join(self.messages)


def _check_subject(kind, table, shift, date_from, date_to):
    if kind not in ReportKind.values:
        raise ReportError(_("unknown report kind %(kind)s"), params={"kind": kind}, field="kind")
    if not isinstance(table, Table) or table.pk is None:
        raise ReportError(_("choose a table"), field="table")
    if kind == ReportKind.SHIFT:
        if not isinstance(shift, Shift) or shift.pk is None:
            raise ReportError(_("choose the shift"), field="shift")
        if shift.table_id != table.pk:
            raise ReportError(_("that shift was not at %(table)s"), params={"table": table.name}, field="shift")
        if date_from is not None or date_to is not None:
            raise ReportError(_("a shift report has no period"), field="date_from")
        return
    if shift is not None:
        raise ReportError(_("a bank-rotation report is for a period, not a shift"), field="shift")
    if not isinstance(date_from, date) or not isinstance(date_to, date):
        raise ReportError(_("give the first and the last day of the period"), field="date_from")
    if date_to < date_from:
        raise ReportError(_("the period ends before it begins"), field="date_to")
    if (date_to - date_from).days >= MAX_PERIOD_DAYS:
        raise ReportError(_("a period is at most %(days)s days"), params={"days": MAX_PERIOD_DAYS},
                          field="date_to")


def report_request(*, kind: str, table: Table, shift: Shift | None = None, date_from: date | None = None,
                   date_to: date | None = None, requested_by=None) -> ReportRequest:
    """Ask for a report: write the request and queue its task once this commits.

    If a request for the same report is already pending or running, that one is
    returned (an auditor's double click, or a shift closing while its report is asked
    for): one computation, one stored report.

    Args:
        kind: ``"shift"`` or ``"banks"``.
        table: the Table.
        shift: the Shift (``kind="shift"`` only; it must be at ``table``).
        date_from, date_to: ``datetime.date``, first and last day included, in the
            casino's time zone (``kind="banks"`` only; at most 366 days).
        requested_by: the staff user, or None for the system (shift close, schedules).
    Returns:
        ReportRequest (status ``pending``; once the transaction commits its task is sent
        to the broker, or stays unsent if the broker is unreachable). Called outside a
        transaction, it is read again after the send: ``dispatched_at`` says truly
        whether the broker took it (inside one, see ``report_request_queued``).
    Raises:
        ReportError: a kind, table, shift or period that does not make a report.
    """
    _check_subject(kind, table, shift, date_from, date_to)
    key = report_key(kind=kind, table_id=table.pk, shift_id=shift.pk if shift else None,
                     date_from=date_from, date_to=date_to)
    with db.atomic():
        active = ReportRequest.objects.filter(key=key, status__in=_ACTIVE).first()
        if active is not None:
            return active
        try:
            with db.atomic():
                request = ReportRequest.objects.create(
                    kind=kind, key=key, table=table, shift=shift, date_from=date_from, date_to=date_to,
                    requested_by=requested_by)
        except IntegrityError:  # a concurrent twin committed first: one active request per key
            return ReportRequest.objects.get(key=key, status__in=_ACTIVE)
        request_id = request.pk
        db.on_commit(lambda: report_send(request_id=request_id), robust=True)
    if not connection.in_atomic_block:  # committed and sent (or not): the truth, from the row
        request.refresh_from_db()
    return request


def report_request_queued(request_id: int) -> bool:
    """Whether the broker has taken the request's task (``dispatched_at`` set), read now.
    For an answer built inside a transaction: call it on commit, after the send."""
    return ReportRequest.objects.filter(pk=request_id, dispatched_at__isnull=False).exists()


_ACTIVE = (ReportRequest.Status.PENDING, ReportRequest.Status.RUNNING)


def report_send(*, request_id: int) -> bool:
    """Send a pending request's task to the broker (no retry: on failure the request
    stays pending, for ``report_dispatch_pending``).

    Returns:
        True if the broker took the task (with eager Celery, the task has run).
    """
    from reports.tasks import run_report

    app = run_report.app
    if app.conf.task_always_eager:  # tests and the quick start: the task runs here and now
        run_report.apply_async(args=[request_id])
        ReportRequest.objects.filter(pk=request_id).update(dispatched_at=timezone.now())
        return True
    try:
        # One try, no retry loop: a closed port fails in milliseconds, not seconds, so
        # closing a shift never waits on a dead broker.
        with app.connection_for_write() as broker:
            broker.ensure_connection(max_retries=0)
            run_report.apply_async(args=[request_id], connection=broker, retry=False)
    except Exception as error:  # the broker is down: the outbox keeps the request
        logger.warning("report request #%s not sent, the broker is unreachable (%s); it stays pending",
                       request_id, error)
        return False
    ReportRequest.objects.filter(pk=request_id).update(dispatched_at=timezone.now())
    return True


def report_dispatch_pending(*, limit: int = 200) -> int:
    """The outbox's sweep: send what was not sent, and catch what was missed.

    Sends (1) pending requests never sent (the broker was down), (2) pending requests
    sent over ``RESEND_AFTER`` ago that never started (a message the broker lost),
    (3) running requests started over ``RUNNING_GRACE`` ago whose run holds no lock (its
    worker died: ``report_requeue_dead``); marks running requests older than
    ``RUNNING_TIMEOUT`` failed; and asks for the report of any shift closed in the last
    ``SWEEP_SHIFTS_SINCE`` that has neither a report nor a request (a process that stopped
    between the shift's close and its request).

    Returns:
        int, how many requests the broker took.
    """
    now = timezone.now()
    stale = ReportRequest.objects.filter(status=ReportRequest.Status.RUNNING, started_at__lt=now - RUNNING_TIMEOUT)
    for request in stale:
        report_request_fail(request_id=request.pk, error=_("the worker stopped answering; ask for it again"))
    report_requeue_dead(now=now)
    missed = (Shift.objects.filter(closed_at__gte=now - SWEEP_SHIFTS_SINCE, report_requests__isnull=True,
                                   reports__isnull=True).select_related("table"))
    for shift in missed:
        report_request(kind=ReportKind.SHIFT, table=shift.table, shift=shift, requested_by=None)
    due = (ReportRequest.objects.filter(status=ReportRequest.Status.PENDING)
           .filter(_unsent(now)).order_by("created_at").values_list("pk", flat=True)[:limit])
    sent = 0
    for request_id in list(due):
        if report_send(request_id=request_id):
            sent += 1
        else:
            break  # the broker is still down: the rest wait for the next sweep
    return sent


#: While a run holds its lock, PostgreSQL checks this often that the worker is still
#: connected, even in the middle of a statement: a killed worker's lock goes within
#: seconds, not when its last statement ends (PostgreSQL 14+, Linux).
CONNECTION_CHECK = "5s"


def _run_lock(request_id: int, *, take: bool) -> bool:
    """Take (``take``) or release the run's session-level advisory lock on the default
    connection; True if taken (or released). While it is held the session checks its
    client every ``CONNECTION_CHECK``."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s, %s)" if take else "SELECT pg_advisory_unlock(%s, %s)",
                       [RUN_LOCK, request_id])
        done = bool(cursor.fetchone()[0])
        if connection.pg_version >= 140000:
            cursor.execute("SELECT set_config('client_connection_check_interval', %s, false)",
                           [CONNECTION_CHECK if take and done else "0"])
        return done


def report_run_alive(request_id: int) -> bool:
    """Whether a run of the request holds its lock now (its worker is alive). An advisory
    lock is its database's: pg_locks lists every database's, another database's run of a
    request with the same id (another test database on the server) is not this one's."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = %s"
                       " AND objid = %s AND objsubid = 2 AND granted"
                       " AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))",
                       [RUN_LOCK, request_id])
        return cursor.fetchone()[0]


def report_requeue_dead(*, now=None) -> list[int]:
    """Running requests whose run died (started over ``RUNNING_GRACE`` ago, no run holding
    its lock): back to pending and unsent, for the sweep to send at once; failed after
    ``MAX_ATTEMPTS`` attempts.

    Returns:
        the ids put back to pending.
    """
    now = now or timezone.now()
    requeued = []
    running = (ReportRequest.objects.filter(status=ReportRequest.Status.RUNNING, started_at__lt=now - RUNNING_GRACE)
               .values_list("pk", "attempts", "started_at"))
    for request_id, attempts, started_at in list(running):
        if report_run_alive(request_id):
            continue
        if attempts >= MAX_ATTEMPTS:
            report_request_fail(request_id=request_id, error=_("the report's worker stopped %(n)s times; ask for it "
                                                               "again") % {"n": attempts})
            continue
        # Unless a run started meanwhile (a redelivered message: it set ``started_at``).
        updated = (ReportRequest.objects.filter(pk=request_id, status=ReportRequest.Status.RUNNING,
                                                started_at=started_at)
                   .update(status=ReportRequest.Status.PENDING, dispatched_at=None, progress=0, stage=""))
        if updated:
            logger.warning("report request #%s: its worker died (attempt %s); sent again", request_id, attempts)
            requeued.append(request_id)
    return requeued


def _unsent(now):
    """Pending requests due for sending: never sent, or sent long ago and not started."""
    return Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=now - RESEND_AFTER, started_at__isnull=True)


def report_request_fail(*, request_id: int, error: str) -> ReportRequest:
    """Mark a request failed with the reason (shown to the auditor)."""
    with db.atomic():
        request = ReportRequest.objects.select_for_update().get(pk=request_id)
        if request.status in _ACTIVE:
            request.status = ReportRequest.Status.FAILED
            request.error = error[:2000]
            request.finished_at = timezone.now()
            request.save(update_fields=["status", "error", "finished_at"])
        return request


@contextmanager
def snapshot():
    """Outside any transaction: one REPEATABLE READ, READ ONLY transaction,
    so every query of a report sees the same committed state (a hand voided meanwhile
    cannot make the bets and the ledger disagree), with ``work_mem`` at
    ``REPORT_WORK_MEM`` and ``parallel_tuple_cost`` 0. Yields True if a snapshot was taken."""
    if connection.in_atomic_block:
        yield False
        return
    with db.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
            # A report groups millions of rows in a few statements: room for its hash
            # tables in memory rather than on disk, and no penalty on the rows parallel
            # workers hand back (the planner overestimates the groups of a grouping by
            # tenure and chart bucket, and would scan the hands on one core); for this
            # transaction only. (set_config, not SET: SET takes no bound parameter.)
            cursor.execute("SELECT set_config('work_mem', %s, true)", [REPORT_WORK_MEM])
            # Statements are prepared per connection (settings: server-side binding);
            # a report's few big ones are planned for their own shift or period each time.
            cursor.execute("SET LOCAL plan_cache_mode = force_custom_plan")
            cursor.execute("SET LOCAL parallel_tuple_cost = 0")
        yield True


class _Progress:
    """Writes a request's progress where a poller sees it at once: through a second
    connection while the report reads in its snapshot transaction."""

    def __init__(self, request_id, separate):
        self.request_id = request_id
        self.side = connections.create_connection(DEFAULT_DB_ALIAS) if separate else None

    def __call__(self, percent, stage):
        percent = max(0, min(100, int(percent)))
        if self.side is None:
            ReportRequest.objects.filter(pk=self.request_id).update(progress=percent, stage=stage)
            return
        with self.side.cursor() as cursor:
            cursor.execute("UPDATE reports_reportrequest SET progress = %s, stage = %s WHERE id = %s",
                           [percent, stage, self.request_id])

    def close(self):
        if self.side is not None:
            self.side.close()


def report_compute(*, kind: str, table: Table, shift: Shift | None = None, date_from: date | None = None,
                   date_to: date | None = None, progress=None) -> dict:
    """Compute a report (no write): ``reports.shift.shift_report`` or
    ``reports.banks.bank_rotation_report`` on one snapshot of the database.

    Raises:
        ReportError: as ``report_request``.
    """
    _check_subject(kind, table, shift, date_from, date_to)
    with snapshot():
        if kind == ReportKind.SHIFT:
            return shift_report(shift, progress=progress)
        return bank_rotation_report(table, date_from, date_to, progress=progress)


def report_store(*, kind: str, table: Table, shift: Shift | None = None, date_from: date | None = None,
                 date_to: date | None = None, result: dict, seconds: Decimal = Decimal(0)) -> Report:
    """Store a computed report as a new version of its subject's report, in one
    transaction: version 1 the first time, then 2, 3… beside the old ones, which stay as
    they were (a trigger refuses their update). A shift report is the one ``at_close`` if
    it was computed once the shift had closed and no earlier version is.

    Concurrent stores of one subject take turns (a transaction-scoped advisory lock on
    the key), so versions are numbered without gaps or twins. The report is written to the
    seals' witness outside the database before the transaction commits
    (``reports.witness``).
    Returns:
        the new Report.
    Raises:
        OSError: the witness cannot be written (``SEAL_WITNESS_DIR``): nothing is stored.
    """
    key = report_key(kind=kind, table_id=table.pk, shift_id=shift.pk if shift else None,
                     date_from=date_from, date_to=date_to)
    with db.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", [f"reports.Report:{key}"])
        versions = Report.objects.filter(key=key)
        last = versions.order_by("-version").values_list("version", flat=True).first() or 0
        at_close = (kind == ReportKind.SHIFT and not result.get("shift", {}).get("open", True)
                    and not versions.filter(at_close=True).exists())
        report = Report.objects.create(kind=kind, key=key, version=last + 1, at_close=at_close, table=table,
                                       shift=shift, date_from=date_from, date_to=date_to, result=result,
                                       exceptions=len(result.get("exceptions", [])), computed_at=timezone.now(),
                                       seconds=Decimal(seconds).quantize(Decimal("0.001")))
        report.refresh_from_db(fields=["result"])  # as a later check reads it back
        witness_report(report)  # before the commit: no report stored without its witness
        return report


def report_run(*, request_id: int) -> ReportRequest:
    """Run a request: compute its report and store it with the request done.

    Idempotent: a request already done is left as it is; a request found running (its
    worker was killed, and the broker gave the task again) is run again from the start;
    a request another run is computing now (it holds the run's advisory lock: the broker
    gave a message twice) is left to it. The report and the request's ``done`` are written
    in one transaction, only if the request is still running then: one request stores at
    most one version.

    Returns:
        the ReportRequest (``done`` with its ``report``, or ``failed`` with ``error``).
    Raises:
        django.db.OperationalError: the database is unreachable (the task retries).
    """
    if not _run_lock(request_id, take=True):  # another run computes it now
        return ReportRequest.objects.get(pk=request_id)
    try:
        return _run_locked(request_id)
    finally:
        _run_lock(request_id, take=False)


def _run_locked(request_id):
    with db.atomic():
        request = (ReportRequest.objects.select_for_update(of=("self",)).select_related("table", "shift")
                   .get(pk=request_id))
        if request.status in (ReportRequest.Status.DONE, ReportRequest.Status.FAILED):
            return request
        request.status = ReportRequest.Status.RUNNING
        request.progress, request.stage, request.error = 0, "start", ""
        request.attempts += 1
        request.started_at = timezone.now()
        request.save(update_fields=["status", "progress", "stage", "error", "attempts", "started_at"])
    subject = {"kind": request.kind, "table": request.table, "shift": request.shift,
               "date_from": request.date_from, "date_to": request.date_to}
    started = time.perf_counter()
    progress = _Progress(request.pk, separate=not connection.in_atomic_block)
    try:
        result = report_compute(**subject, progress=progress)
    except Exception as error:
        from django.db import OperationalError

        if isinstance(error, OperationalError):
            raise
        logger.exception("report request #%s failed", request_id)
        return report_request_fail(request_id=request_id, error=f"{type(error).__name__}: {error}")
    finally:
        progress.close()
    seconds = Decimal(str(round(time.perf_counter() - started, 3)))
    with db.atomic():
        if ReportRequest.objects.select_for_update().filter(pk=request_id,
                                                            status=ReportRequest.Status.RUNNING).exists():
            report = report_store(**subject, result=result, seconds=seconds)
            ReportRequest.objects.filter(pk=request_id).update(
                status=ReportRequest.Status.DONE, progress=100, stage="done", report=report,
                finished_at=timezone.now())
            report_id = report.pk
            db.on_commit(lambda: alerts_send(report_id=report_id), robust=True)
    request.refresh_from_db()
    return request


def alerts_send(*, report_id: int) -> bool:
    """Queue ``reports.raise_alerts`` for a stored report (after it commits; no retry: the
    next run of the report raises them, and a finding raised twice is one alert).

    Returns:
        True if the broker took the task (with eager Celery, the task has run).
    """
    from reports.tasks import raise_alerts

    try:
        raise_alerts.apply_async(args=[report_id], retry=False)
    except Exception as error:  # the broker is down: the report stays; its alerts come with its next run
        logger.warning("alerts of report #%s not queued (%s)", report_id, error)
        return False
    return True


def report_request_nightly_banks(*, day: date | None = None) -> list[ReportRequest]:
    """Ask for the bank-rotation report of ``day`` (default: yesterday, in the casino's
    time zone) at every table that had a hand or a bank tenure that day. For the
    nightly beat schedule (``reports.nightly_bank_reports``).

    Returns:
        the ReportRequests asked for.
    """
    if day is None:
        day = timezone.localdate() - timedelta(days=1)
    start, end = period_bounds(day, day)
    tables = (Table.objects.filter(pk__in=Hand.objects.filter(opened_at__gte=start, opened_at__lt=end)
                                   .values("table_id"))
              | Table.objects.filter(bank_tenures__opened_at__lt=end, bank_tenures__closed_at__isnull=True)
              | Table.objects.filter(bank_tenures__closed_at__gte=start, bank_tenures__closed_at__lt=end))
    return [report_request(kind=ReportKind.BANKS, table=table, date_from=day, date_to=day, requested_by=None)
            for table in tables.distinct().order_by("name")]
