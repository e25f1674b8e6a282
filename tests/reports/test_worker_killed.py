"""A real Celery worker killed in the middle of a report (issue 14 "Reports never stick"):
Redis gives the unacknowledged task to the next worker once the visibility timeout has
passed, and that worker computes the report. On Redis (``tests.conftest.redis_test_url``:
db 2, or this xdist worker's own) with two real worker processes; the test database is
shared with them."""

import os
import signal
import subprocess
import sys
import time

import psycopg
import pytest
from django.db import connection

from casino.celery import app as celery_app
from reports.models import Report, ReportKind, ReportRequest
from reports.services import report_request, report_run_alive
from tests.conftest import ROOT, database_url, mesa_ready, redis_test_url
from tests.reports.conftest import P01, TableInPlay

BROKER = redis_test_url()


def reset_pool():
    """Forget the broker connections kept for the old broker URL (a new pool is made on use)."""
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def wait_for(check, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.3)
    pytest.fail(f"waited {seconds} s for {what}")


def worker(env):
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "casino", "worker", "--concurrency", "1",
                             "--pool", "solo", "--loglevel", "info", "--without-heartbeat", "--without-mingle",
                             "--without-gossip"], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_report_leaves_the_task_to_the_next_worker(staff):
    table, players = mesa_ready(staff)
    mesa = TableInPlay(table, staff, players)
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()  # eager here: its report is version 1
    params = connection.get_connection_params()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.test", "CELERY_TASK_ALWAYS_EAGER": "false",
           "CELERY_BROKER_URL": BROKER, "CELERY_VISIBILITY_TIMEOUT": "2",
           "DATABASE_URL": database_url(**{key: params.get(key) for key in ("dbname", "user", "host", "port")})}
    saved = (celery_app.conf.task_always_eager, celery_app.conf.broker_url)
    celery_app.conf.task_always_eager, celery_app.conf.broker_url = False, BROKER
    reset_pool()
    blocker = first = second = None
    try:
        blocker = psycopg.connect(dbname=params["dbname"], host=params.get("host"), port=params.get("port"),
                                  user=params.get("user"))
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge("celery")
        request = report_request(kind=ReportKind.SHIFT, table=table, shift=shift, requested_by=None)
        assert request.dispatched_at is not None  # the broker took it
        # Hold the request's row: the worker takes the run's lock, then waits on the row.
        blocker.execute("SELECT id FROM reports_reportrequest WHERE id = %s FOR UPDATE", [request.pk])
        first = worker(env)
        wait_for(lambda: report_run_alive(request.pk), 60, "the first worker to start the run")
        os.killpg(first.pid, signal.SIGKILL)  # killed in the middle: the task was never acknowledged
        first.wait(10)
        wait_for(lambda: not report_run_alive(request.pk), 10, "the dead worker's lock to go")
        blocker.rollback()
        time.sleep(2.5)  # past the visibility timeout
        second = worker(env)
        wait_for(lambda: ReportRequest.objects.get(pk=request.pk).status == "done", 90,
                 "the next worker to compute the report")
        done = ReportRequest.objects.get(pk=request.pk)
        assert done.report.version == 2 and done.report.result["summary"]["handle"] == "30.00"
        assert Report.objects.filter(shift=shift).count() == 2
    finally:
        if blocker is not None:
            blocker.close()
        for process in (first, second):
            if process is not None and process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(20)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
        with celery_app.connection_for_write() as conn:
            conn.default_channel.queue_purge("celery")
        celery_app.conf.task_always_eager, celery_app.conf.broker_url = saved
        reset_pool()
