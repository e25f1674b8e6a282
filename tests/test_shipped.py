"""Proven as shipped (``make shipped``; CI runs it after the suite).

Exactly the files the Dockerfile copies (``tests.image``) go into a scratch directory and
are installed there as the Dockerfile installs them (``pip install -e .``) into a fresh
virtual environment. With the production settings: ``check --deploy`` passes, then
migrate, collectstatic and the demo data; gunicorn, a Celery worker and Celery beat run on
Redis (as docker-compose.yml runs them, over plain HTTP on loopback, connected as the
app's database role while the migrations ran as the owner); Debian's Chromium
walks it: a page in Spanish, a dealer enters a whole hand at the console through the
page, an auditor asks for a shift's report and the worker computes it; then the floor's
walk (``_floor_walk``), at 1024×768 and at 390×844, each page screenshotted and checked for
sideways scroll: the pit refused a rebuild of a healthy bank (and not offered one), a bank
given up and auctioned with the words of where its capital comes from, a cashier's buy-in
voided by a cage supervisor through the drawer's pages, the drawer's close with a line per
kind of slip, a CSV downloaded in the reader's convention, the auditors' review. Last,
one gaming day walked end to end (``_day_walk``): compliance loads an exclusion file, a
patron registered with his identity buys in and is admitted at his first bet, an excluded
one is refused at the cage, a shift opened, hands played at the console, the dealer relieved
mid-session, a dispute opened and decided, the shift closed and its boxes counted, the
day's results and journal (balanced, each account's net the ledger's movement by SQL),
and the month's statement computed by the worker and signed by the auditor (web and
worker restarted a day later, Django's clock moved on by a ``sitecustomize`` of the
test's: a month's statement counts the gaming days that are over). Everything is then stopped (each process must end on SIGTERM) and the scratch database
dropped.

Environment: the PostgreSQL server of ``DATABASE_URL`` (a database ``shipped_<pid>`` is
made on it), Redis at ``SHIPPED_REDIS`` (default ``redis://127.0.0.1:6379/1``), a free
port from ``SHIPPED_PORTS`` (default 8100-8199; from a place in it that depends on the
process). The walk's screenshots go to ``SHIPPED_SHOTS`` if set, else to the test's
temporary directory (``shots/``), which pytest keeps after the run.
"""

import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

import psycopg
import pytest
import redis as redis_client

from tests.image import copy_image_files

pytestmark = pytest.mark.shipped

CHROMIUM = Path("/usr/bin/chromium")
#: The ``sitecustomize`` of the walk's next day: Django's clock a day on.
NEXT_DAY = """import datetime

from django.utils import timezone

_now = timezone.now


def now():
    return _now() + datetime.timedelta(days=1)


timezone.now = now
"""
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"]
TIMEOUT = 30_000  # ms: a shared 2-core machine
#: Cards the walk deals, in order: no 4 (exchanged), no figure (7½ passes the bank).
CARDS = [f"{rank}{suit}" for suit in "OCEB" for rank in (1, 2, 3, 5, 6, 7)]


def _port():
    """A port of ``SHIPPED_PORTS`` nothing is bound to, looked for from a place of the
    range that depends on this process (runs beside each other seldom try the same one)."""
    low, high = (int(n) for n in os.environ.get("SHIPPED_PORTS", "8100-8199").split("-"))
    span = high - low + 1
    for offset in range(span):
        port = low + (os.getpid() + offset) % span
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {low}-{high}")


def _database_url(name):
    parts = urllib.parse.urlsplit(os.environ["DATABASE_URL"])
    return urllib.parse.urlunsplit(parts._replace(path=f"/{name}"))


def _run(command, env, cwd, timeout=600):
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{' '.join(map(str, command))}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout


class Processes:
    """Long-running processes, each in a session of its own, logging to a file."""

    def __init__(self, logs):
        self.logs, self.running = logs, []

    def start(self, name, command, env, cwd):
        log = open(self.logs / f"{name}.log", "w")
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.running.append((name, process, log))
        return process

    def restart(self, name, command, env, cwd):
        """Stop ``name`` (SIGTERM; it must exit 0) and start ``command`` in its place, logging
        to ``<name>-<n>.log`` (the earlier logs kept)."""
        index = next(i for i, (each, _process, _log) in enumerate(self.running) if each == name)
        _name, process, log = self.running.pop(index)
        os.killpg(process.pid, signal.SIGTERM)
        assert process.wait(timeout=60) == 0, f"{name} did not stop cleanly:\n{self.log(name)[-3000:]}"
        log.close()
        restarts = sum(1 for path in self.logs.glob(f"{name}-*.log")) + 2
        log = open(self.logs / f"{name}-{restarts}.log", "w")
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        self.running.append((name, process, log))
        self.renamed = {**getattr(self, "renamed", {}), name: f"{name}-{restarts}"}
        return process

    def log(self, name):
        return (self.logs / f"{getattr(self, 'renamed', {}).get(name, name)}.log").read_text()

    def check_alive(self):
        for name, process, _log in self.running:
            assert process.poll() is None, f"{name} stopped:\n{self.log(name)[-3000:]}"

    def stop(self):
        """SIGTERM to each; ``{name: exit status}`` (SIGKILL after 60 s: status None)."""
        for _name, process, _log in self.running:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        statuses = {}
        for name, process, log in self.running:
            try:
                statuses[name] = process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                statuses[name] = None
            log.close()
        self.running = []
        return statuses


def _wait_for(condition, processes, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        processes.check_alive()
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"not within {seconds} s: {condition}")


def _answers(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def shipped(tmp_path, embedded_postgresql):
    """The image's files installed in a fresh virtual env, on a scratch database: yields
    ``(directory, environment, database URL)``."""
    app = tmp_path / "app"
    copy_image_files(app)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], os.environ, tmp_path)
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "-e", "."], os.environ, app, timeout=1200)
    name = f"shipped_{os.getpid()}"
    url = _database_url(name)  # the owner's (DATABASE_URL's role): the migrations run as it
    app_role = f"{name}_app"  # the app's: owns nothing, no superuser (docker-compose.yml's casino_app)
    with psycopg.connect(_database_url("postgres"), autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        connection.execute(f'DROP ROLE IF EXISTS "{app_role}"')
        connection.execute(f'CREATE DATABASE "{name}"')
    redis = os.environ.get("SHIPPED_REDIS", "redis://127.0.0.1:6379/1")
    # The run's broker starts empty: a task an earlier run left queued (a sweep its beat sent
    # and its worker never took) would be taken for this run's.
    redis_client.Redis.from_url(redis).flushdb()
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(app),  # the Dockerfile's ENV
           "DJANGO_SETTINGS_MODULE": "casino.settings.production",
           "DJANGO_SECRET_KEY": "shipped-test-only-5mQ8rT2wK9xZ4vB7nL1pD6gH3jF0sA-cE8yU",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "DATABASE_URL": _as_role(url, app_role, "shipped-app-1"),
           "CELERY_BROKER_URL": redis, "CACHE_URL": redis, "CHAIN_KEY": "shipped-test-only-chain-key-8dQ2wE5rT7yU1iO4pA",
           "DJANGO_STATIC_ROOT": str(tmp_path / "staticfiles"), "SEAL_WITNESS_DIR": str(tmp_path / "witness")}
    try:
        yield app, env, url
    finally:
        with psycopg.connect(_database_url("postgres"), autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            connection.execute(f'DROP ROLE IF EXISTS "{app_role}"')


def _as_role(url, role, password):
    """``url`` connecting as ``role`` with ``password``."""
    parts = urllib.parse.urlsplit(url)
    host = parts.netloc.rpartition("@")[2]  # host:port, or nothing (a Unix socket's ?host=)
    return urllib.parse.urlunsplit(parts._replace(netloc=f"{role}:{password}@{host}"))


def test_the_image_installs_checks_clean_and_runs_as_shipped(shipped, tmp_path):
    app, env, url = shipped
    manage = ["python", "manage.py"]
    # Deployed for real: HTTPS (the defaults). Django's deployment checks pass.
    _run([*manage, "check", "--deploy", "--fail-level", "WARNING"], env, app)
    # docker-compose.yml's machine of one's own: plain HTTP on loopback.
    env = {**env, "DJANGO_HTTPS": "false"}
    # As docker-compose.yml's migrate service: the app's role made, the migrations run as
    # the owner (MIGRATE_DATABASE_URL, which only this step has), the role granted.
    _run(["sh", "-c", "python manage.py app_role && python manage.py migrate --noinput"],
         {**env, "MIGRATE_DATABASE_URL": url}, app)
    _run([*manage, "collectstatic", "--noinput"], env, app)
    _run([*manage, "demo"], env, app)

    port = _port()
    processes = Processes(tmp_path)
    try:
        processes.start("web", ["gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}",
                                "--workers", "2", "--access-logfile", "-"], env, app)
        processes.start("worker", ["celery", "-A", "casino", "worker", "--loglevel", "info", "--concurrency", "2"],
                        env, app)  # docker-compose.yml's
        processes.start("beat", ["celery", "-A", "casino", "beat", "--loglevel", "info",
                                 "--scheduler", "django_celery_beat.schedulers:DatabaseScheduler"], env, app)
        _wait_for(lambda: _answers(port), processes, seconds=60)
        shots = Path(os.environ.get("SHIPPED_SHOTS") or tmp_path / "shots")
        shots.mkdir(parents=True, exist_ok=True)
        _walk(f"http://127.0.0.1:{port}", url, shots)
        _runs_as_the_apps_role(env["DATABASE_URL"], url)
        assert re.search(r"Task reports\.run_report\[[^]]+\] succeeded", processes.log("worker")), processes.log("worker")
        _audits_clean_with_the_witness(env, app, processes)
        # Beat sends the outbox's sweep once a minute from the database's schedule; the
        # worker runs it.
        _wait_for(lambda: "Sending due task reports: send pending report requests" in processes.log("beat"),
                  processes, seconds=100)
        _wait_for(lambda: re.search(r"Task reports\.dispatch_pending\[[^]]+\] succeeded", processes.log("worker")),
                  processes, seconds=60)
        web = ["gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "2",
               "--access-logfile", "-"]
        worker = ["celery", "-A", "casino", "worker", "--loglevel", "info", "--concurrency", "2"]

        def next_day():
            """Web and worker restarted a day later: the walked day is over. Their clock is
            Django's (``django.utils.timezone.now``) a day on, set by a ``sitecustomize``
            of the test's on their ``PYTHONPATH`` (libfaketime hangs a thread's timed wait)."""
            later = tmp_path / "next-day"
            later.mkdir(exist_ok=True)
            (later / "sitecustomize.py").write_text(NEXT_DAY, encoding="utf-8")
            faked = {**env, "PYTHONPATH": f"{later}:{env['PYTHONPATH']}"}
            processes.restart("web", web, faked, app)
            processes.restart("worker", worker, faked, app)
            _wait_for(lambda: _answers(port), processes, seconds=60)
            _wait_for(lambda: "ready." in processes.log("worker"), processes, seconds=60)

        _day_walk(f"http://127.0.0.1:{port}", url, shots, next_day)
        assert re.search(r"Task reports\.monthly_statement\[[^]]+\] succeeded", processes.log("worker")), \
            processes.log("worker")[-3000:]
    finally:
        statuses = processes.stop()
    assert statuses == {"web": 0, "worker": 0, "beat": 0}, statuses


def _walk(base_url, url, shots):
    """Chromium: a page in Spanish; the dealer's hand; the auditor's report; the floor's
    walk at both sizes (screenshots in ``shots``)."""
    from playwright.sync_api import sync_playwright

    with psycopg.connect(url) as connection:
        table_id, min_bet = connection.execute("SELECT id, min_bet FROM tables_table WHERE name = 'Mesa 1'").fetchone()
        (shift_id,) = connection.execute("SELECT id FROM tables_shift WHERE table_id = %s AND closed_at IS NULL",
                                         [table_id]).fetchone()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = _page(browser, base_url)
            page.goto("/accounts/login/")
            assert page.get_attribute("html", "lang") == "es"
            assert page.inner_text("main h1") == "Iniciar sesión"  # locale/'s catalogue, in the image

            _log_in(page, "dealer", "demo-dealer", f"/tables/console/{table_id}/")
            _play_a_hand(page, min_bet)

            page = _page(browser, base_url)
            _log_in(page, "auditor", "demo-auditor", "/reports/")
            assert page.inner_text("main h1") == "Informes"
            page.click(f'#shifts form:has(input[name=shift][value="{shift_id}"]) button[type=submit]')
            # The worker computed it, after the demo's own reports and their alerts (each alerts'
            # theory a simulation of some 20 s, more on a loaded machine).
            page.wait_for_url(re.compile(r"/reports/\d+/$"), timeout=300_000)
            assert "Mesa 1" in page.inner_text("main h1")
            page.context.close()

            for size, table, bidder in (((1024, 768), "Mesa 2", "paco"), ((390, 844), "Mesa 3", "elena")):
                _floor_walk(browser, base_url, url, size=size, auctioned=table, bidder=bidder, shots=shots)
            for size in ((1024, 768), (390, 844)):
                _review_walk(browser, base_url, size=size, shots=shots)
        finally:
            browser.close()
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT status, progress FROM reports_reportrequest WHERE shift_id = %s",
                                  [shift_id]).fetchall() == [("done", 100)]


def _runs_as_the_apps_role(app_url, owner_url):
    """Web, worker and beat are connected as the app's role, which owns nothing and is
    refused a raw rewrite of the money."""
    role = urllib.parse.urlsplit(app_url).username
    with psycopg.connect(owner_url) as connection:
        users = {user for (user,) in connection.execute(
            "SELECT DISTINCT usename FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid()")}
        assert users and users <= {role}, users
        assert connection.execute("SELECT count(*) FROM pg_tables WHERE tableowner = %s", [role]).fetchone() == (0,)
    with psycopg.connect(app_url, autocommit=True) as app:
        for attack in ("DELETE FROM tables_handevent", "UPDATE ledger_entry SET amount = 0",
                       "SET session_replication_role = replica", "ALTER TABLE ledger_entry DISABLE TRIGGER ALL"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                app.execute(attack)


def _audits_clean_with_the_witness(env, app, processes):
    """Every stored report (the demo's, the worker's) is at the seals' witness and logged;
    ``ledger_check`` as the app's role is clean and lists a privilege the app's role took
    by SQL (recorded by PostgreSQL, which that role cannot undo)."""
    with psycopg.connect(env["DATABASE_URL"], autocommit=True) as app_db:
        reports = app_db.execute("SELECT count(*) FROM reports_report").fetchone()[0]
        app_db.execute("UPDATE auth_user SET is_superuser = true WHERE username = 'dealer'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            app_db.execute("DELETE FROM casino_privilegechange")
    witnessed = [line for path in Path(env["SEAL_WITNESS_DIR"]).glob("seals-*.jsonl")
                 for line in path.read_text(encoding="utf-8").splitlines()]
    assert reports and len(witnessed) == reports, (reports, len(witnessed))
    assert "seal witnessed:" in processes.log("worker")
    checked = _run(["python", "manage.py", "ledger_check"], env, app)
    # in the production language (Spanish): the dealer made superuser by the app's role
    assert "ledger_check: OK" in checked and "usuario dealer: activo → superusuario, activo" in checked, checked


def _page(browser, base_url):
    context = browser.new_context(locale="es-ES", base_url=base_url, viewport={"width": 1024, "height": 1366})
    context.set_default_timeout(TIMEOUT)
    return context.new_page()


def _log_in(page, username, password, next_url):
    page.goto(f"/accounts/login/?next={next_url}")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_url(f"**{next_url}")


def _play_a_hand(page, min_bet, seats=None):
    """Open the next hand with the seats the console offers (or ``seats``, player ids
    separated by spaces), then enter it as the console asks: a card for each (a card typed
    whole is entered at once), the minimum bet, stand; the bank draws while it must."""
    if seats:
        page.fill("#form-open input[name=seats]", seats)
    page.click("#form-open button[type=submit]")
    page.wait_for_selector("#form-deal")
    cards, staked = iter(CARDS), False
    for _entry in range(60):
        if page.locator("#settlement").count():
            assert page.locator("#settlement li[data-player]").count() >= 2
            return
        version = int(page.get_attribute("#console", "data-version"))
        if page.locator("#form-deal").count():
            page.fill("#form-deal input[data-card-input]", next(cards))
        elif page.locator("#form-bet").count() and not staked:
            page.fill("#form-bet input[name=amount]", f"{min_bet:.2f}")
            page.click('#form-bet button[value="bet"]')
            staked = True
        elif page.locator('#form-play button[value="stand"]').count():
            page.click('#form-play button[value="stand"]')
            staked = False
        else:
            page.fill("#form-card input[data-card-input]", next(cards))
        page.wait_for_selector(f'#console[data-version="{version + 1}"]')
    raise AssertionError("the hand did not settle in 60 entries")


def _person(browser, base_url, size, username, password, next_url):
    """A fresh context at ``size`` in Spanish, ``username`` logged in at ``next_url``: its page."""
    context = browser.new_context(locale="es-ES", base_url=base_url, accept_downloads=True,
                                  viewport={"width": size[0], "height": size[1]})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    _log_in(page, username, password, next_url)
    return page


def _seen(page, shots, size, name):
    """The page as it is: a full-page screenshot ``<width>-<name>.png`` in ``shots``,
    nothing wider than the viewport (no sideways scroll); its main text, spaces folded."""
    page.screenshot(path=str(shots / f"{size[0]}-{name}.png"), full_page=True)
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= size[0], f"{name} at {size[0]} px scrolls sideways ({width} px)"
    return " ".join(page.inner_text("main").replace("\u00a0", " ").replace("\u202f", " ").split())


def _floor_walk(browser, base_url, url, *, size, auctioned, bidder, shots):
    """The pages of the floor's findings, walked as each role walks them, at ``size``:
    the pit refused a rebuild of Mesa 1's healthy bank (its page offers none); the bank of
    ``auctioned`` given up and auctioned to ``bidder``, the words saying his capital is
    deposited at the cage, before and after the award; a cashier's buy-in voided by a cage
    supervisor from the drawer's page, the drawer listing the void; the drawer's close
    counted, a line per kind of slip; an auditor's CSV of Mesa 1's hands in the Spanish
    convention."""
    with psycopg.connect(url) as connection:
        tables = dict(connection.execute("SELECT name, id FROM tables_table").fetchall())
    mesa = tables["Mesa 1"]

    pit = _person(browser, base_url, size, "pit", "demo-pit", f"/tables/pit/tables/{mesa}/")
    text = _seen(pit, shots, size, "pit-table")
    assert pit.locator(f'a[href="/tables/pit/tables/{mesa}/bank/rebuild/"]').count() == 0, text
    pit.goto(f"/tables/pit/tables/{mesa}/bank/rebuild/")
    pit.fill("input[name=amount]", "100")
    pit.click("main form button[type=submit]")
    pit.wait_for_selector("main .errorlist")
    refusal = " ".join(pit.inner_text("main .errorlist").split())
    assert "frente a su capital de" in refusal and "solo se reconstituye" in refusal, refusal
    _seen(pit, shots, size, "rebuild-refused")

    table = tables[auctioned]
    pit.goto(f"/tables/pit/tables/{table}/bank/give-up/")
    pit.click("main form button.danger")
    pit.wait_for_url(f"**/tables/pit/tables/{table}/")
    pit.goto(f"/tables/pit/tables/{table}/bank/auction/")
    text = _seen(pit, shots, size, "auction-open")
    assert "la deposita en efectivo en caja" in text and "sin tocar sus fichas" in text, text
    pit.fill("#form-auction-open input[name=sessions]", "1")
    pit.click("#form-auction-open button[type=submit]")
    pit.wait_for_selector("#form-bid")
    pit.fill("#form-bid input[name=player]", bidder)
    pit.fill("#form-bid input[name=amount]", "250")
    pit.click("#form-bid button[type=submit]")
    pit.wait_for_selector("p.standing")
    pit.click('#form-award button[name=award]')
    pit.wait_for_selector('#form-award input[name=confirm]', state="attached")
    text = _seen(pit, shots, size, "auction-confirm")
    assert "deposita su puja, el capital de la banca, en caja" in text, text
    pit.click('#form-award button[name=award]')
    pit.wait_for_url(f"**/tables/pit/tables/{table}/")
    text = _seen(pit, shots, size, "auction-awarded")
    assert "Su capital se deposita en caja" in text and f"{bidder} debe 250,00 €" in text, text
    pit.context.close()

    cashier = _person(browser, base_url, size, "cashier", "demo-cashier", "/cage/")
    cashier.goto("/cage/buy-in/")  # to the form of a token of its own
    cashier.fill("input[name=player]", "rosa")
    cashier.fill("input[name=amount]", "50")
    cashier.click("main form button[type=submit]")
    cashier.wait_for_url(re.compile(r"/cage/slips/\d+/$"))
    slip = cashier.url.rstrip("/").rsplit("/", 1)[1]
    _seen(cashier, shots, size, "buy-in-slip")

    cage = _person(browser, base_url, size, "cage", "demo-cage", "/cage/drawers/?state=open")
    _seen(cage, shots, size, "drawers")
    cage.click("main table.data tbody tr a")
    cage.wait_for_url(re.compile(r"/cage/drawers/\d+/$"))
    drawer = cage.url
    text = _seen(cage, shots, size, "drawer-open")
    assert re.search(r"Cajón n\.º \d+ · abierto", text), text
    cage.click(f"#drawer-slips a[href='/cage/slips/{slip}/']")
    cage.click(f"a[href='/cage/slips/{slip}/void/']")
    cage.fill("textarea[name=reason]", "la compra se anotó dos veces")
    cage.click("main form button.danger")
    cage.wait_for_url(f"**/cage/slips/{slip}/")
    assert "ANULADO" in _seen(cage, shots, size, "slip-voided")
    cage.goto(drawer)
    text = _seen(cage, shots, size, "drawer-void")
    voids = " ".join(cage.inner_text("#drawer-voids").split())
    assert slip in voids and "−50,00 €" in voids and "cage" in voids, voids
    cage.context.close()

    cashier.goto("/cage/drawer/close/")
    cashier.fill("input[name=d50_00]", "3")
    cashier.click("#count-drawer button[type=submit]")
    cashier.wait_for_selector("#close-figures")
    text = _seen(cashier, shots, size, "drawer-close")
    lines = {line: " ".join(cashier.inner_text(f"#line-{line}").split())
             for line in ("buy_in", "bank_deposit", "cash_out", "void_in", "void_out")}
    assert lines["buy_in"].startswith("Compras de fichas (entrada) +"), lines
    assert lines["bank_deposit"].startswith("Depósitos de banca (entrada) +"), lines
    assert lines["void_out"].startswith("Compras y depósitos anulados") and "−" in lines["void_out"], lines
    cashier.context.close()

    auditor = _person(browser, base_url, size, "auditor", "demo-auditor", f"/tables/hands/{mesa}/")
    _seen(auditor, shots, size, "hands")
    with auditor.expect_download() as info:
        auditor.click("a.export")
    assert info.value.suggested_filename.endswith("-semicolon.csv"), info.value.suggested_filename
    with open(info.value.path(), encoding="utf-8") as file:
        first, header = file.readline(), file.readline()
    assert first.startswith("# Campos separados por punto y coma") and header.startswith("mano;"), (first, header)
    auditor.context.close()


def _review_walk(browser, base_url, *, size, shots):
    """The auditors' review of Mesa 1's hands at ``size``: its summary, expected against
    actual, no line saying there is no settled hand. Walked last: it needs the theory the
    worker stores with the reports' alerts, and until then the page says to wait."""
    auditor = _person(browser, base_url, size, "auditor", "demo-auditor", "/reports/review/")
    deadline = time.monotonic() + 180
    while True:
        auditor.goto("/reports/review/")
        auditor.select_option("form.review select[name=table]", label="Mesa 1")
        auditor.click("form.review button[type=submit]")
        auditor.wait_for_selector("#summary, form.review .errorlist")
        if auditor.locator("#summary").count():
            break
        waiting = " ".join(auditor.inner_text("form.review .errorlist").split())
        assert "aún no está guardada" in waiting and time.monotonic() < deadline, waiting
        time.sleep(3)
    text = _seen(auditor, shots, size, "review")
    summary = " ".join(auditor.inner_text("#summary").split())
    assert re.match(r"\d+ manos?, \d+ de ellas liquidadas? con apuestas", summary), summary
    assert "Ninguna mano liquidada" not in text and auditor.locator("#expected tbody tr").count() >= 1, text
    auditor.context.close()


SIZES = ((1024, 768), (390, 844))


def _seen_at_both(page, shots, name):
    """``_seen`` at 1024×768 then at 390×844 (the viewport resized, the page as it is):
    the main text at the phone's size."""
    text = ""
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        text = _seen(page, shots, size, name)
    page.set_viewport_size({"width": SIZES[0][0], "height": SIZES[0][1]})
    return text


def _dni(number):
    return f"{number:08d}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}"


def _day_walk(base_url, url, shots, next_day):
    """One gaming day end to end at Mesa 1, each page seen at both sizes (``day-*``):
    compliance loads the regulator's file, which names quique; the cashier registers dora
    with her identity and sells her chips, and is refused quique's buy-in; the pit closes
    the demo's session and opens one for dealer; dealer deals a hand dora plays (her first
    bet admits her for the day); the pit relieves dealer with dealer2, who deals the next;
    the pit opens a dispute on the first hand and rejects it; the session closed, its boxes
    counted by two; the auditor reads the day's results and its journal (balanced, every
    account's net equal to the ledger's movement summed by SQL); ``next_day()``, then the
    auditor has the worker compute the month's statement and signs it."""
    from playwright.sync_api import sync_playwright

    with psycopg.connect(url) as connection:
        mesa, min_bet = connection.execute("SELECT id, min_bet FROM tables_table WHERE name = 'Mesa 1'").fetchone()
        (quique,) = connection.execute("SELECT document_number FROM patrons_player WHERE code = 'quique'").fetchone()
        (demo_shift,) = connection.execute("SELECT id FROM tables_shift WHERE table_id = %s AND closed_at IS NULL",
                                           [mesa]).fetchone()
    register = (f"documento;nombre;apellidos;fecha_nacimiento;fecha_alta\n{quique};Quique;Soto;;2024-01-01\n"
                f"{_dni(4444444)};Pedro;Gómez Ruiz;1970-03-02;2020-01-01\n").encode()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            size = SIZES[0]
            compliance = _person(browser, base_url, size, "compliance", "demo-compliance", "/cage/exclusions/")
            compliance.select_option("#load-form select[name=source]", "rgiaj")
            compliance.set_input_files("#load-form input[name=file]", files=[
                {"name": "rgiaj-dia.csv", "mimeType": "text/csv", "buffer": register}])
            compliance.click("#load-form button[type=submit]")
            compliance.wait_for_selector("#loads td")
            text = _seen_at_both(compliance, shots, "day-register")
            assert "rgiaj-dia.csv se ha cargado: 2 entradas" in text, text

            cashier = _person(browser, base_url, size, "cashier", "demo-cashier", "/cage/register/")
            cashier.fill("input[name=code]", "dora")
            cashier.fill("input[name=name]", "Dora Vidal Sanz")
            cashier.select_option("select[name=document_type]", "dni")
            cashier.fill("input[name=document_number]", _dni(55667788))
            if cashier.locator("select[name=nationality]").count():
                cashier.select_option("select[name=nationality]", "ES")
            else:
                cashier.fill("input[name=nationality]", "ES")
            cashier.fill("input[name=date_of_birth]", "1984-05-04")
            cashier.click("main form button[type=submit]")
            cashier.wait_for_url("**/cage/players/dora/record/")
            _seen_at_both(cashier, shots, "day-registered")
            for player, amount in (("dora", "100"), ("quique", "100")):
                cashier.goto("/cage/buy-in/")
                cashier.fill("input[name=player]", player)
                cashier.fill("input[name=amount]", amount)
                cashier.click("main form button[type=submit]")
                if player == "dora":
                    cashier.wait_for_url(re.compile(r"/cage/slips/\d+/$"))
            cashier.wait_for_selector("ul.errorlist")
            text = _seen_at_both(cashier, shots, "day-refused")
            assert "rechazado: quique figura en el registro de exclusiones (RGIAJ (España)" in text, text
            compliance.goto("/cage/exclusions/refusals/")
            row = " ".join(compliance.inner_text("#admission-refusals tbody tr").split())
            assert "quique" in row and "compra de fichas en caja" in row and "cashier" in row, row

            pit = _person(browser, base_url, size, "pit", "demo-pit", f"/tables/pit/shifts/{demo_shift}/close/")
            pit.click("main form button.danger")
            pit.wait_for_url(f"**/tables/pit/tables/{mesa}/")
            pit.goto(f"/tables/pit/shifts/open/?table={mesa}")
            pit.select_option("select[name=dealer]", label="dealer")
            pit.click("main form button[type=submit]")
            pit.wait_for_url(f"**/tables/pit/tables/{mesa}/")
            _seen_at_both(pit, shots, "day-shift-open")
            with psycopg.connect(url) as connection:
                (shift,) = connection.execute("SELECT id FROM tables_shift WHERE table_id = %s AND closed_at IS NULL",
                                              [mesa]).fetchone()

            dealer = _person(browser, base_url, size, "dealer", "demo-dealer", f"/tables/console/{mesa}/")
            _play_a_hand(dealer, min_bet, seats="luis marta dora")
            with psycopg.connect(url) as connection:
                first = connection.execute("SELECT max(number) FROM tables_hand WHERE table_id = %s", [mesa]).fetchone()[0]
                assert connection.execute("SELECT count(*) FROM patrons_dayadmission a JOIN patrons_player p "
                                          "ON p.id = a.player_id WHERE p.code = 'dora'").fetchone() == (1,)

            pit.select_option("form.relieve select[name=dealer]", label="dealer2")
            pit.click("form.relieve button[type=submit]")
            pit.wait_for_selector("p.confirm-relief")
            pit.click("main form button[type=submit]")
            pit.wait_for_url(f"**/tables/pit/tables/{mesa}/")
            text = _seen_at_both(pit, shots, "day-relieved")
            assert "dealer2 relevó a dealer en Mesa 1." in text, text
            dealer.goto(f"/tables/console/{mesa}/")
            assert "dealer2" in dealer.inner_text("main")  # the console moved: the relieved dealer is told by whom
            relief = _person(browser, base_url, size, "dealer2", "demo-dealer", f"/tables/console/{mesa}/")
            _play_a_hand(relief, min_bet, seats="luis marta")
            pit.goto("/tables/pit/")
            _seen_at_both(pit, shots, "day-pit")

            pit.goto(f"/tables/hands/{mesa}/{first}/")
            pit.click("#open-dispute")
            pit.fill("input[name=player]", "luis")
            pit.fill("textarea[name=claim]", "Luis dice que su segunda carta era un 7.")
            pit.click("form.dispute-open button[type=submit]")
            pit.wait_for_selector("#step-at")
            pit.check("input[name=outcome][value=rejected]")
            pit.fill("textarea[name=decision]", "La reproducción muestra el 2 que se anotó.")
            pit.click("form.decide button[type=submit]")
            pit.wait_for_selector(".decided")
            text = _seen_at_both(pit, shots, "day-dispute")
            assert "rechazada" in text.lower(), text

            pit.goto(f"/tables/pit/shifts/{shift}/close/")
            pit.click("main form button.danger")
            pit.wait_for_url(f"**/tables/pit/tables/{mesa}/")
            pit.goto(f"/boxes/sessions/{shift}/")
            boxes = pit.eval_on_selector_all("select[name=box] option", "os => os.map(o => o.value).filter(Boolean)")
            assert boxes, "no box to count"
            for box in boxes:
                pit.select_option("select[name=box]", box)
                pit.select_option("select[name=first_counter]", label="pit")
                pit.select_option("select[name=second_counter]", label="cage")
                pit.click("button[name=count]")
                pit.wait_for_selector(f"#count-{box}")
            _seen_at_both(pit, shots, "day-boxes")
            with psycopg.connect(url) as connection:
                (day,) = connection.execute("SELECT (opened_at AT TIME ZONE 'Europe/Madrid' - interval '6 hours')::date "
                                            "FROM tables_shift WHERE id = %s", [shift]).fetchone()
                assert connection.execute("SELECT count(*) FROM boxes_boxcount WHERE shift_id = %s",
                                          [shift]).fetchone() == (len(boxes),)

            auditor = _person(browser, base_url, size, "auditor", "demo-auditor", f"/reports/results/?day={day}")
            text = _seen_at_both(auditor, shots, "day-results")
            assert "Jornada de juego" in text and "Mesa 1" in text, text
            auditor.goto(f"/reports/journal/?day={day}")
            assert auditor.is_visible("#reconciled")
            _seen_at_both(auditor, shots, "day-journal")
            journal = auditor.request.get(f"/reports/journal/?day={day}&format=json").json()
            _journal_is_the_ledgers(journal, url)
            for page in (compliance, cashier, pit, dealer, relief, auditor):
                page.context.close()

            next_day()
            auditor = _person(browser, base_url, size, "auditor", "demo-auditor", "/reports/statements/")
            auditor.fill("#id_month", f"{day:%Y-%m}")
            auditor.click("text=Calcular la declaración")
            auditor.wait_for_selector("#statement", timeout=300_000)  # the worker computed it
            text = _seen_at_both(auditor, shots, "day-statement")
            assert "Mesa 1" in text and "sin firmar" in text, text
            auditor.once("dialog", lambda dialog: dialog.accept())
            auditor.click("#sign")
            auditor.wait_for_selector("text=Declaración firmada.")
            assert "firmada por auditor" in auditor.inner_text("#signature")
            _seen_at_both(auditor, shots, "day-signed")
            auditor.context.close()
        finally:
            browser.close()
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT d.status, d.outcome FROM tables_dispute d JOIN tables_hand h ON h.id = d.hand_id "
                                  "WHERE h.table_id = %s AND h.number = %s", [mesa, first]).fetchall() == [
            ("decided", "rejected")]
        signed = connection.execute("SELECT signed_by_id IS NOT NULL, length(signature) FROM reports_monthlystatement "
                                    "WHERE month = %s", [day.replace(day=1)]).fetchall()
        assert signed == [(True, 64)], signed


def _journal_is_the_ledgers(journal, url):
    """The day's journal (its JSON) balances: each entry's debits its credits, the totals
    equal; and each chart account's net is the movement of the ledger's accounts of its
    kind over the day's window, summed here by SQL (the default chart: a code per kind)."""
    from datetime import datetime
    from decimal import Decimal

    assert not journal["faults"], journal["faults"]
    for entry in journal["entries"]:
        debit = sum(Decimal(line["debit"]) for line in entry["lines"])
        assert debit == sum(Decimal(line["credit"]) for line in entry["lines"]), entry
    assert journal["debit"] == journal["credit"] and Decimal(journal["debit"]) > 0, journal
    with psycopg.connect(url) as connection:
        moved = connection.execute(
            "SELECT a.kind, sum(CASE WHEN e.side = 'C' THEN e.amount ELSE -e.amount END), "
            "sum(CASE WHEN e.side = 'D' THEN e.amount ELSE 0 END) "
            "FROM ledger_entry e JOIN ledger_transaction t ON t.id = e.transaction_id "
            "JOIN ledger_account a ON a.id = e.account_id "
            "WHERE t.posted_at >= %s AND t.posted_at < %s GROUP BY a.kind",
            [datetime.fromisoformat(journal["start"]), datetime.fromisoformat(journal["end"])]).fetchall()
    assert Decimal(journal["debit"]) == sum(debits for _kind, _net, debits in moved)
    nets = {row["account"]: Decimal(row["net"]) for row in journal["accounts"]}
    by_ledger = sorted(net for _kind, net, _debits in moved if net)
    assert sorted(net for net in nets.values() if net) == by_ledger, (nets, moved)
    assert all(Decimal(row["net"]) == Decimal(row["ledger_movement"]) for row in journal["accounts"]), journal
