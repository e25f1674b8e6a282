"""Settling speed: N random legal hands settled in one process, start-up excluded.

    .venv/bin/python benchmarks/settle.py [--hands 50000] [--seed 7]

The hands are played at ``--tables`` random tables (each with its own random profile,
overrides and limits), as a casino's hands are: many hands share a table's rules.

Prints hands per second for three paths over the same hands:
- ``engine``: a decoded record (dict) -> Settlement (play + payouts);
- ``settle``: what ``manage.py settle`` does per record: JSON text -> JSON line out;
- ``json only``: the standard library's json decoding and re-encoding the same records,
  a baseline that does no game work.
Quote ``settle`` against ``json only`` (same run) when comparing machines.
"""

import argparse
import json
import os
import random
import sys
import time

import orjson

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from game.payouts import settle  # noqa: E402
from game.profiles import Profile  # noqa: E402
from game.record import play_record  # noqa: E402
from game.recordfiles import decode_record as decode  # noqa: E402
from game.settling import settle_record  # noqa: E402
from game.simulate import random_record, random_rules  # noqa: E402


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
    args = parser.parse_args()

    rng = random.Random(args.seed)
    tables = []
    for _ in range(args.tables):
        rules = random_rules(rng)
        fixed = Profile.from_rules(rules).fixed_stake
        low = rng.choice((100, 500, 1000))
        tables.append((rules, low, low if fixed else low * rng.choice((10, 20, 50))))
    records = []
    for _ in range(args.hands):
        rules, low, high = rng.choice(tables)
        records.append(random_record(rng, rules=rules, min_bet=low, max_bet=high))
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


if __name__ == "__main__":
    main()
