"""Memory of ``manage.py settle`` over many hands: it must stay flat.

    .venv/bin/python benchmarks/settle_memory.py [--hands 100000]

Writes random legal hands as a directory of record files and as one JSON Lines file,
then runs the real command on 1/10 of them and on all of them, printing each run's peak
resident memory (the command's own process) and its wall time.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from game.simulate import random_record  # noqa: E402

PEAK = ("import resource, subprocess, sys; "
        "done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, done.returncode)")


def run_settle(paths):
    """(peak RSS in MiB, exit status, seconds) of ``manage.py settle paths``."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PEAK, sys.executable, "manage.py", "settle", *paths],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return int(out[0]) / 1024, int(out[1]), time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=100000)
    parser.add_argument("--seed", type=int, default=11)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    small = args.hands // 10
    with tempfile.TemporaryDirectory() as tmp:
        few, many = os.path.join(tmp, "few"), os.path.join(tmp, "many")
        os.mkdir(few)
        os.mkdir(many)
        with open(os.path.join(tmp, "few.jsonl"), "w") as few_lines, \
                open(os.path.join(tmp, "many.jsonl"), "w") as many_lines:
            for i in range(args.hands):
                text = json.dumps(random_record(rng, table="Mesa 1", number=i + 1))
                with open(os.path.join(many, f"{i:07d}.json"), "w") as f:
                    f.write(text)
                many_lines.write(text + "\n")
                if i < small:
                    with open(os.path.join(few, f"{i:07d}.json"), "w") as f:
                        f.write(text)
                    few_lines.write(text + "\n")
        print("manage.py settle, peak resident memory of the command (MiB) and wall time")
        for label, paths in ((f"{small:>7} files in a directory", [few]),
                             (f"{args.hands:>7} files in a directory", [many]),
                             (f"{small:>7} records as JSON Lines", [os.path.join(tmp, "few.jsonl")]),
                             (f"{args.hands:>7} records as JSON Lines", [os.path.join(tmp, "many.jsonl")])):
            peak, status, seconds = run_settle(paths)
            print(f"  {label}: {peak:7.1f} MiB  {seconds:6.1f} s  (exit {status})")


if __name__ == "__main__":
    main()
