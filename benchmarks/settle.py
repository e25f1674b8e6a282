"""Settling speed: N random legal hands settled in one process, start-up excluded; then
``manage.py settle`` as a command over one JSON Lines file, start-up included.

    .venv/bin/python benchmarks/settle.py [--hands 50000] [--seed 7]
    .venv/bin/python benchmarks/settle.py --file-hands 20000 --rounds 3 --against /tmp/main-copy

The hands are played at ``--tables`` random tables (each with its own random profile,
overrides and limits), as a casino's hands are: many hands share a table's rules.

Prints hands per second for three paths over the same hands:
- ``engine``: a decoded record (dict) -> Settlement (play + payouts);
- ``settle``: what ``manage.py settle`` does per record: JSON text -> JSON line out;
- ``json only``: the standard library's json decoding and re-encoding the same records,
  a baseline that does no game work.
Quote ``settle`` against ``json only`` (same run) when comparing machines.

Then the command: ``--file-hands`` random legal hands (every profile, random overrides
and limits, as above) written as one JSON Lines file, settled by ``manage.py settle FILE``
in a process of its own, ``--rounds`` times; with ``--against DIR`` (another checkout,
e.g. main's: ``git archive main | tar -x -C DIR``) its ``manage.py settle`` runs too, in
alternation with this one's, so that both meet the same moments of a shared machine.
Prints each run's wall time and CPU time (the process's user + system), hands per
second of CPU, the ratio, and whether both printed the same bytes.
"""

import argparse
import collections
import hashlib
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

import orjson

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from game.payouts import settle  # noqa: E402
from game.profiles import PROFILES, Profile  # noqa: E402
from game.record import play_record  # noqa: E402
from game.recordfiles import decode_record as decode  # noqa: E402
from game.settling import settle_record  # noqa: E402
from game.simulate import random_record, random_rules  # noqa: E402


def random_tables(rng, count):
    """``count`` random tables: (rules, min_bet, max_bet in cents), each with its own random
    profile, overrides and limits."""
    tables = []
    for _ in range(count):
        rules = random_rules(rng)
        fixed = Profile.from_rules(rules).fixed_stake
        low = rng.choice((100, 500, 1000))
        tables.append((rules, low, low if fixed else low * rng.choice((10, 20, 50))))
    return tables


def random_hand(rng, tables):
    """A random legal hand record at one of ``tables``."""
    rules, low, high = rng.choice(tables)
    return random_record(rng, rules=rules, min_bet=low, max_bet=high)


def run_command(root, path):
    """``manage.py settle path`` of the checkout ``root``: (wall s, CPU s, exit status,
    SHA-256 of what it printed, lines printed)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "manage.py", "settle", path], cwd=root, capture_output=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu, done.returncode, hashlib.sha256(done.stdout).hexdigest(), done.stdout.count(b"\n")


def command(args):
    """``manage.py settle`` over one JSON Lines file, this checkout's and ``--against``'s in
    alternation; prints each run and the ratio of their rates."""
    rng = random.Random(args.seed + 1)
    tables = random_tables(rng, args.tables)
    profiles = collections.Counter()
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "hands.jsonl")
        with open(path, "w") as out:
            for _ in range(args.file_hands):
                record = random_hand(rng, tables)
                rules = record["rules"]
                profiles[rules if isinstance(rules, str) else rules["profile"]] += 1
                out.write(json.dumps(record) + "\n")
        missing = sorted(set(PROFILES) - set(profiles))
        print(f"manage.py settle: {args.file_hands} random legal hands in one JSON Lines file "
              f"({os.path.getsize(path) / 2**20:.1f} MiB; by profile {dict(sorted(profiles.items()))}"
              f"{'; missing ' + ', '.join(missing) if missing else ''}), {args.rounds} rounds, start-up included")
        checkouts = [("this", ROOT)] + ([("against", os.path.abspath(args.against))] if args.against else [])
        cpu = collections.defaultdict(list)
        outputs = set()
        for turn in range(args.rounds):
            for label, root in (checkouts if turn % 2 == 0 else checkouts[::-1]):
                wall, seconds, status, digest, printed = run_command(root, path)
                cpu[label].append(seconds)
                outputs.add(digest)
                print(f"  round {turn + 1} {label:>7}: {wall:6.2f} s wall, {seconds:6.2f} s CPU = "
                      f"{args.file_hands / seconds:8,.0f} hands/s of CPU; exit {status}, {printed} lines")
                if status not in (0, 2) or printed != args.file_hands:
                    sys.exit(f"manage.py settle of {root} failed (exit {status}, {printed} lines)")
        for label, _root in checkouts:
            best = min(cpu[label])
            print(f"{label:>7}: best {args.file_hands / best:8,.0f} hands/s of CPU ({best:.2f} s), "
                  f"median {args.file_hands / sorted(cpu[label])[len(cpu[label]) // 2]:8,.0f}")
        if args.against:
            ratios = [b / a for a, b in zip(cpu["this"], cpu["against"], strict=True)]
            print(f"  ratio: this / against = {min(cpu['against']) / min(cpu['this']):.2f}× best to best; "
                  f"by round {', '.join(f'{r:.2f}' for r in ratios)}; output "
                  f"{'identical' if len(outputs) == 1 else 'DIFFERENT'}")
            if len(outputs) != 1:
                sys.exit("the two checkouts printed different output")


def best_of(runs, fn):
    """The fastest of ``runs`` timings of ``fn()``, in seconds (the least disturbed run)."""
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=50000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--file-hands", type=int, default=20000,
                        help="hands of the JSON Lines file manage.py settle reads (0: no command run)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of the command (each, with --against)")
    parser.add_argument("--against", metavar="DIR", help="another checkout whose manage.py settle runs in alternation")
    args = parser.parse_args()

    rng = random.Random(args.seed)
    tables = random_tables(rng, args.tables)
    records = [random_hand(rng, tables) for _ in range(args.hands)]
    lines = [json.dumps(r) for r in records]
    events = sum(len(r["events"]) for r in records)
    def engine():
        for record in records:
            settle(play_record(record))

    def full():
        for line in lines:
            orjson.dumps(settle_record(decode(line))[0]).decode()

    def json_only():
        for line in lines:
            json.dumps(json.loads(line))

    n = len(records)
    seats = sum(len(r["seats"]) for r in records)
    print(f"{n} random legal hands at {len(tables)} tables: {seats / n:.1f} seats and "
          f"{events / n:.1f} events per hand; best of {args.runs} runs")
    for name, fn in (("engine", engine), ("settle", full), ("json only", json_only)):
        seconds = best_of(args.runs, fn)
        print(f"{name:>10}: {n / seconds:10,.0f} hands/s  ({seconds * 1e6 / n:6.1f} µs per hand)")
    if args.file_hands:
        command(args)


if __name__ == "__main__":
    main()
