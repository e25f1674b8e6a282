"""The WSGI entry point gunicorn loads."""

import subprocess
import sys

from tests.conftest import ROOT

LOAD = ("import gc; before = gc.get_freeze_count(); import casino.wsgi; "
        "print(before, gc.get_freeze_count(), callable(casino.wsgi.application))")


def test_the_loaded_application_is_frozen_out_of_the_garbage_collectors_full_collections():
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "casino.settings.local",
           "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/casino"}  # not connected to
    result = subprocess.run([sys.executable, "-c", LOAD], env=env, cwd=ROOT, capture_output=True, text=True,
                            check=True)
    before, frozen, callable_ = result.stdout.split()
    assert before == "0" and callable_ == "True"
    assert int(frozen) > 50_000  # Django, the apps and their models: what a full collection no longer walks
