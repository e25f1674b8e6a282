"""The edge, its exact check and the auditor's statistics import no Django: they move with
the pure game, and the Django side only calls them."""

import subprocess
import sys

from tests.conftest import ROOT


def test_the_edge_and_the_statistics_import_no_django():
    code = ("import sys, tables.engine.edge, tables.engine.edge_exact, reports.statistics\n"
            "bad = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
            "print(bad); sys.exit(1 if bad else 0)")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stdout + done.stderr
