"""Running the reports: requests, Celery tasks (eager here), idempotency, the shift's
close queueing its report, the outbox while Redis is down, a worker killed mid-way."""

from datetime import timedelta

import pytest
from django.utils import timezone
from django_celery_beat.models import PeriodicTask

from casino.celery import app as celery_app
from reports import services
from reports.models import Report, ReportKind, ReportRequest
from reports.services import ReportError, report_dispatch_pending, report_request, report_run
from tables.models import Shift
from tests.reports.conftest import P01


def ask_shift(mesa, shift=None, by=None):
    shift = shift or mesa.shift
    return report_request(kind=ReportKind.SHIFT, table=mesa.table, shift=shift, requested_by=by)


def test_a_request_runs_on_commit_and_stores_the_report(played, django_capture_on_commit_callbacks):
    shift = played.close()
    with django_capture_on_commit_callbacks(execute=True):
        request = ask_shift(played, shift, by=played.staff["auditor"])
    request.refresh_from_db()
    assert (request.status, request.progress, request.stage) == ("done", 100, "done")
    assert request.dispatched_at is not None and request.attempts == 1
    report = request.report
    assert (report.kind, report.key, report.shift_id, report.version, report.at_close) == (
        "shift", f"shift:{shift.pk}", shift.pk, 1, True)
    assert report.result["summary"]["handle"] == "80.00" and report.exceptions == 0


def test_running_twice_adds_a_version_beside_the_first(played, django_capture_on_commit_callbacks):
    shift = played.close()
    with django_capture_on_commit_callbacks(execute=True):
        first = ask_shift(played, shift)
    stored = Report.objects.get()
    with django_capture_on_commit_callbacks(execute=True):
        second = ask_shift(played, shift)
    assert first.pk != second.pk
    old, new = Report.objects.order_by("version")  # two versions, the first untouched
    assert (old.pk, old.version, old.at_close, old.result, old.computed_at) == (
        stored.pk, 1, True, stored.result, stored.computed_at)
    assert (new.version, new.at_close, new.key) == (2, False, old.key)
    drop = {"computed_at"}
    assert {k: v for k, v in new.result.items() if k not in drop} == {
        k: v for k, v in old.result.items() if k not in drop}
    # the task given twice (acks_late redelivery) adds nothing
    assert report_run(request_id=second.pk).status == "done"
    assert Report.objects.count() == 2


def test_asking_twice_while_pending_gives_the_same_request(played):
    shift = played.close()
    first = ask_shift(played, shift)
    second = ask_shift(played, shift, by=played.staff["auditor"])
    assert first.pk == second.pk and ReportRequest.objects.count() == 1


def test_closing_a_shift_queues_its_report(mesa, django_capture_on_commit_callbacks):
    mesa.hand(["luis", "marta"], P01)
    with django_capture_on_commit_callbacks(execute=True):
        shift = mesa.close()
    request = ReportRequest.objects.get(shift=shift)
    assert (request.kind, request.requested_by, request.status) == ("shift", None, "done")
    assert request.report.result["summary"]["players_net"] == "-10.00"


@pytest.fixture
def redis_down():
    """The broker at a closed port and Celery no longer eager, as in production with
    Redis stopped; restored afterwards."""
    saved = (celery_app.conf.task_always_eager, celery_app.conf.broker_url)
    celery_app.conf.task_always_eager = False
    celery_app.conf.broker_url = "redis://127.0.0.1:1/0"
    yield
    celery_app.conf.task_always_eager, celery_app.conf.broker_url = saved


def test_redis_down_hands_settle_and_the_report_waits_in_the_outbox(mesa, redis_down,
                                                                    django_capture_on_commit_callbacks):
    hand = mesa.hand(["luis", "marta"], P01)
    assert hand.status == "settled" and hand.transaction is not None
    with django_capture_on_commit_callbacks(execute=True):
        shift = mesa.close()
    shift.refresh_from_db()
    assert shift.closed_at is not None
    request = ReportRequest.objects.get(shift=shift)
    assert (request.status, request.dispatched_at, request.report) == ("pending", None, None)
    assert report_dispatch_pending() == 0  # still down: still pending
    request.refresh_from_db()
    assert request.status == "pending" and request.dispatched_at is None
    # Redis is back
    celery_app.conf.task_always_eager = True
    assert report_dispatch_pending() == 1
    request.refresh_from_db()
    assert request.status == "done" and request.report.result["summary"]["handle"] == "30.00"


def test_the_dispatch_reports_command_sends_what_waited(mesa, redis_down, django_capture_on_commit_callbacks):
    from io import StringIO

    from django.core.management import call_command

    mesa.hand(["luis", "marta"], P01)
    with django_capture_on_commit_callbacks(execute=True):
        shift = mesa.close()
    celery_app.conf.task_always_eager = True
    out = StringIO()
    call_command("dispatch_reports", stdout=out)
    assert "1 request(s) sent, 0 still waiting" in out.getvalue()
    assert ReportRequest.objects.get(shift=shift).status == "done"


def test_a_worker_killed_while_storing_leaves_no_half_report(played, monkeypatch):
    shift = played.close()
    report_run(request_id=ask_shift(played, shift).pk)
    before = Report.objects.get()
    # the hands change (a void), then the worker dies in the middle of writing the new report
    from tables.models import Hand

    played.void(Hand.objects.get(table=played.table, number=3), "a late complaint upheld")
    real_store = services.report_store

    def store_then_die(**kwargs):
        real_store(**kwargs)
        raise SystemExit("SIGKILL")  # nothing after this point runs, as with a killed process

    monkeypatch.setattr(services, "report_store", store_then_die)
    again = ask_shift(played, shift)
    with pytest.raises(SystemExit):
        report_run(request_id=again.pk)
    after = Report.objects.get()
    assert (after.version, after.result) == (before.version, before.result)  # the old report, whole
    again.refresh_from_db()
    assert again.status == "running" and again.report is None
    # the broker gives the task again (acks_late): this time it finishes
    monkeypatch.setattr(services, "report_store", real_store)
    assert report_run(request_id=again.pk).status == "done"
    old, after = Report.objects.order_by("version")
    assert old.result == before.result and old.at_close
    assert after.version == 2 and after.result["summary"]["voided"] == 2
    again.refresh_from_db()
    assert again.attempts == 2


def test_a_failing_computation_marks_the_request_failed(played, monkeypatch):
    shift = played.close()

    def broken(shift, progress=None):
        raise ValueError("the bets do not add up")

    monkeypatch.setattr(services, "shift_report", broken)
    request = report_run(request_id=ask_shift(played, shift).pk)
    assert request.status == "failed" and "the bets do not add up" in request.error
    assert not Report.objects.exists()


def test_progress_is_written_as_it_goes(played, monkeypatch):
    shift = played.close()
    seen = []
    real = services._Progress.__call__

    def record(self, percent, stage):
        seen.append((percent, stage))
        real(self, percent, stage)
        assert ReportRequest.objects.get(pk=self.request_id).progress == percent

    monkeypatch.setattr(services._Progress, "__call__", record)
    report_run(request_id=ask_shift(played, shift).pk)
    percents = [p for p, _stage in seen]
    assert percents == sorted(percents) and percents[0] < 50 and percents[-1] == 100
    assert {"bets", "ledger", "cards", "chain"} <= {stage for _p, stage in seen}


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_the_report_reads_one_snapshot(played):
    """The task's real path: a REPEATABLE READ snapshot, progress through a second
    connection (visible at once to the page polling it)."""
    shift = played.close()
    request = ask_shift(played, shift)  # eager: it ran on commit already
    request.refresh_from_db()
    assert request.status == "done" and request.report.result["summary"]["settled"] == 3


def test_request_refusals(mesa):
    with pytest.raises(ReportError) as caught:
        report_request(kind=ReportKind.SHIFT, table=mesa.table, shift=None, requested_by=None)
    assert caught.value.field == "shift"
    with pytest.raises(ReportError) as caught:
        report_request(kind=ReportKind.BANKS, table=mesa.table, date_from=timezone.localdate(),
                       date_to=timezone.localdate() - timedelta(days=1), requested_by=None)
    assert caught.value.field == "date_to"
    with pytest.raises(ReportError):
        report_request(kind="weekly", table=mesa.table, requested_by=None)


def test_the_sweep_catches_a_missed_shift_and_a_dead_worker(mesa):
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()  # not captured: as if the process stopped before asking for the report
    assert not ReportRequest.objects.filter(shift=shift).exists()
    stuck = ReportRequest.objects.create(kind="banks", key="banks:x", table=mesa.table,
                                         date_from=timezone.localdate(), date_to=timezone.localdate(),
                                         status="running", started_at=timezone.now() - timedelta(hours=5))
    report_dispatch_pending()
    stuck.refresh_from_db()
    assert stuck.status == "failed" and stuck.error
    assert ReportRequest.objects.get(shift=shift).status == "done"


def test_beat_holds_the_schedules(db):
    import importlib

    from django.apps import apps

    # The data migration's own function (idempotent): a transactional test elsewhere in
    # the suite may have flushed what the migration wrote.
    importlib.import_module("reports.migrations.0003_schedules").create(apps, None)
    sweep = PeriodicTask.objects.get(task="reports.dispatch_pending")
    assert sweep.enabled and (sweep.interval.every, sweep.interval.period) == (1, "minutes")
    nightly = PeriodicTask.objects.get(task="reports.nightly_bank_reports")
    assert nightly.enabled and (nightly.crontab.hour, nightly.crontab.minute) == ("6", "30")


def test_the_nightly_task_asks_for_each_table_that_played(mesa, django_capture_on_commit_callbacks):
    from reports.tasks import nightly_bank_reports

    mesa.hand(["luis", "marta"], P01)
    today = timezone.localdate()
    with django_capture_on_commit_callbacks(execute=True):
        assert nightly_bank_reports(day=today.isoformat()) == 1
    report = Report.objects.get(kind="banks")
    assert (report.table, report.date_from, report.date_to) == (mesa.table, today, today)
    assert Shift.objects.count() == 1
