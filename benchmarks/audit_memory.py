"""Memory of the audit's checks over many hands: it must stay flat. A script that prints
figures, never a timed test.

    .venv/bin/python benchmarks/audit_memory.py [--hands 2000 20000] [--seed-hands 200]

In a scratch database ``audit_memory_<pid>`` on the PostgreSQL server of ``PGHOST`` /
``PGPORT`` / ``PGUSER`` (default 127.0.0.1:5432, postgres), dropped at the end: one table's
shift of ``--seed-hands`` random legal hands played through the services, then copied in
SQL with every hand's entries signed again (``reports.py``'s ``seed`` and ``multiply``,
``--entries-hands 0``) up to each size of ``--hands`` in turn, the larger sizes on top of
the smaller. At each size, each check runs in a process of its own, which prints its
peak resident memory (``ru_maxrss``) and its wall time:

- ``start-up``: Django set up and one query, for comparison;
- ``chain``: ``tables.integrity.chain_faults`` over the table's entries (every entry's
  HMAC recomputed);
- ``shift chain``: the shift report's chain check (``reports.audit.chain_check``: the
  same over the shift's entries, and the undos collected);
- ``replay``: ``tables.replay.hand_faults`` over every hand (entries replayed through the
  engine, compared with the stored bets, settlement and posting);
- ``ledger_check``: ``manage.py ledger_check`` (the ledger's sums and checks, then the
  replay of every hand and the orphan postings).

The goal: each check's peak the same at every size (within a few MiB): hands and entries
are read in chunks, never a whole period at once.
"""

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import PG, create_scratch, database_url, run  # noqa: E402  (beside this script)

#: Runs ``sys.argv[1:]`` and prints its peak resident memory (KiB), exit status and wall time.
PEAK = ("import resource, subprocess, sys, time; started = time.perf_counter(); "
        "done = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode, "
        "time.perf_counter() - started); print(done.stdout[:2000] + done.stderr[:2000])")

#: Each check: a script run after ``django.setup()``, printing what it found.
CHECKS = {
    "start-up": "from tables.models import Hand; print(Hand.objects.count(), 'hands')",
    "chain": ("from tables.integrity import chain_faults; from tables.models import Table\n"
              "faults = [f for t in Table.objects.all() for f in chain_faults(t)]\n"
              "print(len(faults), 'chain faults', faults[:3])"),
    "shift chain": ("from reports.audit import chain_check; from tables.models import Hand, Shift\n"
                    "shift = Shift.objects.get(); hands = Hand.objects.filter(shift=shift)\n"
                    "chain, undos = chain_check(shift.table, shift.pk, hands, hands.count())\n"
                    "print(chain['entries'], 'entries', len(chain['faults']), 'chain faults', len(undos), 'undos')"),
    "replay": ("from tables.models import Hand; from tables.replay import hand_faults\n"
               "faults = hand_faults(Hand.objects.all()); print(len(faults), 'replay faults', faults[:3])"),
}


def peak(command, env):
    """``(peak MiB, exit status, seconds, output)`` of ``command`` run in its own process."""
    done = subprocess.run([sys.executable, "-c", PEAK, *command], cwd=ROOT, env=env, capture_output=True,
                          text=True, check=True)
    first, _newline, output = done.stdout.partition("\n")
    kib, status, seconds = first.split()
    return int(kib) / 1024, int(status), float(seconds), output.strip()


def measure(env, hands):
    for name, script in [*CHECKS.items(), ("ledger_check", None)]:
        if script is None:
            command = [sys.executable, "manage.py", "ledger_check"]
        else:
            command = [sys.executable, "-c", "import django; django.setup()\n" + script]
        mib, status, seconds, output = peak(command, env)
        lines = output.splitlines()
        last = " | ".join(dict.fromkeys(line[:120] for line in lines[:1] + lines[-1:]))
        print(f"  {hands:>9,} hands  {name:<13} {mib:7.1f} MiB  {seconds:7.1f} s  (exit {status}) {last}", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--seed-hands", type=int, default=200)
    args = parser.parse_args()

    name = f"audit_memory_{os.getpid()}"
    needs_migrate = create_scratch(name)
    os.environ.update(DATABASE_URL=database_url(name), DJANGO_DEBUG="false", CELERY_TASK_ALWAYS_EAGER="true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")
    env = dict(os.environ)
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        from benchmarks.reports import multiply, seed

        if needs_migrate:
            call_command("migrate", verbosity=0)
        started = time.perf_counter()
        table, shift = seed(args.seed_hands, random.Random(5))
        print(f"seed: {args.seed_hands} hands through the services in {time.perf_counter() - started:.0f} s", flush=True)
        print("peak resident memory of each check in a process of its own, and its wall time")
        for hands in sorted(args.hands):
            started = time.perf_counter()
            loaded = multiply(table, shift, hands, entries_hands=0)
            print(f"load: {loaded:,} hands, every entry signed, in {time.perf_counter() - started:.0f} s", flush=True)
            connection.close()
            measure(env, loaded)
        connection.close()
    finally:
        run("dropdb", *PG, "--if-exists", "--force", name)


if __name__ == "__main__":
    main()
