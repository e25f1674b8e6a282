"""Settings read from the environment: the database's statement preparation."""

import json
import subprocess
import sys

from tests.conftest import ROOT

SHOW = "import django, json; django.setup(); from django.conf import settings; " \
       "print(json.dumps(settings.DATABASES['default'].get('OPTIONS', {})))"


def database_options(**env):
    base = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "casino.settings.local"}
    result = subprocess.run([sys.executable, "-c", SHOW], env={**base, **env}, cwd=ROOT, capture_output=True,
                            text=True, check=True)
    return json.loads(result.stdout)


def test_postgresql_statements_are_bound_on_the_server_and_prepared_unless_turned_off():
    url = "postgres://postgres@127.0.0.1:5432/casino"
    assert database_options(DATABASE_URL=url) == {"server_side_binding": True, "prepare_threshold": 2}
    assert database_options(DATABASE_URL=url, DATABASE_PREPARE_THRESHOLD="5")["prepare_threshold"] == 5
    assert database_options(DATABASE_URL=url, DATABASE_PREPARE_THRESHOLD="none") == {}
    assert database_options(DATABASE_URL="sqlite:////tmp/x.sqlite3") == {}
