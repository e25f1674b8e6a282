"""The compiled engine (``setup.py``: mypyc) against the pure one, byte for byte.

Both run in processes of their own on the same hand records (legal ones, the same mutated
one to three times, and malformed ones: strings where numbers go, huge or negative
numbers, booleans, floats, nested lists and objects): ``manage.py settle`` (its output,
standard error and exit status), and the console's path (``allow_unknown``: each event
applied, the state described and the legal actions listed after it, the refusals). The
pure engine is this checkout's ``.py`` files, imported with ``SIETE_PURE_PYTHON=1``
(``game/sources.py``); the other run imports what the install built. Where nothing was
compiled (no C compiler at install), both runs are the pure engine and agree trivially:
``test_the_engine_imported_is_the_one_built`` says which one is in use.
"""

import copy
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from game.simulate import random_record, random_rules
from tests.conftest import ROOT
from tests.engine.mutations import mutate

COMPILED = ("cards", "hand", "payouts", "record")
#: Records settled by both; the first CONSOLE_RECORDS of them also played as the console does.
RECORDS, CONSOLE_RECORDS = 1500, 300

#: Values put where a record's fields and events hold something else.
JUNK = (None, True, False, 0, -1, 1, 7, 10**12, 10**30, -10**30, 1.5, float("inf"), "", "7O", "4O", "11c",
        "rb", "QD", "5.00", "5.001", "-1", "1e3", "５", "bank", "loca", "luis", "x" * 100, "\u0000",
        [], [None], ["7O"], {}, {"do": "card"}, [[[[[1]]]]], {"a": {"b": {"c": [1, {"d": None}]}}})
EVENT_KEYS = ("do", "seat", "card", "amount", "player", "down", "call", "responsable", "hand", "natural", "x")
HEADER_KEYS = ("format", "rules", "min_bet", "max_bet", "bank", "seats", "events", "number", "table",
               "started_at", "y")


def mutated(rng, record):
    """``record`` with one to three random changes (dropped, repeated, swapped or cut
    events; values and keys changed; the header's fields changed)."""
    record = copy.deepcopy(record)
    events = record["events"]
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(("drop", "dup", "swap", "cut", "value", "key", "unkey", "header", "rules", "type"))
        i = rng.randrange(len(events)) if events else 0
        j = rng.randrange(len(events)) if events else 0
        mutate(record, events, op, i, j, choose=rng.choice, junk=lambda: copy.deepcopy(rng.choice(JUNK)),
               header_keys=HEADER_KEYS, event_keys=EVENT_KEYS,
               rule_keys=("deck", "loca", "max_hands", "commission_rate", "bank_draws_below", "side_bets",
                          "fixed_stake", "one_card_stand_max", "natural_pays", "exchange_fours"))
    return record


def hand_records(count, seed=33):
    """``count`` records: a quarter legal (random profiles and options), the rest mutated."""
    rng = random.Random(seed)
    out = []
    for n in range(count):
        record = random_record(rng, rules=random_rules(rng))
        out.append(record if n % 4 == 0 else mutated(rng, record))
    return out


#: The console's path over a JSON Lines file, one line of JSON out per step.
CONSOLE = """
import itertools, json, sys
from game.errors import IllegalEvent
from game.payouts import settle
from game.record import read_header
from game.sources import compiled

out = [json.dumps(compiled())]
for line in itertools.islice(open(sys.argv[1]), int(sys.argv[2])):
    record = json.loads(line)
    try:
        state = read_header(record, allow_unknown=True)
    except IllegalEvent as error:
        out.append(json.dumps(["header", error.as_dict(), error.rule]))
        continue
    events = record["events"]
    for ev in events if isinstance(events, list) else ():
        try:
            state.apply(ev)
        except IllegalEvent as error:
            out.append(json.dumps(["refused", error.as_dict(), error.rule, error.params], default=repr))
        out.append(json.dumps([state.describe(), state.legal().as_dict(), state.complete], default=repr))
    try:
        out.append(json.dumps(settle(state).as_dict()))
    except IllegalEvent as error:
        out.append(json.dumps(["unsettled", error.as_dict()]))
print("\\n".join(out))
"""


def run(args, pure):
    """``(exit status, stdout, stderr)`` of ``python args`` at the checkout, the pure engine
    imported or not."""
    env = {key: value for key, value in os.environ.items() if key != "SIETE_PURE_PYTHON"}
    if pure:
        env["SIETE_PURE_PYTHON"] = "1"
    done = subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, timeout=600)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def records_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("compiled") / "hands.jsonl"
    with open(path, "w") as out:
        for record in hand_records(RECORDS):
            out.write(json.dumps(record) + "\n")
    return path


def test_the_engine_imported_is_the_one_built():
    built = all(list((ROOT / "game").glob(f"{name}.*.so")) for name in COMPILED)
    code = "import game.hand as h, game.sources as s; print(h.__file__, s.compiled())"
    status, out, err = run(["-c", code], pure=False)
    assert status == 0, err
    path, compiled = out.decode().split()
    assert compiled == str(built) and Path(path).name.endswith(".so") == built
    status, out, err = run(["-c", code], pure=True)
    assert status == 0, err
    path, compiled = out.decode().split()
    assert compiled == "False" and Path(path) == ROOT / "game" / "hand.py"


def test_settle_prints_the_same_bytes_compiled_and_pure(records_file):
    compiled = run(["manage.py", "settle", str(records_file)], pure=False)
    pure = run(["manage.py", "settle", str(records_file)], pure=True)
    assert compiled[0] == pure[0] == 2  # some records are invalid
    assert compiled[2] == pure[2]
    assert compiled[1] == pure[1]
    lines = pure[1].decode().splitlines()
    assert len(lines) == RECORDS
    assert RECORDS // 4 < sum('"error"' in line for line in lines) < RECORDS - RECORDS // 8  # refusals and settlements both


def test_the_consoles_path_is_the_same_compiled_and_pure(records_file):
    compiled = run(["-c", CONSOLE, str(records_file), str(CONSOLE_RECORDS)], pure=False)
    pure = run(["-c", CONSOLE, str(records_file), str(CONSOLE_RECORDS)], pure=True)
    assert compiled[0] == pure[0] == 0, compiled[2] + pure[2]
    # the first line says which engine ran; the rest is the same
    assert pure[1].split(b"\n", 1)[0] == b"false"
    assert compiled[1].split(b"\n", 1)[1] == pure[1].split(b"\n", 1)[1]


def test_an_extension_older_than_its_source_is_stale(tmp_path):
    """``game.sources.stale``: current extensions are not, an edited ``.py`` is, so is an
    extension without setup.py's record of its sources; no extension, nothing stale."""
    import hashlib
    import importlib.machinery

    from game.sources import SOURCES, stale

    (tmp_path / "hand.py").write_text("X = 1\n")
    (tmp_path / "cards.py").write_text("Y = 2\n")
    assert stale(str(tmp_path)) == []  # nothing compiled
    (tmp_path / ("hand" + importlib.machinery.EXTENSION_SUFFIXES[0])).write_bytes(b"")
    assert stale(str(tmp_path)) == ["hand"]  # no record of what it was built from
    digests = {name: hashlib.sha256((tmp_path / f"{name}.py").read_bytes()).hexdigest() for name in ("hand", "cards")}
    (tmp_path / SOURCES).write_text(json.dumps(digests))
    assert stale(str(tmp_path)) == []
    (tmp_path / "cards.py").write_text("Y = 3\n")
    assert stale(str(tmp_path)) == ["cards"]
