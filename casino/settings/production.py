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
# Static files (the console's script and style, the admin's) served by WhiteNoise from
# STATIC_ROOT, filled by `manage.py collectstatic` (the Dockerfile runs it).
MIDDLEWARE = [*MIDDLEWARE]  # noqa: F405
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                  "whitenoise.middleware.WhiteNoiseMiddleware")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# collectstatic must have run: a page naming a static file it did not gather is an error.
SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
