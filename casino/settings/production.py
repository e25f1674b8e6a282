"""Production: every secret and address comes from the environment, with no default.

Required: DJANGO_SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, DJANGO_ALLOWED_HOSTS.
"""
import os

for required in ("DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_ALLOWED_HOSTS"):
    if not os.environ.get(required):
        from django.core.exceptions import ImproperlyConfigured

        raise ImproperlyConfigured(f"{required} must be set in the environment for production")

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = False
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
