"""Redis down, the site serves; a 500 leaves its traceback in the process's log.

gunicorn runs the production settings with Redis unreachable (``CACHE_URL`` and
``CELERY_BROKER_URL`` at a closed port, not the shared Redis stopped): every role logs in
and every page of its navigation answers, the token endpoint hands a token, and a report
request waits in the outbox (pending, not sent). With the database unreachable instead,
the 500 is logged on standard error, one line per record with its traceback."""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import pytest
import requests
from django.conf import settings as django_settings
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.contrib.auth.models import User
from django.db import connection

from reports.models import ReportRequest
from tests.conftest import ROOT
from tests.factories import UserFactory
from tests.tables.conftest import mesa  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)

CLOSED = "redis://127.0.0.1:1/0"
PASSWORD = "secret-pass-1"
GUNICORN = str(Path(sys.executable).with_name("gunicorn"))


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def database_url(name):
    """The test database's URL (the test run's own server), or another database's on it."""
    db = connection.settings_dict
    auth = db["USER"] + (f":{urllib.parse.quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
    host = urllib.parse.quote(db["HOST"] or "127.0.0.1", safe="")  # a socket's directory, percent-encoded
    return f"postgres://{auth}@{host}:{db['PORT'] or 5432}/{name}"


@pytest.fixture(scope="module")
def static_root(tmp_path_factory):
    """collectstatic once (production's manifest storage needs it)."""
    root = tmp_path_factory.mktemp("static")
    env = {**production_env("postgres://nobody@127.0.0.1:1/none"), "DJANGO_STATIC_ROOT": str(root)}
    subprocess.run([sys.executable, "manage.py", "collectstatic", "--noinput"], env=env, cwd=ROOT,
                   check=True, capture_output=True)
    return root


def production_env(database):
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "DJANGO_SETTINGS_MODULE": "casino.settings.production",
            "DJANGO_SECRET_KEY": "test-only-9yJ2kQ9vXw4pL8mN3bR6tZ1cF5hD0gS-aE7uY2iO9x",
            "DATABASE_URL": database, "CACHE_URL": CLOSED, "CELERY_BROKER_URL": CLOSED,
            "DJANGO_ALLOWED_HOSTS": "127.0.0.1", "DJANGO_HTTPS": "false",
            "CHAIN_KEY": django_settings.CHAIN_KEY or "test-only-chain-key-3fK8sW1qZ6xV9bN2mL5pR7tY0uE4hJ"}


class Gunicorn:
    """gunicorn with the production settings, its standard error kept."""

    def __init__(self, database, static_root, log):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = log
        env = {**production_env(database), "DJANGO_STATIC_ROOT": str(static_root)}
        self.stream = open(log, "w")
        self.process = subprocess.Popen(
            [GUNICORN, "casino.wsgi:application", "--config", "python:casino.gunicorn_conf",
             "--bind", f"127.0.0.1:{self.port}", "--workers", "1"],
            env=env, cwd=ROOT, stdout=self.stream, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log()
            try:
                requests.get(self.url + "/accounts/login/", timeout=60)
                return
            except requests.ConnectionError:
                time.sleep(0.2)
        raise AssertionError("gunicorn did not answer:\n" + self.log())

    def log(self):
        return self.log_path.read_text()

    def stop(self):
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        self.stream.close()


@pytest.fixture
def serve(static_root, tmp_path):
    started = []

    def start(database):
        server = Gunicorn(database, static_root, tmp_path / f"gunicorn-{len(started)}.log")
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def production_passwords():
    """The users' passwords hashed as production checks them (the test settings' hasher is
    MD5, which production does not read)."""
    hasher = PBKDF2PasswordHasher()
    for user in User.objects.all():
        User.objects.filter(pk=user.pk).update(password=hasher.encode(PASSWORD, hasher.salt(), iterations=1000))


def logged_in(server, username):
    session = requests.Session()
    page = session.get(server.url + "/accounts/login/", timeout=10)
    assert page.status_code == 200, page.text[:500]
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
    answer = session.post(server.url + "/accounts/login/", timeout=10, allow_redirects=False,
                          data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token})
    assert answer.status_code == 302, (username, answer.status_code, answer.text[:500])
    return session


def site_links(html):
    """The site's own pages a page links to (not the logout, the language switch, files)."""
    links = set()
    for href in re.findall(r'href="(/[^"#?]*)', html):
        if not href.startswith(("/static/", "/accounts/logout", "/i18n/")) and not href.endswith((".csv", ".pdf")):
            links.add(href)
    return links


def test_with_redis_down_every_role_logs_in_and_every_page_serves(mesa, serve):  # noqa: F811
    UserFactory(username="cage1", roles=["cage_supervisor"])
    UserFactory(username="compliance1", roles=["compliance_officer"])
    UserFactory(username="admin1", roles=["admin"])
    production_passwords()
    server = serve(database_url(connection.settings_dict["NAME"]))
    for username in ("dealer1", "pit1", "caja1", "audit1", "cage1", "compliance1", "admin1"):
        session = logged_in(server, username)
        home = session.get(server.url + "/", timeout=10)
        assert home.status_code == 200, (username, home.text[:500])
        pages = site_links(home.text) | {"/admin/", "/api/docs/", "/api/tables/"}
        for page in sorted(pages):
            answer = session.get(server.url + page, timeout=20)
            assert answer.status_code < 500, (username, page, answer.status_code)
        # The session outlives the request that made it (read back from the database).
        assert session.get(server.url + "/", timeout=10, allow_redirects=False).status_code == 200
        assert session.post(server.url + "/accounts/logout/", timeout=10, allow_redirects=False,
                            headers={"X-CSRFToken": session.cookies.get("csrftoken", ""),
                                     "Referer": server.url + "/"}).status_code in (200, 302)

    token = requests.post(server.url + "/api/auth/token/", json={"username": "audit1", "password": PASSWORD},
                          timeout=10)
    assert token.status_code == 200, token.text[:500]
    auth = {"Authorization": f"Token {token.json()['token']}"}
    assert requests.get(server.url + "/api/tables/", headers=auth, timeout=10).status_code == 200

    # A report request waits in the outbox: accepted, pending, not sent.
    today = time.strftime("%Y-%m-%d")
    asked = requests.post(server.url + "/api/reports/requests/", timeout=20,
                          json={"kind": "banks", "table": mesa.table.pk, "date_from": today, "date_to": today},
                          headers={**auth, "Idempotency-Key": "redis-down-1"})
    assert asked.status_code == 202, asked.text[:500]
    request = ReportRequest.objects.get(pk=asked.json()["id"])
    assert request.status == ReportRequest.Status.PENDING and request.dispatched_at is None
    assert " 500 " not in server.log() and "Traceback" not in server.log()
    assert "the cache is unreachable" in server.log()


def test_a_500_leaves_its_traceback_in_the_process_log_one_line_per_record(db, serve):
    server = serve(database_url("no_such_database_for_this_test"))
    answer = requests.post(server.url + "/api/auth/token/", json={"username": "audit1", "password": PASSWORD},
                           timeout=20)
    assert answer.status_code == 500
    deadline = time.monotonic() + 10
    while "django.request" not in server.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    lines = [line for line in server.log().splitlines() if "ERROR django.request" in line]
    assert lines, server.log()[-3000:]
    (line,) = lines[:1]
    assert "/api/auth/token/" in line and "Traceback (most recent call last):" in line
    assert "no_such_database_for_this_test" in line  # the exception's message, on the same line
