"""Reports never stick (issue 14): a request whose worker died is sent again within
minutes, one the broker lost is resent, a message given twice runs the request once, and
the request's answer says truly whether the broker took it."""

import uuid
from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from casino.celery import app as celery_app
from reports import services
from reports.models import Report, ReportKind, ReportRequest
from reports.services import (
    MAX_ATTEMPTS,
    RUN_LOCK,
    report_dispatch_pending,
    report_request,
    report_run,
)
from tests.conftest import redis_test_url


def ask(played, shift):
    return report_request(kind=ReportKind.SHIFT, table=played.table, shift=shift, requested_by=None)


def died_running(request, *, ago, attempts=1):
    """The request as a worker killed in the middle leaves it: running, started ``ago``."""
    ReportRequest.objects.filter(pk=request.pk).update(status="running", started_at=timezone.now() - ago,
                                                       dispatched_at=timezone.now() - ago, attempts=attempts,
                                                       progress=40, stage="ledger")


def reset_pool():
    """Forget the broker connections kept for the old broker URL (a new pool is made on use)."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def other_worker():
    """A second database session, as another worker's: ``hold(request_id)`` takes the run's
    lock there (a run alive elsewhere)."""
    params = connection.get_connection_params()
    session = psycopg.connect(dbname=params["dbname"], host=params.get("host"), port=params.get("port"),
                              user=params.get("user"), autocommit=True)

    def hold(request_id):
        session.execute("SELECT pg_advisory_lock(%s, %s)", [RUN_LOCK, request_id])

    yield hold
    session.close()


def test_redis_redelivers_an_unacknowledged_task_within_minutes_not_an_hour():
    assert celery_app.conf.task_acks_late and celery_app.conf.task_reject_on_worker_lost
    assert celery_app.conf.broker_transport_options["visibility_timeout"] == 300


def test_a_request_whose_worker_died_is_run_again_by_the_sweep(played):
    shift = played.close()
    request = ask(played, shift)
    died_running(request, ago=timedelta(minutes=2))
    assert report_dispatch_pending() == 1  # eager: sent and run here
    request.refresh_from_db()
    assert (request.status, request.attempts, request.progress) == ("done", 2, 100)
    assert request.report.result["summary"]["handle"] == "80.00" and Report.objects.count() == 1


def test_a_run_just_started_is_given_its_grace(played):
    request = ask(played, played.close())
    died_running(request, ago=timedelta(seconds=10))
    assert report_dispatch_pending() == 0
    request.refresh_from_db()
    assert request.status == "running"


def test_a_run_alive_in_another_worker_is_left_to_it(played, other_worker):
    request = ask(played, played.close())
    died_running(request, ago=timedelta(minutes=10))
    other_worker(request.pk)
    assert report_dispatch_pending() == 0
    request.refresh_from_db()
    assert (request.status, request.attempts) == ("running", 1)
    # the same message given to this worker meanwhile: it leaves the request to the run alive
    assert report_run(request_id=request.pk).status == "running"
    assert not Report.objects.exists()


def test_a_request_whose_worker_keeps_dying_fails_with_the_reason(played):
    request = ask(played, played.close())
    died_running(request, ago=timedelta(minutes=2), attempts=MAX_ATTEMPTS)
    report_dispatch_pending()
    request.refresh_from_db()
    assert request.status == "failed" and f"se detuvo {MAX_ATTEMPTS} veces" in request.error  # the site speaks Spanish


def test_a_message_the_broker_lost_is_resent_after_minutes(played):
    request = ask(played, played.close())  # inside the test's transaction: not sent
    ReportRequest.objects.filter(pk=request.pk).update(dispatched_at=timezone.now() - timedelta(minutes=1))
    assert report_dispatch_pending() == 0  # sent a minute ago: not yet
    ReportRequest.objects.filter(pk=request.pk).update(dispatched_at=timezone.now() - timedelta(minutes=4))
    assert report_dispatch_pending() == 1
    request.refresh_from_db()
    assert request.status == "done" and Report.objects.count() == 1


def test_a_request_stores_one_version_however_often_its_task_runs(played, monkeypatch):
    request = ask(played, played.close())
    assert report_run(request_id=request.pk).status == "done"
    assert report_run(request_id=request.pk).status == "done"
    assert Report.objects.count() == 1
    # a run that finishes after another stored the request's report stores nothing
    again = ask(played, played.shift)
    real = services.report_compute

    def twin_finishes_first(**kwargs):
        result = real(**kwargs)
        ReportRequest.objects.filter(pk=again.pk).update(status="done")
        return result

    monkeypatch.setattr(services, "report_compute", twin_finishes_first)
    report_run(request_id=again.pk)
    assert Report.objects.count() == 1


# --------------------------------------------------------------------------- the answer

#: The brokers of the answer's test: a closed port (Redis down), Redis itself.
BROKERS = {"down": "redis://127.0.0.1:1/0", "redis": redis_test_url()}


@pytest.fixture
def broker(request):
    """Celery not eager, its broker ``BROKERS[request.param]``: a closed port (Redis down)
    or Redis itself (db 2, or this xdist worker's own: ``redis_test_url``); the queue is
    purged afterwards."""
    saved = (celery_app.conf.task_always_eager, celery_app.conf.broker_url)
    celery_app.conf.task_always_eager = False
    celery_app.conf.broker_url = BROKERS[request.param]
    reset_pool()
    yield BROKERS[request.param]
    if request.param == "redis":
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge("celery")
    celery_app.conf.task_always_eager, celery_app.conf.broker_url = saved
    reset_pool()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("broker", "queued"), [("down", False), ("redis", True)], indirect=["broker"])
def test_the_apis_answer_says_truly_whether_the_broker_took_the_report(mesa, staff, broker, queued):
    from tests.api.test_hands import P01

    hand = mesa.open("luis", "marta")
    mesa.play(hand, *P01)
    shift = mesa.table.shifts.get()
    shift.closed_at, shift.closed_by = timezone.now(), staff["supervisor"]
    shift.save(update_fields=["closed_at", "closed_by"])  # closed without its own request
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=staff['auditor']).key}")
    key = str(uuid.uuid4())
    answer = client.post("/api/reports/requests/", {"kind": "shift", "shift": shift.pk}, format="json",
                         headers={"Idempotency-Key": key})
    assert answer.status_code == 202, answer.json()
    assert answer.json()["queued"] is queued and answer.json()["status"] == "pending"
    stored = ReportRequest.objects.get(pk=answer.json()["id"])
    assert (stored.dispatched_at is not None) is queued
    again = client.post("/api/reports/requests/", {"kind": "shift", "shift": shift.pk}, format="json",
                        headers={"Idempotency-Key": key})
    assert again["Idempotent-Replayed"] == "true" and again.json()["queued"] is queued
