"""Console speed: simulated dealers enter hands through the console's real forms over HTTP,
next to the same server's rate on a trivial page. A script that prints figures, never a
timed test.

    .venv/bin/python benchmarks/console.py [--seconds 60] [--dealers 20] [--rate 30%] [--think 0]

1. A scratch database ``console_bench_<pid>`` on the PostgreSQL server of ``PGHOST`` /
   ``PGPORT`` / ``PGUSER`` (default 127.0.0.1:5432, postgres), created with ``createdb``,
   migrated, and dropped at the end: ``--dealers`` tables (``reglamento``, 5–100 €), each
   with its own dealer user and open shift, its bank drawn for and its players with chips.
2. The static files collected into a scratch ``DJANGO_STATIC_ROOT`` (as the Dockerfile
   does), and a server on loopback with the shipped configuration (docker-compose.yml's:
   the production settings, their persistent database connections, sessions cached in
   Redis at ``CACHE_URL``, default the broker's): gunicorn if installed
   (``--workers`` sync workers), else ``manage.py runserver --noreload`` (threaded).
3. For comparison, the dealers GET the home page, logged in (session, user and roles read
   from the database).
4. Turns, ``--rounds`` of each, in alternation, so that both sides meet the same moments
   of a shared and noisy machine:
   - the trivial page: as many clients GET the login page (anonymous: no database) in a
     loop, ``--trivial-seconds`` in all; requests/s and latency;
   - the dealers, ``--seconds`` in all: each enters, for every event of a hand of random
     legal play (``game.simulate.random_record``), the form his console offers
     for it, posted exactly as the console's script posts it (``script_post``): the
     form's fields in the page's order (its one-time token, the hand's version, what the
     dealer typed or checked), then the button pressed, form-encoded, with the
     ``X-Console-Fetch`` header; answered with the console's new body, which gives the
     next token (``--redirect``: the same body as a browser without the script posts it,
     then the redirected GET). When the hand settles he opens the next one the same way, with the
     seats the page prefills (plus the player who lost the bank) and the bank's next
     holder. Each reads his console and opens his first hand before the first turn;
     between turns he waits with his hand as it is.
   Prints events/s and the latency of an entry (p50/p95/p99) next to the trivial page's
   figures, with the CPU each request cost the server, PostgreSQL and this script (goal:
   p95 at most 50 ms, events/s at least 30% of the trivial page's requests/s).

How the dealers pace themselves:
- flat out (the default): each sends his next entry as soon as the last is answered, so
  the rate is the server's capacity; 20 dealers keep 20 requests in the server at all
  times, so the latency is 20 / events per second (Little's law): p95 at most 50 ms flat
  out would ask for 400 events/s.
- ``--rate 30%`` (or ``--rate 250``): the dealers together offer that share of the trivial
  page's rate so far, worked out again after each of its turns (or that many events/s),
  as Poisson arrivals, whether or not the server keeps up; a late answer's latency counts
  from when the entry was due.
  This is the goal's test: 30% of the trivial page's rate, at what p95.
- ``--think 3``: each pauses 3 s on average between entries, about a real table's pace:
  the latency a dealer sees.

``--server runserver`` forces the fallback; ``--profile FILE`` records the server's
workers' Python CPU with py-spy during the turns: a flame graph (``.svg``), speedscope (``.json``) or
collapsed stacks (``.txt``).
"""

import argparse
import html
import http.client
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import HOST, PORT, create_scratch, database_url, drop_scratch  # noqa: E402  (beside this script)

PASSWORD = "bench-pass-7y-media"
RULES = {"profile": "reglamento"}
MIN_BET, MAX_BET = 500, 10000  # cents
SEATS_PER_TABLE = 4
#: Each player's chips (euros): more than a player loses in a long run at these limits.
CHIPS = Decimal("100000.00")

SEATS = re.compile(r'name="seats" value="([^"]*)"')
STATUS = re.compile(r'id="console"[^>]*data-status="(\w+)"')
VERSION = re.compile(r'data-version="(\d+)"')
NEXT_BANK = re.compile(r'id="next-hand" data-bank="([^"]+)"')
FORM_IDS = re.compile(r'<form [^>]*id="([^"]+)"')
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


# ---------------------------------------------------------------------------------------
# The scratch database

def buy_in(player, chips, cashier):
    """``chips`` (``Decimal`` euros) bought by ``player`` at ``cashier``'s drawer, in as
    few slips as the cage's maximum per slip (``CAGE_SLIP_MAXIMUM``) allows."""
    from cage.services.slips import cashier_buy_in, slip_maximum

    most = slip_maximum()
    while chips > 0:
        amount = min(chips, most)
        cashier_buy_in(player=player, amount=amount, posted_by=cashier)
        chips -= amount


def prepare(dealers, chips=CHIPS):
    """Tables with a dealer on shift, a bank and seated players with ``chips`` each
    (``Decimal`` euros); returns ``[(username, table id, bank code, seat codes)]``."""
    from django.contrib.auth.hashers import make_password
    from django.contrib.auth.models import User

    from benchmarks.cage import cage_cashier, identity
    from cage.services.slips import cashier_bank_deposit
    from casino.roles import ensure_role_groups
    from patrons.models import Player
    from tables import services
    from tables.models import Table

    groups = ensure_role_groups()
    hashed = make_password(PASSWORD)
    supervisor = User.objects.create(username="bench-pit", password=hashed)
    supervisor.groups.add(groups["pit_supervisor"])
    cashier = User.objects.create(username="bench-cashier", password=hashed)
    cashier.groups.add(groups["cashier"])
    cage_cashier(cashier)
    tables = []
    for n in range(1, dealers + 1):
        dealer = User.objects.create(username=f"dealer{n:02d}", password=hashed)
        dealer.groups.add(groups["dealer"])
        table = Table.objects.create(name=f"Mesa {n:02d}", rules=RULES, min_bet=Decimal(MIN_BET) / 100,
                                     max_bet=Decimal(MAX_BET) / 100, bank_capital=Decimal("2000.00"))
        codes = [f"t{n:02d}-{name}" for name in ("ana", "luis", "marta", "pepe", "rosa")][:SEATS_PER_TABLE + 1]
        players = [Player.objects.create(code=code, name=code, **identity(code)) for code in codes]
        for player in players:
            buy_in(player, chips, cashier)
        tenure = services.table_bank_draw(table=table, holder=players[0], capital=Decimal("5000.00"), by=supervisor)
        cashier_bank_deposit(tenure=tenure, player=players[0], amount=Decimal("5000.00"), posted_by=cashier)
        services.shift_open(table=table, dealer=dealer, opened_by=supervisor)
        tables.append((dealer.username, table.pk, codes[0], codes[1:]))
    return tables


# ---------------------------------------------------------------------------------------
# The server

def start_server(port, env, workers, choice="auto"):
    gunicorn = shutil.which("gunicorn", path=str(Path(sys.executable).parent)) or shutil.which("gunicorn")
    if choice == "gunicorn" and gunicorn is None:
        raise RuntimeError("gunicorn is not installed (pip install gunicorn)")
    if gunicorn is not None and choice != "runserver":
        command = [gunicorn, "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                   "--worker-class", "sync", "--backlog", "256", "--log-level", "warning"]
        kind = f"gunicorn, {workers} sync workers"
    else:
        command = [sys.executable, "manage.py", "runserver", "--noreload", f"127.0.0.1:{port}"]
        kind = "manage.py runserver --noreload (threaded)" + ("" if gunicorn else "; gunicorn is not installed")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server stopped: {server.stderr.read().decode()[-2000:]}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                break
        except OSError:
            time.sleep(0.2)
    else:
        raise RuntimeError("the server did not start within 60 s")
    return server, kind


def stop_server(server):
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------------------------------
# A browser without a browser: cookies, GET, POST

class Client:
    """One HTTP/1.1 connection to the server with its cookies (session, CSRF)."""

    def __init__(self, port):
        self.port = port
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        self.cookies = {}

    def request(self, method, path, fields=None, extra_headers=None):
        headers = {"Host": f"127.0.0.1:{self.port}", "Accept-Language": "es", **(extra_headers or {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if fields is not None:
            body = urllib.parse.urlencode(fields)  # a dict, or (name, value) pairs in order
            headers["Content-Type"] = "application/x-www-form-urlencoded;charset=UTF-8"
            headers["Referer"] = f"http://127.0.0.1:{self.port}{path}"
        for attempt in (1, 2):
            try:
                self.connection.request(method, path, body=body, headers=headers)
                response = self.connection.getresponse()
                text = response.read().decode()
                break
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                self.connection.close()
                if attempt == 2:
                    raise
        for header, value in response.getheaders():
            if header.lower() == "set-cookie":
                name, _eq, rest = value.partition("=")
                self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response.status, response.getheader("Location"), text

    def log_in(self, username):
        _status, _location, page = self.request("GET", "/accounts/login/")
        status, location, _page = self.request("POST", "/accounts/login/", {
            "csrfmiddlewaretoken": CSRF.search(page).group(1), "username": username, "password": PASSWORD,
            "next": "/"})
        if status != 302:
            raise RuntimeError(f"{username} could not log in ({status})")


# ---------------------------------------------------------------------------------------
# The simulated dealers

class Figures:
    """Latencies (seconds) and counts, gathered by every thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.events, self.posts, self.opens, self.trivial, self.refusals = [], [], [], [], []
        self.kinds = {}  # event "do" ("settle" for the entry that settles a hand) -> latencies
        self.hands = 0

    def add(self, name, value):
        with self.lock:
            getattr(self, name).append(value)


def percentiles(times):
    times = sorted(times)
    if not times:
        return {"p50": float("nan"), "p95": float("nan"), "p99": float("nan")}

    def at(q):
        return times[min(len(times) - 1, int(q * len(times)))] * 1000
    return {"p50": at(0.50), "p95": at(0.95), "p99": at(0.99)}


_FORM_BY_ID = {}
_CONTROL = re.compile(r"<(input|select|textarea)\b([^>]*)>|<option\b([^>]*)>|</select>")
_ATTRIBUTE = re.compile(r'([\w-]+)(?:="([^"]*)")?')


def form_of(page, form_id):
    """``(action, fields)`` of the console page's form ``form_id``, or None: its address
    (the ``action`` attribute) and what ``new FormData(form)`` holds, in the page's order
    (each control with a name: hidden and text inputs, the checked radio, a select's
    selected option, else its first), as ``[name, value]`` lists to fill in."""
    pattern = _FORM_BY_ID.get(form_id)
    if pattern is None:
        pattern = _FORM_BY_ID[form_id] = re.compile(
            r'<form method="post" action="([^"]+)" class="[^"]*" id="' + re.escape(form_id) + r'"[^>]*>(.*?)</form>', re.S)
    match = pattern.search(page)
    if match is None:
        return None
    fields, select = [], None
    for tag, attributes, option in _CONTROL.findall(match.group(2)):
        attrs = {name: html.unescape(value) for name, value in _ATTRIBUTE.findall(attributes or option)}
        if tag == "input" and "name" in attrs and (attrs.get("type") != "radio" or "checked" in attrs):
            fields.append([attrs["name"], attrs.get("value", "")])
        elif tag == "select":
            select = [attrs["name"], None]
            fields.append(select)
        elif option and select is not None and (select[1] is None or "selected" in attrs):
            select[1] = attrs.get("value", "")
        elif not tag and not option:  # </select>
            select = None
    return html.unescape(match.group(1)), fields


def script_post(client, page, form_id, typed, button=None, fetch=True):
    """Send form ``form_id`` of ``page`` as the console's script does: what the dealer
    ``typed`` (a dict: field -> value; the seat of a deal is the radio he checks) in its
    fields, the form's fields in the page's order, then the button pressed (``button``:
    the value of its ``action``), form-encoded, with ``X-Console-Fetch`` (``fetch=False``:
    as the browser without the script posts it, the same body). Returns what
    ``Client.request`` returns, or None if the page has no such form."""
    form = form_of(page, form_id)
    if form is None:
        return None
    action, fields = form
    typed = dict(typed)
    for field in fields:
        if field[0] in typed:
            field[1] = typed.pop(field[0])
    fields += [[name, value] for name, value in typed.items()]  # a radio no box showed checked
    if button is not None:
        fields.append(["action", button])
    return client.request("POST", action, [tuple(field) for field in fields],
                          extra_headers=FETCH_HEADERS if fetch else None)


def entry_of(event):
    """(form id, what the dealer types or checks, the button he presses) entering ``event``
    on the console."""
    do, seat = event["do"], event.get("seat")
    if do == "deal":
        return "form-deal", {"seat": seat, "card": event["card"]}, "deal"
    if do == "bet":
        if "player" in event:
            return ("form-loca" if seat == "loca" else "form-side"), {
                "seat": seat, "player": event["player"], "amount": str(event["amount"])}, "bet"
        return "form-bet", {"amount": str(event["amount"])}, "bet"
    if do == "card":
        return "form-card", {"card": event["card"]}, "card-down" if event.get("down") else "card"
    if do in ("reveal", "exchange", "fusilar"):
        return "form-card", {"card": event.get("card", "")}, do
    if do == "muerto":
        return "form-card", {"card": event["card"], "amount": str(event["amount"])}, "muerto"
    if do in ("stand", "split"):
        return "form-play", {}, do
    if do == "shuffle":
        return "form-shuffle", {}, "shuffle"
    raise ValueError(event)


def dealer_log_in(port, username, clients):
    """Log a dealer in (PBKDF2 is slow on purpose: never inside the timed run)."""
    client = Client(port)
    client.log_in(username)
    clients[username] = client


#: What the console's script sends with an entry: the answer is the new console itself.
FETCH_HEADERS = {"X-Console-Fetch": "1"}
REFUSAL = 'class="refusal'


class Phases:
    """The run's turns: the trivial page's clients and the dealers take turns (``--rounds``),
    so that both meet the same moments of a shared, noisy machine. Dealers wait while the
    trivial page has its turn; a dealers' turn ends once their requests in flight are
    answered."""

    def __init__(self):
        self.condition = threading.Condition()
        self.dealing = self.over = False
        self.busy = self.ready = 0

    def arrive(self):
        """A dealer is ready (his console read, his first hand open)."""
        with self.condition:
            self.ready += 1
            self.condition.notify_all()

    def wait_ready(self, dealers, timeout=120):
        """Wait until ``dealers`` dealers are ready."""
        with self.condition:
            self.condition.wait_for(lambda: self.ready >= dealers, timeout)

    def enter(self):
        """Block until the dealers' turn. Returns None once the run is over, else whether
        the dealer had to wait (he then draws his next time from now)."""
        with self.condition:
            waited = False
            while not self.dealing and not self.over:
                waited = True
                self.condition.wait()
            if self.over:
                return None
            self.busy += 1
            return waited

    def leave(self):
        with self.condition:
            self.busy -= 1
            self.condition.notify_all()

    def deal(self, seconds):
        """The dealers' turn for ``seconds``; its length (s) until the last answer."""
        started = time.monotonic()
        with self.condition:
            self.dealing = True
            self.condition.notify_all()
        time.sleep(seconds)
        with self.condition:
            self.dealing = False
            while self.busy:
                self.condition.wait()
        return time.monotonic() - started

    def finish(self):
        with self.condition:
            self.over = True
            self.condition.notify_all()


class Pace:
    """When a dealer sends his next request: flat out (at once), after a pause
    (``think``: exponential, that mean in seconds) or on a schedule (``rate``: Poisson
    arrivals, that many a second for this dealer, whether or not the server keeps up).
    ``next()`` sleeps until then and returns the time the request was due, from which its
    latency counts (a late server is not forgiven its backlog)."""

    def __init__(self, rng, settings):
        """``settings``: ``{"think": s, "rate": per dealer per s}``, shared by the dealers and
        read at each request (the rate of ``--rate P%`` is known after the first turn)."""
        self.rng, self.settings = rng, settings
        self.due = time.perf_counter()

    def restart(self):
        self.due = time.perf_counter()
        return self.due

    def next(self):
        rate, think = self.settings["rate"], self.settings["think"]
        if rate:
            self.due += self.rng.expovariate(rate)
        elif think:
            self.due = time.perf_counter() + self.rng.expovariate(1 / think)
        else:
            return self.restart()
        pause = self.due - time.perf_counter()
        if pause > 0:
            time.sleep(pause)
        return self.due


def dealer_loop(client, username, table_id, bank, seats, seed, phases, pacing, figures, stop, fetch=True):
    rng = random.Random(seed)
    pace = Pace(rng, pacing)
    try:  # the first hand opens before the turns (not all 20 at once in the first one's figures)
        _status, _location, page = client.request("GET", f"/tables/console/{table_id}/")
        record, bank, seats, page = dealer_step(client, username, table_id, bank, seats, rng, None, page,
                                                time.perf_counter(), Figures(), stop, fetch)
    finally:
        phases.arrive()
    while not stop.is_set():
        # The next hand opens as soon as the last settles: only entries keep the pace.
        opening = hand_over(page)
        due = pace.restart() if opening else pace.next()
        waited = phases.enter()
        if waited is None:
            return
        if waited:  # not all at once when a turn begins: each draws his next time afresh
            phases.leave()
            pace.restart()
            continue
        try:
            record, bank, seats, page = dealer_step(client, username, table_id, bank, seats, rng, record, page, due,
                                                    figures, stop, fetch)
        finally:
            phases.leave()
        if opening:  # the first entry of a hand is due only once the hand is open
            pace.restart()


def hand_over(page):
    """Is the console's hand over (or is there none yet): the next request opens one."""
    status = STATUS.search(page)
    return status is None or status.group(1) != "open"


def dealer_step(client, username, table_id, bank, seats, rng, record, page, started, figures, stop, fetch):
    """One request of a dealer: the next entry of his hand, or the next hand's opening.
    Returns ``(record, bank, seats, page)`` as they are after it."""
    from game.simulate import random_record

    status = STATUS.search(page)
    if hand_over(page):
        # Open the next hand: the prefilled seats, plus the player who lost the bank.
        holder = NEXT_BANK.search(page).group(1)
        prefilled = SEATS.search(page).group(1).split() if status is not None else seats
        seated = [code for code in prefilled if code != holder]
        if bank != holder and bank not in seated:
            seated.append(bank)
        bank, seats = holder, seated
        code, location, page = script_post(client, page, "form-open", {"seats": " ".join(seats)}, fetch=fetch)
        if code == 302:
            code, _location, page = client.request("GET", location)
        figures.add("opens", time.perf_counter() - started)
        record = random_record(rng, rules=RULES, seats=seats, bank=bank, min_bet=MIN_BET, max_bet=MAX_BET)
        return record, bank, seats, page
    if record is None:  # a hand left open by an earlier run: not ours to finish
        raise RuntimeError(f"{username}: table {table_id} has a hand open that this run did not start")
    version = int(VERSION.search(page).group(1))
    event = record["events"][version]
    form_id, typed, button = entry_of(event)
    answer = script_post(client, page, form_id, typed, button, fetch=fetch)
    if answer is None:
        raise RuntimeError(f"{username}: the console offers no {form_id} for {event} "
                           f"(forms: {sorted(FORM_IDS.findall(page))})")
    code, location, page = answer
    posted = time.perf_counter()
    if fetch:  # the answer is the new console, as the console's script gets it
        recorded = code == 200 and REFUSAL not in page
    elif code == 302:
        code, _location, page = client.request("GET", location)
        recorded = code == 200
    else:
        recorded = False
    if not recorded:
        figures.add("refusals", (event, code))
        stop.set()
        raise RuntimeError(f"{username}: {event} refused ({code})")
    took = time.perf_counter() - started
    figures.add("events", took)
    figures.add("posts", posted - started)
    kind = event["do"]
    if version + 1 == len(record["events"]):
        if 'data-status="settled"' not in page:
            raise RuntimeError(f"{username}: the hand's last event did not settle it")
        kind = "settle"
        with figures.lock:
            figures.hands += 1
    with figures.lock:
        figures.kinds.setdefault(kind, []).append(took)
    return record, bank, seats, page


def trivial_loop(client, path, until, times):
    while time.monotonic() < until:
        started = time.perf_counter()
        status, _location, _page = client.request("GET", path)
        if status == 200:
            times.append(time.perf_counter() - started)


def start_threads(target, count, args_of):
    """Start ``count`` threads running ``target(*args_of(i))``; ``(threads, errors)``, the
    errors (text) filled in as threads fail."""
    errors = []

    def guarded(i):
        try:
            target(*args_of(i))
        except Exception as error:  # noqa: BLE001 - reported by the caller
            errors.append(f"{type(error).__name__}: {error}")

    threads = [threading.Thread(target=guarded, args=(i,), daemon=True) for i in range(count)]
    for thread in threads:
        thread.start()
    return threads, errors


def run_threads(target, count, args_of):
    """``start_threads``, then wait for them all; the errors (text)."""
    threads, errors = start_threads(target, count, args_of)
    for thread in threads:
        thread.join()
    return errors


class CpuMeter:
    """CPU seconds (user + system) spent by the server's processes (its session: gunicorn's
    master and workers), by PostgreSQL's (every ``postgres`` process on this machine) and by
    this script (the simulated clients), read from ``/proc`` (Linux; zeros elsewhere)."""

    TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100

    def __init__(self, server):
        self.session = server.pid

    def _processes(self):
        server = postgres = 0.0
        for entry in os.scandir("/proc") if os.path.isdir("/proc") else ():
            if not entry.name.isdigit():
                continue
            try:
                with open(f"/proc/{entry.name}/stat") as stat:
                    text = stat.read()
            except OSError:  # gone since the listing
                continue
            name = text[text.index("(") + 1:text.rindex(")")]
            fields = text[text.rindex(")") + 2:].split()
            seconds = (int(fields[11]) + int(fields[12])) / self.TICK  # utime, stime
            if int(fields[3]) == self.session:  # session id
                server += seconds
            elif name == "postgres" or name.startswith("postgres:"):
                postgres += seconds
        return server, postgres

    def add(self, spent, before):
        """``spent`` (a list: server, PostgreSQL, this script; s) plus the CPU used since
        the reading ``before``."""
        spent[:] = [total + after - start for total, start, after in zip(spent, before, self.read(), strict=True)]

    def read(self):
        """``(server, PostgreSQL, this script)`` CPU seconds so far."""
        own = os.times()
        return (*self._processes(), own.user + own.system)

    @staticmethod
    def per_request(spent, requests):
        """CPU milliseconds per request of ``spent`` (server, PostgreSQL, this script; s),
        as a printable phrase."""
        if not requests:
            return "no requests"
        server, postgres, client = (seconds * 1000 / requests for seconds in spent)
        return f"server {server:.2f} ms, PostgreSQL {postgres:.2f} ms, the clients {client:.2f} ms"


def profile_server(server, seconds, output):
    spy = shutil.which("py-spy", path=str(Path(sys.executable).parent)) or shutil.which("py-spy")
    if spy is None:
        print("py-spy is not installed: no profile", file=sys.stderr)
        return None
    output_format = "raw" if output.endswith(".txt") else "speedscope" if output.endswith(".json") else "flamegraph"
    # --gil: only samples taken while a worker holds the GIL, i.e. its Python CPU, not
    # its waits for PostgreSQL or the network.
    return subprocess.Popen([spy, "record", "--gil", "--pid", str(server.pid), "--subprocesses", "--duration",
                             str(int(seconds)), "--rate", "200", "--format", output_format, "--output", output,
                             "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# ---------------------------------------------------------------------------------------

def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60, help="how long the dealers play (default 60)")
    parser.add_argument("--trivial-seconds", type=float, default=15, help="the trivial page's run (default 15)")
    parser.add_argument("--dealers", type=int, default=20)
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a dealer pauses between entries (default 0: flat out)")
    parser.add_argument("--rate", metavar="N|P%",
                        help="the dealers together offer N events/s, or P%% of the trivial page's rate so far, "
                             "as Poisson arrivals (instead of flat out or --think)")
    parser.add_argument("--rounds", type=int, default=4,
                        help="turns of the trivial page and the dealers, taken in alternation (default 4)")
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1,
                        help="gunicorn sync workers (default 2 × cores + 1)")
    parser.add_argument("--server", choices=("auto", "gunicorn", "runserver"), default="auto",
                        help="auto: gunicorn if installed, else runserver")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--chips", type=Decimal, default=CHIPS,
                        help="each player's chips in euros, bought in slips of at most CAGE_SLIP_MAXIMUM "
                             f"(default {CHIPS})")
    parser.add_argument("--redirect", action="store_true",
                        help="post as a browser without the console's script (POST, redirect, GET) instead of "
                             "as the console's script does (one POST answered with the console)")
    parser.add_argument("--profile", metavar="FILE", help="py-spy flame graph of the server during the dealers' run")
    args = parser.parse_args()

    name = f"console_bench_{os.getpid()}"
    static_root = tempfile.mkdtemp(prefix="console_bench_static_")
    needs_migrate = create_scratch(name)
    # The shipped configuration (docker-compose.yml's): production settings, persistent
    # connections, sessions cached in Redis, plain HTTP on loopback.
    redis = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env = dict(os.environ, DATABASE_URL=database_url(name), DJANGO_SETTINGS_MODULE="casino.settings.production",
               DJANGO_SECRET_KEY="bench-only-not-a-secret", CHAIN_KEY="bench-only-chain-key-not-a-secret-0000", DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
               CELERY_BROKER_URL=redis, CACHE_URL=os.environ.get("CACHE_URL", redis), DJANGO_HTTPS="false",
               CELERY_TASK_ALWAYS_EAGER="true", DJANGO_STATIC_ROOT=static_root)
    os.environ.update(env)
    server = None
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        if needs_migrate:
            call_command("migrate", verbosity=0)
        call_command("collectstatic", interactive=False, verbosity=0)  # as the Dockerfile does
        tables = prepare(args.dealers, args.chips)
        connection.close()
        port = free_port()
        server, kind = start_server(port, env, args.workers, args.server)
        print(f"server          : {kind} on 127.0.0.1:{port}; PostgreSQL {HOST}:{PORT}/{name}; "
              f"{os.cpu_count()} cores shared with the dealers' threads")

        # The dealers log in; a warm-up lets every worker import, connect and compile its
        # templates before anything is timed.
        clients = {}
        errors = run_threads(dealer_log_in, args.dealers, lambda i: (port, tables[i][0], clients))
        if errors:
            raise RuntimeError(errors[0])
        run_threads(trivial_loop, args.dealers, lambda i: (Client(port), "/accounts/login/", time.monotonic() + 2, []))

        # The home page, logged in (session, user and roles read), for comparison.
        home = []
        until = time.monotonic() + args.trivial_seconds / args.rounds
        errors += run_threads(trivial_loop, args.dealers, lambda i: (clients[tables[i][0]], "/", until, home))
        h = percentiles(home)
        print(f"home page       : GET / (logged in: session, user, roles) by {args.dealers} dealers: "
              f"{len(home) * args.rounds / args.trivial_seconds:.0f} requests/s; latency p50 {h['p50']:.1f} ms, "
              f"p95 {h['p95']:.1f} ms, p99 {h['p99']:.1f} ms")

        # Turns: the trivial page, then the dealers, --rounds times.
        figures = Figures()
        cpu = CpuMeter(server)
        stop, phases = threading.Event(), Phases()
        pacing = {"think": args.think, "rate": 0.0}
        spy = profile_server(server, args.seconds + args.trivial_seconds + 5, args.profile) if args.profile else None
        dealers, dealer_errors = start_threads(dealer_loop, args.dealers, lambda i: (
            clients[tables[i][0]], tables[i][0], tables[i][1], tables[i][2], tables[i][3], args.seed * 1000 + i,
            phases, pacing, figures, stop, not args.redirect))
        phases.wait_ready(args.dealers)
        trivial_cpu = [0.0, 0.0, 0.0]
        dealers_cpu = [0.0, 0.0, 0.0]
        trivial_time = elapsed = 0.0
        offers = []  # events/s the dealers offered in each turn (--rate)
        for _turn in range(args.rounds):
            before = cpu.read()
            started = time.monotonic()
            until = started + args.trivial_seconds / args.rounds
            errors += run_threads(trivial_loop, args.dealers, lambda i, until=until: (
                Client(port), "/accounts/login/", until, figures.trivial))
            trivial_time += time.monotonic() - started
            cpu.add(trivial_cpu, before)
            if args.rate:  # a share of the trivial page's rate so far, or a number
                offered = (float(args.rate[:-1]) / 100 * len(figures.trivial) / trivial_time
                           if args.rate.endswith("%") else float(args.rate))
                pacing["rate"] = offered / args.dealers
                offers.append(offered)
            before = cpu.read()
            elapsed += phases.deal(args.seconds / args.rounds)
            cpu.add(dealers_cpu, before)
            if stop.is_set():
                break
        phases.finish()
        for thread in dealers:
            thread.join()
        errors += dealer_errors
        trivial_rate = len(figures.trivial) / trivial_time
        t = percentiles(figures.trivial)
        print(f"trivial page    : GET /accounts/login/ (anonymous) by {args.dealers} clients, {args.rounds} turns "
              f"between the dealers' ({trivial_time:.0f} s in all): {trivial_rate:.0f} requests/s; "
              f"latency p50 {t['p50']:.1f} ms, p95 {t['p95']:.1f} ms, p99 {t['p99']:.1f} ms")
        print(f"                  CPU per request: {CpuMeter.per_request(trivial_cpu, len(figures.trivial))}")
        if spy is not None:
            spy.wait()
            print(f"profile         : {args.profile}")
        pace_text = (f"offered {', '.join(f'{o:.0f}' for o in offers)} events/s in the turns ({args.rate})" if args.rate
                     else f"think {args.think} s" if args.think else "flat out")
        rate = len(figures.events) / elapsed
        e = percentiles(figures.events)
        o = percentiles(figures.opens)
        print(f"console entries : {args.dealers} dealers, {args.rounds} turns ({elapsed:.0f} s in all; {pace_text}): "
              f"{len(figures.events)} events, "
              f"{rate:.1f} events/s; {'POST + redirected GET' if args.redirect else 'one POST answered with the console'}"
              f" p50 {e['p50']:.1f} ms, p95 {e['p95']:.1f} ms, p99 {e['p99']:.1f} ms")
        print(f"                  CPU per event: {CpuMeter.per_request(dealers_cpu, len(figures.events))}")
        if args.redirect:
            p = percentiles(figures.posts)
            print(f"                  the POST alone p50 {p['p50']:.1f} ms, p95 {p['p95']:.1f} ms; "
                  f"{2 * rate:.0f} requests/s (a POST and a GET per event)")
        print("by entry        : " + "; ".join(
            f"{kind} {len(times)}× p50 {percentiles(times)['p50']:.0f} p95 {percentiles(times)['p95']:.0f} ms"
            for kind, times in sorted(figures.kinds.items(), key=lambda item: -len(item[1]))))
        print(f"hands           : {figures.hands} settled; next hand opened {len(figures.opens)} times "
              f"({'POST + GET' if args.redirect else 'one POST'} p50 {o['p50']:.1f} ms, p95 {o['p95']:.1f} ms)")
        print(f"refusals        : {len(figures.refusals)}{' ' + str(figures.refusals[:3]) if figures.refusals else ''}")
        ratio = rate / trivial_rate if trivial_rate else float("nan")
        p95_goal = f"p95 {e['p95']:.1f} ms (goal at most 50 ms: {'met' if e['p95'] <= 50 else 'missed'})"
        if args.rate:
            # The rate is the one offered: the dealers' arrivals (entries and the openings
            # between hands) follow the trivial page's rate so far, so what they offer
            # measures no capacity; a flat-out run does.
            offered = sum(offers) / len(offers) / trivial_rate if offers and trivial_rate else float("nan")
            print(f"goal            : {p95_goal} with the dealers offering {offered:.0%} of the trivial page's "
                  f"requests/s ({ratio:.0%} as entries, the rest openings); the rate goal (at least 30%) is a "
                  "flat-out run's")
        else:
            print(f"goal            : {p95_goal}; events/s = {ratio:.0%} of the trivial page's requests/s (goal at "
                  f"least 30%: {'met' if ratio >= 0.30 else 'missed'})")
        for error in errors[:5]:
            print(f"error           : {error}", file=sys.stderr)
        if errors:
            sys.exit(1)
    finally:
        if server is not None:
            stop_server(server)
        drop_scratch(name, static_root)


if __name__ == "__main__":
    main()
