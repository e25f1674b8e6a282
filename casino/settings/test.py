"""The test suite: PostgreSQL (the invariants that money depends on live there), fast hashing.

``DATABASE_URL`` defaults to the local server at 127.0.0.1:5432 (trust auth, user
postgres); pytest-django creates and drops ``test_<name>`` on it.
"""
import os

os.environ.setdefault("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/casino")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY", default="test-only-not-a-secret")
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
DEBUG = False
