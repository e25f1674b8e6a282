"""Production: every secret and address comes from the environment, with no default.

Required: DJANGO_SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, CACHE_URL (Redis: the
sessions' cache), DJANGO_ALLOWED_HOSTS, CHAIN_KEY (the audit trail's HMAC key, at least
32 characters: ``tables/chain.py``).
Optional: DJANGO_HTTPS (default true: served over HTTPS only; docker-compose.yml turns it
off for http://localhost), DJANGO_HSTS_SECONDS (default one year), DATABASE_CONN_MAX_AGE
(default 600), DATABASE_PREPARE_THRESHOLD (``base``); the lock-out of failed logins
(``base``, django-axes): AXES_FAILURE_LIMIT (5, one user name from one address),
AXES_ADDRESS_FAILURE_LIMIT (50, any names from one address), AXES_COOLOFF_MINUTES (15),
PROXY_COUNT (behind reverse proxies: how many, so the client's address is read from
X-Forwarded-For); the token endpoint's throttles API_TOKEN_RATE_PER_ADDRESS
(20/minute) and API_TOKEN_RATE_PER_USERNAME (10/minute); DJANGO_LOG_LEVEL (INFO).
``manage.py check --deploy`` passes with the defaults (a test runs it).
"""
import os

from django.core.exceptions import ImproperlyConfigured  # noqa: E402

for required in ("DJANGO_SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "DJANGO_ALLOWED_HOSTS",
                 "CHAIN_KEY"):
    if not os.environ.get(required):
        raise ImproperlyConfigured(f"{required} must be set in the environment for production")
if len(os.environ["CHAIN_KEY"]) < 32:
    raise ImproperlyConfigured("CHAIN_KEY must be at least 32 characters (e.g. `openssl rand -hex 32`)")

from casino.settings.base import *  # noqa: E402,F403
from casino.settings.base import DATABASES, MIDDLEWARE, env  # noqa: E402

SECRET_KEY = env("DJANGO_SECRET_KEY")
DEBUG = False

# Persistent connections, checked before each request reuses one: a request that opened
# its own connection paid PostgreSQL's fork and authentication and lost the statements
# prepared on the last one (benchmarks/console.py, 20 dealers: see the README's figures).
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=600)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

# Static files (the console's script and style, the admin's) served by WhiteNoise from
# STATIC_ROOT, filled by `manage.py collectstatic` (the Dockerfile runs it).
MIDDLEWARE = [*MIDDLEWARE]
MIDDLEWARE.insert(MIDDLEWARE.index("django.middleware.security.SecurityMiddleware") + 1,
                  "whitenoise.middleware.WhiteNoiseMiddleware")
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}
# collectstatic must have run: a page naming a static file it did not gather is an error.

# HTTPS only, unless DJANGO_HTTPS=false (a machine of one's own, over http://localhost).
HTTPS = env.bool("DJANGO_HTTPS", default=True)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
# Browsers heed HSTS only from an HTTPS answer. Preloading is the domain owner's choice
# (DJANGO_HSTS_PRELOAD=true), not a default: its check is silenced.
SECURE_HSTS_SECONDS = env.int("DJANGO_HSTS_SECONDS", default=365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_HSTS_INCLUDE_SUBDOMAINS", default=True)
SECURE_HSTS_PRELOAD = env.bool("DJANGO_HSTS_PRELOAD", default=False)
SILENCED_SYSTEM_CHECKS = ["security.W021"]

# The process's log on standard error, one line per record (casino.logs: a traceback's line
# breaks written as \n): gunicorn, the worker and beat leave it to docker's log. Every 500
# is logged by django.request with its traceback. DJANGO_LOG_LEVEL (default INFO).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "one_line": {"()": "casino.logs.OneLineFormatter",
                     "format": "%(asctime)s %(levelname)s %(name)s [%(process)d] %(message)s"},
    },
    "handlers": {
        "stderr": {"class": "logging.StreamHandler", "stream": "ext://sys.stderr", "formatter": "one_line"},
    },
    "root": {"handlers": ["stderr"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
    "loggers": {
        "django": {"handlers": ["stderr"], "level": env("DJANGO_LOG_LEVEL", default="INFO"), "propagate": False},
    },
}
