"""The public conformance cases (../shared/conformance), in-process and through the command."""

import subprocess
import sys

from game.settling import settle_record
from tests.conftest import CONFORMANCE, ROOT


def test_every_public_case_settles_as_expected(conformance_cases):
    assert len(conformance_cases) >= 16
    for name, record, expected in conformance_cases:
        got, valid = settle_record(record)
        if "error" in expected:
            assert not valid and got["error"]["event"] == expected["error"]["event"], name
            continue
        assert valid, (name, got)
        for key in ("players", "commission", "next_bank"):
            assert got[key] == expected[key], (name, key)
        assert got["bank"]["net"] == expected["bank"]["net"], name
        bets = {(b["player"], b["seat"], b["hand"]): b for b in got["bets"]}
        for bet in expected["bets"]:
            mine = bets[(bet["player"], bet["seat"], bet["hand"])]
            for key in ("stake", "result", "multiplier", "net"):
                assert mine[key] == bet[key], (name, bet, key)


def test_the_shared_conformance_tool_agrees():
    done = subprocess.run([sys.executable, str(CONFORMANCE.parent / "tools" / "check_conformance.py")],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().startswith("all ")
