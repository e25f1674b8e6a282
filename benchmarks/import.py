"""Import speed: chained hand records through ``manage.py import_hands`` next to pgbench.
A script that prints figures, never a timed test.

    .venv/bin/python benchmarks/import.py [--hands 10000] [--pgbench-seconds 10]

Everything happens in scratch databases on the PostgreSQL server of ``PGHOST``/``PGPORT``
/``PGUSER`` (default 127.0.0.1:5432, postgres), created with ``createdb`` and dropped at
the end:

1. ``import_bench_<pid>``: migrated. ``--hands`` random legal hands
   (``game.simulate``) chained at one table as a night's hands are: numbered
   1, 2, 3..., each banked by the holder the hand before left (a 7½ takes the bank), the
   players drawn from ``simulate.NAMES``; written as JSON Lines in two files.
2. Each file through the real command, ``manage.py import_hands --create-tables
   --opening-chips 1000000 FILE`` (its players are new: without opening chips their bets
   are not covered),
   in a process of its own run with the production settings
   (``casino.settings.production``: the connection options as shipped), its wall time
   measured from start to exit (Django's start-up included). pgbench runs between the
   two files, so that the load other processes put on the machine weighs on both
   figures alike.
3. ``import_pgbench_<pid>``: ``pgbench -i`` then ``pgbench -c 1 -T 10`` (TPC-B-like, one
   client). Prints its TPS and the ratio (hands/s over TPS).
4. The imported data checked: every hand settled and posted, the table's hash chain
   (``tables.integrity.chain_faults``) and hand numbers intact, the ledger's balances
   recomputed (``manage.py ledger_check``).
5. ``--statements N`` (default 1,000; 0: skipped): the first N records imported again,
   in-process, into a scratch database of their own (``import_count_<pid>``), through
   ``hand_import_records`` as many at a time as the command's ``--batch`` default
   (``import_hands.BATCH``), every SQL statement counted
   (``CaptureQueriesContext``, savepoints, BEGIN and COMMIT included): statements per hand.

Goal: at least 1,000 hands/s. The latest figures, and what the import's machinery bought,
are in ``benchmarks/RESULTS.md`` ("import").
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import PG, create_scratch, database_url, pgbench_tps, run  # noqa: E402  (beside this script)

TABLE = "Mesa bench"
RULES = "reglamento"
MIN_BET, MAX_BET = 500, 10000  # cents


def chained_records(count, seed=18):
    """``count`` hand records of one table, chained (``simulate.random_night``)."""
    from game.simulate import random_night

    return random_night(random.Random(seed), count, table=TABLE, rules=RULES, min_bet=MIN_BET, max_bet=MAX_BET,
                        bank="banca")


def write_jsonl(path, records):
    with open(path, "wb") as out:
        for record in records:
            out.write(orjson.dumps(record) + b"\n")


def command_env(name):
    """The environment of ``manage.py`` as deployed: production settings."""
    env = dict(os.environ)
    redis = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    env.update({"DJANGO_SETTINGS_MODULE": "casino.settings.production", "DATABASE_URL": database_url(name),
                "DJANGO_SECRET_KEY": "import-benchmark-not-a-secret",
                "CHAIN_KEY": "import-benchmark-chain-key-not-a-secret", "DJANGO_ALLOWED_HOSTS": "localhost",
                # production.py requires both (it refuses to start without CACHE_URL)
                "CELERY_BROKER_URL": redis, "CACHE_URL": os.environ.get("CACHE_URL", redis)})
    return env


def import_file(path, env):
    """``manage.py import_hands --create-tables --opening-chips 1000000 path``; (seconds, its output)."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, str(ROOT / "manage.py"), "import_hands", "--create-tables",
                           "--opening-chips", "1000000", str(path)],
                          env=env, capture_output=True, text=True, cwd=ROOT)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"import_hands failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed, done.stdout


def bench_pgbench(seconds):
    return pgbench_tps(seconds, "import")


def check(env, count):
    """The imported data, checked in a process with the same settings; a list of faults."""
    script = (
        "import django; django.setup()\n"
        "from tables.models import Hand, Table\n"
        "from tables.integrity import chain_faults, number_gaps\n"
        f"table = Table.objects.get(name={TABLE!r})\n"
        "hands = table.hands.all()\n"
        "faults = chain_faults(table) + [f'hand #{n} missing' for n in number_gaps(table)]\n"
        f"if hands.count() != {count}: faults.append(f'{{hands.count()}} hands, not {count}')\n"
        "if hands.exclude(status='settled').exists() or hands.filter(transaction=None).exists():\n"
        "    faults.append('a hand not settled or not posted')\n"
        "print('\\n'.join(faults))\n")
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT,
                          check=True)
    faults = [line for line in done.stdout.splitlines() if line.strip()]
    ledger = subprocess.run([sys.executable, str(ROOT / "manage.py"), "ledger_check"], env=env,
                            capture_output=True, text=True, cwd=ROOT)
    if ledger.returncode != 0:
        faults.append(f"ledger_check: {ledger.stdout}{ledger.stderr}")
    return faults


def count_statements(path, count):
    """Statements per hand of ``count`` records of ``path`` imported in-process into a
    fresh scratch database (see the module's docstring, step 5)."""
    name = f"import_count_{os.getpid()}"
    needs_migrate = create_scratch(name)
    env = command_env(name)
    script = (
        "import collections, sys; from decimal import Decimal; import django; django.setup()\n"
        "import orjson; from django.db import connection\n"
        "from django.test.utils import CaptureQueriesContext\n"
        "from tables.importing import hand_import_records\n"
        "from tables.management.commands.import_hands import BATCH\n"
        f"records = [orjson.loads(line) for line in open({str(path)!r}, 'rb')][:{count}]\n"
        "connection.queries_log = collections.deque(maxlen=10**7)\n"
        "with CaptureQueriesContext(connection) as queries:\n"
        "    for i in range(0, len(records), BATCH):\n"
        "        hand_import_records(records=records[i:i + BATCH], create_tables=True,"
        " opening_chips=Decimal(1000000))\n"
        "print(len(queries) / len(records))\n")
    try:
        if needs_migrate:
            subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "--verbosity", "0"], env=env,
                           cwd=ROOT, check=True)
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT,
                              check=True)
        return float(done.stdout.split()[-1])
    finally:
        run("dropdb", *PG, "--if-exists", "--force", name)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--pgbench-seconds", type=int, default=10)
    parser.add_argument("--statements", type=int, default=1000, metavar="N",
                        help="count the SQL statements per hand of the first N records (0: skip)")
    args = parser.parse_args()

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")  # the generator needs no database
    started = time.perf_counter()
    records = chained_records(args.hands)
    events = sum(len(record["events"]) for record in records)
    print(f"records         : {len(records)} chained hands at one table, {events / len(records):.1f} events each "
          f"(made in {time.perf_counter() - started:.1f} s)")

    name = f"import_bench_{os.getpid()}"
    needs_migrate = create_scratch(name)
    env = command_env(name)
    try:
        if needs_migrate:
            subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "--verbosity", "0"], env=env,
                           cwd=ROOT, check=True)
        with tempfile.TemporaryDirectory() as folder:
            half = len(records) // 2
            first, second = Path(folder, "first.jsonl"), Path(folder, "second.jsonl")
            write_jsonl(first, records[:half])
            write_jsonl(second, records[half:])
            seconds_1, _out = import_file(first, env)
            tps = bench_pgbench(args.pgbench_seconds)
            seconds_2, out = import_file(second, env)
            per_hand = count_statements(first, min(args.statements, half)) if args.statements else None
        seconds = seconds_1 + seconds_2
        rate = len(records) / seconds
        print(f"import_hands    : {len(records)} hands in {seconds:.2f} s = {rate:.0f} hands/s "
              f"(first file {half / seconds_1:.0f}/s, second {(len(records) - half) / seconds_2:.0f}/s; "
              f"each a process of its own, start-up included)")
        print(f"pgbench -c 1 -T {args.pgbench_seconds}: {tps:.0f} TPS (run between the two files)")
        print(f"ratio           : {rate / tps:.2f} hands/s per pgbench TPS (goal: at least 1,000 hands/s)")
        if per_hand is not None:
            print(f"statements      : {per_hand:.1f} per hand (the first {min(args.statements, half)} records, "
                  "in-process, the command's batches)")
        faults = check(env, len(records))
        print("checks          : " + ("every hand settled and posted, hash chain and numbers intact, "
                                      "ledger_check clean" if not faults else "FAULTS\n" + "\n".join(faults)))
        if faults:
            raise SystemExit(1)
    finally:
        run("dropdb", *PG, "--if-exists", "--force", name)


if __name__ == "__main__":
    main()
