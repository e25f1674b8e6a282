"""The game is a pure-Python core: importing it never imports Django."""

import subprocess
import sys

from tests.conftest import ROOT


def test_the_engine_and_the_payouts_import_no_django():
    code = ("import sys, tables.engine, tables.engine.simulate, tables.engine.recordfiles, ledger.payouts\n"
            "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
