"""The quick start: SQLite beside manage.py, Celery tasks run in-process, debug on."""
import os
from pathlib import Path

_root = Path(__file__).resolve().parent.parent.parent
os.environ.setdefault("DJANGO_DEBUG", "true")
os.environ.setdefault("DATABASE_URL", f"sqlite:///{_root / 'db.sqlite3'}")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY", default="local-only-not-a-secret-7y-media")
