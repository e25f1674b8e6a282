"""A day's incremental audit check against the full check, in the same run. A script that
prints figures, never a timed test.

    .venv/bin/python benchmarks/audit_incremental.py [--hands 20000] [--day 1000] [--seed-hands 200]

In a scratch database ``audit_incremental_<pid>`` on the PostgreSQL server of ``PGHOST`` /
``PGPORT`` / ``PGUSER`` (default 127.0.0.1:5432, postgres), dropped at the end: one table's
shift of ``--seed-hands`` random legal hands played through the services, then copied in
SQL up to ``--hands`` hands (``reports.py``'s ``seed`` and ``multiply``), every copied
entry, hand opening and ledger transaction signed again in Python and chained, so that
every check passes on them (``sign_copies``), and the players' chips the copies' losses took
below zero bought in again at the cage (``cover_players``). Then, each in a process of its own:

- ``SQL``: one query reading every hand and every entry (the anchor);
- ``full``: ``manage.py ledger_check --full --here`` (every chunk in one process; it
  stores the checkpoint the next run starts from);

then ``--day`` more hands are copied (the seed's again, numbered after the last) and
signed, and:

- ``incremental``: ``manage.py ledger_check`` (from the checkpoint: only the day's hands);
- ``full again``: ``manage.py ledger_check --full --here`` over history and day.

With ``--celery redis://127.0.0.1:6379/<db>``, the script also starts a Celery worker of
``--concurrency`` processes (2: the shipped worker's) on that broker, which is its result
backend too, and times the history's full check once more through it (``ledger_check --full``:
its chunks, a table's ranges of ``AUDIT_CHUNK_HANDS`` hands among them, fanned out to the
worker), the worker's CPU and its processes' peak memory beside the command's.

Printed: each one's wall time and exit status, the full check against the query, and the
incremental check against the full check over the same database (the goal: 10,000 new hands
on top of 1,000,000 within 30 s; RESULTS.md). Both checks must exit 0: the data holds.

A large history is loaded once (``--hands 1000000 --load-only``: about 50 minutes) and
checked later, by other code if need be, with ``--database <the name printed>``: no seed
and no load, the day's hands added to it (each such run's day on top of the last).
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import PG, create_scratch, database_url, run  # noqa: E402  (beside this script)

#: The anchor: one statement over every hand and every entry of the table.
ANCHOR = ("SELECT count(*), sum(length(e.event::text)), count(DISTINCT h.id), sum(h.number) "
          "FROM tables_handevent e JOIN tables_hand h ON h.id = e.hand_id")


def sign_copies(cursor):
    """Sign what ``multiply`` copied unsigned, as the services would have: each unsigned
    hand's opening (``tables.chain``) and each unsigned ledger transaction with its number
    of legs, chained from the last signed one (``ledger.signing``); the chain's head moved
    to the last. Triggers off (the load only), rows written back through ``COPY`` into a
    temporary table. Returns ``(hands, transactions)`` signed."""
    from casino.keys import current_key_id, secret
    from ledger.money import cents
    from ledger.signing import GENESIS, posting_body, signature
    from tables.chain import opening_body, opening_signature

    key_id = current_key_id()
    key = secret(key_id)
    cursor.execute("SET session_replication_role = replica")
    # A bank's capital deposited at the cage is justified by its slip, which is not copied:
    # the copy is the capital a tenure takes from its holder's chips (tables.bank.tenures).
    cursor.execute("""
        UPDATE ledger_transaction t
           SET cause = jsonb_build_object('kind', 'bank_capital', 'tenure', bt.id, 'table', tt.name)
          FROM ledger_entry e JOIN tables_banktenure bt ON bt.account_id = e.account_id
               JOIN tables_table tt ON tt.id = bt.table_id
         WHERE e.transaction_id = t.id AND t.signature = '' AND t.kind = 'capital_in'
           AND NOT EXISTS (SELECT 1 FROM cage_cashierslip r WHERE r.transaction_id = t.id)""")
    cursor.execute("CREATE TEMPORARY TABLE signed_hand (id bigint, signature text) ON COMMIT DROP")
    cursor.execute("SELECT id, table_id, number, shift_id, tenure_id, bank_id, seats::text, rules::text, min_bet, "
                   "max_bet, imported FROM tables_hand WHERE signature = '' ORDER BY id")
    hands = 0
    rows = cursor.fetchall()
    with cursor.cursor.copy("COPY signed_hand (id, signature) FROM STDIN") as copy:
        for pk, table, number, shift, tenure, bank, seats, rules, low, high, imported in rows:
            body = opening_body(table_id=table, number=number, shift_id=shift, tenure_id=tenure, bank_id=bank,
                                seats=json.loads(seats), rules=json.loads(rules), min_bet=low, max_bet=high,
                                imported=imported)
            copy.write_row((pk, opening_signature(key_id, key, body)))
            hands += 1
    cursor.execute("UPDATE tables_hand h SET signature = s.signature, key_id = %s FROM signed_hand s "
                   "WHERE h.id = s.id", [key_id])
    cursor.execute("SELECT coalesce(min(id), 0) FROM ledger_transaction WHERE signature = ''")
    first = cursor.fetchone()[0]
    cursor.execute("SELECT signature FROM ledger_transaction WHERE id < %s AND signature <> '' ORDER BY id DESC "
                   "LIMIT 1", [first])
    row = cursor.fetchone()
    previous = row[0] if row else GENESIS
    cursor.execute("""
        SELECT t.id, t.kind, t.reference, t.idempotency_key, t.cause::text, t.posted_by_id, t.source, t.posted_at,
               t.memo, t.reverses_id, array_agg(e.account_id), array_agg(e.side), array_agg(e.amount)
          FROM ledger_transaction t JOIN ledger_entry e ON e.transaction_id = t.id
         WHERE t.id >= %s AND %s > 0 GROUP BY t.id ORDER BY t.id""", [first, first])
    rows = cursor.fetchall()
    cursor.execute("CREATE TEMPORARY TABLE signed_tx (id bigint, signature text, previous text, legs int) "
                   "ON COMMIT DROP")
    with cursor.cursor.copy("COPY signed_tx (id, signature, previous, legs) FROM STDIN") as copy:
        for pk, kind, reference, idempotency, cause, by, source, at, memo, reverses, accounts, sides, amounts in rows:
            legs = list(zip(accounts, sides, [cents(a) for a in amounts], strict=True))
            body = posting_body(kind=kind, reference=reference, idempotency_key=idempotency, cause=json.loads(cause),
                                posted_by_id=by, source=source, posted_at=at, memo=memo, reverses_id=reverses,
                                legs=legs)
            signed = signature(key_id=key_id, key=key, previous=previous, body=body)
            copy.write_row((pk, signed, previous, len(legs)))
            previous = signed
    cursor.execute("UPDATE ledger_transaction t SET signature = s.signature, previous_signature = s.previous, "
                   "legs = s.legs, key_id = %s FROM signed_tx s WHERE t.id = s.id", [key_id])
    if rows:
        cursor.execute("UPDATE ledger_chainhead SET signature = %s, last_id = %s WHERE id = 1", [previous, rows[-1][0]])
    cursor.execute("SET session_replication_role = origin")
    return hands, len(rows)


def cover_players():
    """Buy in at the cage, through the services, what every player's chips lack: the copies
    repeat the seed's results, and a player who lost over the seed's hands loses that again
    with every copy, far past the seed's one buy-in (the check would rightly name his chips
    below zero). Slips of at most ``slip_maximum()``. Returns how many slips."""
    from django.contrib.auth.models import User

    from benchmarks.cage import cage_cashier
    from cage.services.slips import cashier_buy_in, slip_maximum
    from ledger.models import Account

    cashier = cage_cashier(User.objects.get(username="bench-cage"))
    slips = 0
    for account in Account.objects.filter(kind=Account.Kind.PLAYER, balance__lt=0).select_related("player"):
        owing = -account.balance
        while owing > 0:
            amount = min(owing, slip_maximum())
            cashier_buy_in(player=account.player, amount=amount, posted_by=cashier)
            owing -= amount
            slips += 1
    return slips


def timed(command, env):
    """``(seconds, exit status, last line of output, CPU seconds, peak MiB)`` of ``command``
    in its own process: wall time, then the process's own user + system time and peak
    resident memory as GNU time reports them (``/usr/bin/time``, a small process between:
    a child forked from this one, which holds the loaded rows, would count them as its
    own peak); without GNU time, CPU and memory are None."""
    gnu_time = shutil.which("time", path="/usr/bin")
    started = time.perf_counter()
    with tempfile.NamedTemporaryFile("w+") as usage:
        prefix = [gnu_time, "-o", usage.name, "-f", "%U %S %M"] if gnu_time else []
        done = subprocess.run([*prefix, *command], cwd=ROOT, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - started
        figures = usage.read().split()[-3:] if gnu_time else []
    lines = (done.stdout + done.stderr).strip().splitlines()
    faults = [line for line in lines if line.startswith("FAULT")]
    said = [line[:160] for line in lines if line.startswith("ledger_check:")]
    cpu, mib = (float(figures[0]) + float(figures[1]), int(figures[2]) / 1024) if len(figures) == 3 else (None, None)
    return seconds, done.returncode, (faults[:3] if faults else said or lines[-1:]), cpu, mib


class Worker:
    """A Celery worker of ``concurrency`` processes on ``broker`` (also its result backend),
    started for the benchmark and stopped at its end; ``usage()``: its processes' CPU
    seconds so far and the greatest peak resident memory of one of them (MiB)."""

    def __init__(self, broker, concurrency, env):
        import psutil
        from celery import Celery

        self.env = {**env, "CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": broker,
                    "CELERY_TASK_ALWAYS_EAGER": "false"}
        self.log = tempfile.NamedTemporaryFile("w+", prefix="audit-worker-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "casino", "worker", "--concurrency", str(concurrency),
             "--loglevel", "warning", "--without-gossip", "--without-mingle", "-n", f"audit-bench-{os.getpid()}@%h"],
            cwd=ROOT, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        self.psutil = psutil
        app = Celery(broker=broker)
        for _attempt in range(120):
            if self.process.poll() is not None:
                raise RuntimeError(f"the Celery worker stopped: {self.log.name}")
            if app.control.ping(timeout=1.0):
                return
        raise RuntimeError(f"no answer from the Celery worker: {self.log.name}")

    def usage(self):
        root = self.psutil.Process(self.process.pid)
        cpu, peak = 0.0, 0
        for each in [root, *root.children(recursive=True)]:
            times = each.cpu_times()
            cpu += times.user + times.system
            with open(f"/proc/{each.pid}/status") as status:
                hwm = [line.split()[1] for line in status if line.startswith("VmHWM:")]
            peak = max(peak, int(hwm[0]) if hwm else 0)
        return cpu, peak / 1024

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


def usage(cpu, mib) -> str:
    """``timed``'s CPU and peak memory in words (GNU time's, or that there were none)."""
    return "CPU, peak memory: no /usr/bin/time" if cpu is None else f"CPU {cpu:.2f} s, peak {mib:.0f} MiB"


#: Where ``--load-only`` leaves the seed's id bounds (``multiply``'s ``source``) for ``--database``.
SOURCE_TABLE = "benchmark_seed_source"


def remember(source):
    """Keep the seed's id bounds in the scratch database itself (``SOURCE_TABLE``)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"CREATE TABLE {SOURCE_TABLE} (bounds jsonb NOT NULL)")
        cursor.execute(f"INSERT INTO {SOURCE_TABLE} VALUES (%s)", [json.dumps(source)])


def reloaded():
    """``(table, shift, source)`` of a kept database: its one table, the seed's shift and
    the bounds ``remember`` kept."""
    from django.db import connection

    from tables.models import Hand, Table

    with connection.cursor() as cursor:
        cursor.execute(f"SELECT bounds FROM {SOURCE_TABLE}")
        source = cursor.fetchone()[0]
    source = json.loads(source) if isinstance(source, str) else source
    table = Table.objects.get()
    shift = Hand.objects.filter(table=table, pk__lt=source["tables_hand"]).order_by("pk").first().shift
    return table, shift, source


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20000, help="the history's hands (M)")
    parser.add_argument("--day", type=int, default=1000, help="the day's new hands (N)")
    parser.add_argument("--seed-hands", type=int, default=200)
    parser.add_argument("--keep", action="store_true", help="keep the scratch database (its name is printed)")
    parser.add_argument("--once", action="store_true",
                        help="after the day's incremental check, stop: no full check over history and day, no "
                             "second pass in one process (for a large history, where each full check is long)")
    parser.add_argument("--load-only", action="store_true",
                        help="seed and load the history, keep the database and stop (its name is printed): "
                             "a large history loaded once, checked later with --database")
    parser.add_argument("--database", metavar="NAME",
                        help="a database kept by --load-only or --keep: no seed, no history load; the checks run "
                             "on it as on a fresh load (the day's hands are added to it, and it is kept)")
    parser.add_argument("--prefix", default="audit_incremental",
                        help="the scratch database's name before _<pid> (default audit_incremental)")
    parser.add_argument("--celery", metavar="BROKER_URL",
                        help="also time the history's full check through a Celery worker the script starts on "
                             "this broker (and result backend), e.g. redis://127.0.0.1:6379/6")
    parser.add_argument("--concurrency", type=int, default=2, help="the worker's processes (with --celery)")
    parser.add_argument("--celery-only", action="store_true",
                        help="with --celery: the full check through the worker only, not also in one process "
                             "(for a large history)")
    args = parser.parse_args()
    if args.database:
        args.keep = True

    name = args.database or f"{args.prefix}_{os.getpid()}"
    needs_migrate = False if args.database else create_scratch(name)
    os.environ.update(DATABASE_URL=database_url(name), DJANGO_DEBUG="false", CELERY_TASK_ALWAYS_EAGER="true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")
    env = dict(os.environ)
    worker = None
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection, transaction

        from benchmarks.reports import id_bounds, multiply, seed
        from tables.models import Hand

        if needs_migrate:
            call_command("migrate", verbosity=0)
        if args.database:
            table, shift, source = reloaded()
        else:
            started = time.perf_counter()
            table, shift = seed(args.seed_hands, random.Random(5))
            source = id_bounds()
            remember(source)
            print(f"seed: {args.seed_hands} hands through the services in {time.perf_counter() - started:.0f} s",
                  flush=True)

        def load(label, **options):
            started = time.perf_counter()
            loaded = multiply(table, shift, entries_hands=0, **options)
            with transaction.atomic(), connection.cursor() as cursor:
                hands, transactions = sign_copies(cursor)
            slips = cover_players()
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")
            print(f"load {label}: {loaded:,} hands in all, {hands:,} openings and {transactions:,} transactions "
                  f"signed, {slips:,} buy-ins covering the copies' losses, in {time.perf_counter() - started:.0f} s",
                  flush=True)
            return loaded

        if args.database:
            history = Hand.objects.count()
            print(f"history: {history:,} hands in {name}", flush=True)
        else:
            history = load("history", target=args.hands)
        connection.close()
        if args.load_only:
            args.keep = True
            return
        check = [sys.executable, "manage.py", "ledger_check"]
        anchor = [sys.executable, "-c", "import django; django.setup()\nfrom django.db import connection\n"
                  f"cursor = connection.cursor(); cursor.execute({ANCHOR!r}); print(cursor.fetchone())"]
        startup_s, _status, _out, _cpu, _mib = timed([sys.executable, "-c", "import django; django.setup()\n"
                                          "from django.db import connection; connection.ensure_connection()"], env)
        print(f"start-up (Django, a connection, no check): {startup_s:.2f} s, in each figure below", flush=True)
        sql_s, _status, _out, sql_cpu, sql_mib = timed(anchor, env)
        print(f"{history:>10,} hands  SQL (one query)    {sql_s:8.2f} s  (client {usage(sql_cpu, sql_mib)})", flush=True)
        full_status = 0
        if not (args.celery and args.celery_only):
            full_s, full_status, full_out, full_cpu, full_mib = timed([*check, "--full", "--here"], env)
            print(f"{history:>10,} hands  full check         {full_s:8.2f} s  (exit {full_status}) = "
                  f"{full_s / sql_s:.1f}× the query; {usage(full_cpu, full_mib)}  {full_out}", flush=True)
        if args.celery:
            worker = Worker(args.celery, args.concurrency, env)
            before, _peak = worker.usage()
            celery_s, celery_status, celery_out, celery_cpu, celery_mib = timed([*check, "--full"], worker.env)
            worker_cpu, worker_mib = worker.usage()
            print(f"{history:>10,} hands  full, Celery -c {args.concurrency} {celery_s:8.2f} s  (exit {celery_status}) = "
                  f"{celery_s / sql_s:.1f}× the query; the command's {usage(celery_cpu, celery_mib)}; the worker's "
                  f"CPU {worker_cpu - before:.2f} s, a process's peak {worker_mib:.0f} MiB  {celery_out}", flush=True)
            full_status = full_status or celery_status
        total = load("the day", target=args.day, source=source)
        connection.close()
        day = total - history
        sql2_s, _status, _out, _cpu, _mib = timed(anchor, env)
        incremental_s, incremental_status, incremental_out, incremental_cpu, incremental_mib = timed(check, env)
        print(f"{total:>10,} hands  SQL (one query)    {sql2_s:8.2f} s", flush=True)
        print(f"{day:>10,} new    incremental check  {incremental_s:8.2f} s  (exit {incremental_status}); "
              f"{usage(incremental_cpu, incremental_mib)}  {incremental_out}", flush=True)
        if args.once:
            if full_status or incremental_status:
                sys.exit("a check found faults in the loaded data")
            return
        full2_s, full2_status, full2_out, _cpu, _mib = timed([*check, "--full", "--here"], env)
        print(f"{total:>10,} hands  full check         {full2_s:8.2f} s  (exit {full2_status}) = "
              f"{full2_s / sql2_s:.1f}× the query  {full2_out}", flush=True)
        print(f"the day's incremental check of {day:,} hands on top of {history:,}: {incremental_s:.2f} s = "
              f"{incremental_s / full2_s:.3f} of the full check ({full2_s / incremental_s:.1f}× faster)", flush=True)
        # The machine's load swings within a run: the day's chunks again, from the history's
        # checkpoint, then the full check's, in one process (start-up out, nothing stored).
        again = [sys.executable, "-c", "import django, time; django.setup()\n"
                 "from reports.checkpoints import chunk_specs, run_chunks\nfrom reports.models import CheckPoint\n"
                 "state = CheckPoint.objects.order_by('pk').first().state\n"
                 "for label, since in (('incremental', state), ('full', None)):\n"
                 "    started = time.perf_counter(); results, _how = run_chunks(chunk_specs(since), fan_out=False)\n"
                 "    print(label, round(time.perf_counter() - started, 2), sum(r['hands'] for r in results),\n"
                 "          sum(len(r['faults']) for r in results))"]
        done = subprocess.run(again, cwd=ROOT, env=env, capture_output=True, text=True)
        figures = dict((line.split()[0], line.split()[1:]) for line in done.stdout.splitlines() if line.strip())
        if "incremental" in figures and "full" in figures:
            inc, full = float(figures["incremental"][0]), float(figures["full"][0])
            print(f"again in one process, the chunks only: incremental {inc:.2f} s ({figures['incremental'][1]} hands), "
                  f"full {full:.2f} s ({figures['full'][1]} hands): {inc / full:.3f} of the full check", flush=True)
        if full_status or incremental_status or full2_status:
            sys.exit("a check found faults in the loaded data")
    finally:
        if worker is not None:
            worker.stop()
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept: DATABASE_URL={database_url(name)}")
        else:
            run("dropdb", *PG, "--if-exists", "--force", name)


if __name__ == "__main__":
    main()
