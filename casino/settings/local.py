"""The quick start: PostgreSQL at ``DATABASE_URL``, else the embedded server in ``var/``
(``casino.localdb``: started at the first connection if it is down, and then stopped when
the process exits; importing these settings starts nothing); Celery tasks run in-process,
debug on."""
import os
from pathlib import Path

import environ

from casino import localdb

environ.Env.read_env(Path(__file__).resolve().parent.parent.parent / ".env", overwrite=False)
os.environ.setdefault("DJANGO_DEBUG", "true")
os.environ.setdefault("CELERY_TASK_ALWAYS_EAGER", "true")
os.environ.setdefault("CHAIN_KEY", "local-only-chain-key-not-a-secret")
os.environ.setdefault("DATABASE_URL", localdb.default_url())

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import DATABASES, env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY", default="local-only-not-a-secret-7y-media")
if localdb.is_embedded(DATABASES["default"]):
    DATABASES["default"]["ENGINE"] = "casino.embedded_postgresql"
