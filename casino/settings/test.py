"""The test suite: PostgreSQL at ``DATABASE_URL``, else the embedded server in ``var/``
(``casino.localdb``). Importing these settings starts nothing: the tests start the
embedded server once for the run, when a test first needs the database, and stop it at
the run's end (tests/conftest.py); pytest-django creates and drops ``test_<name>`` on it
(``test_<name>_gw0``… on several processes). Celery tasks run in-process; fast password
hashing."""
import os
from pathlib import Path

import environ

from casino import localdb

environ.Env.read_env(Path(__file__).resolve().parent.parent.parent / ".env", overwrite=False)
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")
os.environ.setdefault("DATABASE_URL", localdb.default_url())

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-not-a-secret")
# A fixed key for the audit trail's HMAC (tables/chain.py), whatever the environment says.
CHAIN_KEY = "test-only-chain-key-not-a-secret"
CHAIN_KEY_ID = "1"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
# A test's commit does not wait for its WAL to reach the disk (PostgreSQL's "Non-Durable
# Settings"): a crash may lose the last commits of a test database, which is dropped anyway;
# what a commit makes visible, and every constraint and trigger, is unchanged.
_options = DATABASES["default"].setdefault("OPTIONS", {})  # noqa: F405
_options["options"] = f'{_options.get("options", "")} -c synchronous_commit=off'.strip()
DEBUG = False
# pytest-django's test database is migrated as DATABASE_URL's role, whatever .env says.
MIGRATE_DATABASE_URL = ""
#: A small simulation when a test's review needs an edge no test stored (seconds, not minutes).
EDGE_HANDS = env.int("EDGE_HANDS", default=2000)
