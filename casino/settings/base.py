"""Settings shared by every environment, read from the environment with django-environ.

Each environment module (``local``, ``test``, ``production``) sets the defaults it
needs before importing this one, through ``environ.Env`` defaults, never hard-coding
production secrets.
"""
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import environ
from django.utils.translation import gettext_lazy as _

BASE_DIR = Path(__file__).resolve().parent.parent.parent

env = environ.Env()
# A .env file beside manage.py is read if present (never committed).
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.forms",  # its form templates, for FORM_RENDERER below
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "django_celery_beat",
    "casino.login_attempts.LoginAttemptsConfig",  # django-axes, named in the reader's language
    "csp",
    "casino",  # its commands: migrate as the owner, app_role (casino/dbroles.py)
    "django_countries",
    # The project's apps, each importing only those above it in this list (tests/test_layers.py).
    "patrons",
    "ledger",
    "tables",
    "cage",
    "boxes",
    "reports",
    "api",
    "demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The Content-Security-Policy (CONTENT_SECURITY_POLICY below), the Permissions-Policy and
    # no-store on every answer with data (casino.middleware).
    "csp.middleware.CSPMiddleware",
    "casino.middleware.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "casino.middleware.TableLanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # The request's user, told to PostgreSQL with a privilege change it records (casino.privileges).
    "casino.privileges.PrivilegeActorMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # A value past its column (a balance past numeric(14,2)): a 400 page, not a 500.
    "casino.middleware.OutOfRangeMiddleware",
    # Last: turns a locked-out login into the lock-out page (django-axes).
    "axes.middleware.AxesMiddleware",
]

# The pages' scripts and styles are the site's own static files: no inline <script>, <style>,
# style="" or on...="" in any template (tests/test_headers.py reads them all), so the policy
# allows nothing else. The API's Swagger UI and Redoc pages, drawn by scripts from a CDN,
# loosen it for themselves (api/urls.py).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    },
}
# Browser features no page uses, turned off (casino.middleware.SecurityHeadersMiddleware).
PERMISSIONS_POLICY = ("accelerometer=(), camera=(), display-capture=(), geolocation=(), gyroscope=(), "
                      "magnetometer=(), microphone=(), payment=(), usb=()")

ROOT_URLCONF = "casino.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django.template.context_processors.i18n",
                "casino.navigation.nav_links",
            ],
        },
    },
    {
        # The console's body, redrawn after every entry (casino/jinja_env.py).
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates" / "jinja2"],
        "APP_DIRS": False,
        "OPTIONS": {"environment": "casino.jinja_env.environment"},
    },
]

# Forms drawn from the project's templates first (templates/django/forms/p.html: a field's
# errors under it).
FORM_RENDERER = "django.forms.renderers.TemplatesSetting"

WSGI_APPLICATION = "casino.wsgi.application"

# PostgreSQL only (the money's invariants are its triggers). ``local`` and ``test`` give
# the embedded server's URL when the environment has none (casino/localdb.py).
DATABASES = {"default": env.db("DATABASE_URL")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
# Statements bound on the server and prepared by psycopg once a connection has run them
# DATABASE_PREPARE_THRESHOLD times (default 2): the console's and the ledger's are then
# planned once per connection. "none" turns preparing off everywhere (a pooler in
# transaction mode): this is the only place it is set.
_threshold = env("DATABASE_PREPARE_THRESHOLD", default="2")
if _threshold.lower() != "none":
    DATABASES["default"].setdefault("OPTIONS", {}).update(server_side_binding=True,
                                                         prepare_threshold=int(_threshold))
# The owner's connection to the same database (optional): `manage.py migrate` runs as it
# and then grants DATABASE_URL's role — the app's, which owns nothing and is no superuser
# — its privileges; `manage.py app_role` creates that role (casino/dbroles.py).
MIGRATE_DATABASE_URL = env("MIGRATE_DATABASE_URL", default="")
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Spanish by default at the table; English available.
LANGUAGE_CODE = "es"
LANGUAGES = [("es", "Español"), ("en", "English")]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
TIME_ZONE = env("DJANGO_TIME_ZONE", default="Europe/Madrid")
USE_TZ = True
#: One date and time form per language everywhere (casino/formats/<lang>/formats.py).
FORMAT_MODULE_PATH = ["casino.formats"]

STATIC_URL = "static/"
# Where `manage.py collectstatic` gathers the static files (served by WhiteNoise in production).
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=BASE_DIR / "staticfiles")

# Django's cached_db sessions: read from the cache (Redis in production: CACHE_URL),
# written through to the database, which still has them when the cache loses them
# (revoked server-side at logout). Redis serves a session faster than the database
# (benchmarks/RESULTS.md).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}
# Redis down is a cache miss, not a 500 (casino/cache.py): the sessions are read from the
# database, the token endpoint's throttles wait for Redis to count again.
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache":
    CACHES["default"]["BACKEND"] = "casino.cache.FailSoftRedisCache"

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# The tables' audit trail: each entry's HMAC key (tables/chain.py). CHAIN_KEY is a secret of
# the environment, never stored in the database; ``production`` refuses to start without
# one. CHAIN_KEY_ID names it on every entry; CHAIN_OLD_KEYS ("id=key,id=key") keeps
# replaced keys for checking; CHAIN_UNKEYED_UNTIL: the last entry id hashed before the
# chain was keyed (0: none).
CHAIN_KEY = env("CHAIN_KEY", default="")
CHAIN_KEY_ID = env("CHAIN_KEY_ID", default="1")
CHAIN_OLD_KEYS = env.dict("CHAIN_OLD_KEYS", default={})
CHAIN_UNKEYED_UNTIL = env.int("CHAIN_UNKEYED_UNTIL", default=0)
# The seals' witness outside the database (reports/witness.py): each stored report's seal is
# appended to a file in this directory (and logged). Point it at storage the database's users
# cannot write, ideally write-once (docs/security.md); its own volume in docker-compose.yml.
SEAL_WITNESS_DIR = env.path("SEAL_WITNESS_DIR", default=BASE_DIR / "var" / "witness")

CELERY_BROKER_URL = env("CELERY_BROKER_URL", default="redis://127.0.0.1:6379/0")
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Redis gives an unacknowledged task (acks late: its worker died) to another worker after
# this many seconds (Celery's default is an hour). A run longer than this may be given
# twice: the second waits on the first's lock and stores nothing (reports/services.py).
CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=300)}
CELERY_TIMEZONE = TIME_ZONE
# Where a task's result is kept for its caller: only ``ledger_check --full``'s chunks are
# gathered (reports.checkpoints; without a backend it runs them in its own process). Every
# other task's result is dropped. E.g. redis://127.0.0.1:6379/1 (docs/deployment.md).
CELERY_RESULT_BACKEND = env("CELERY_RESULT_BACKEND", default=None)
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_EXPIRES = 3600
# The audit's full check (reports.checkpoints) splits a table of more hands than this into
# ranges of this many hands, each a chunk of its own (a Celery task when workers are there).
AUDIT_CHUNK_HANDS = env.int("AUDIT_CHUNK_HANDS", default=50_000)

# The stored simulation of the bank's edge the auditors' alerts compare with (reports.detection):
# hands simulated per rule set and seat count when first needed, and its seed.
EDGE_HANDS = env.int("EDGE_HANDS", default=100_000)
EDGE_SEED = env.int("EDGE_SEED", default=17)

CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"

# The pit's rotation plan: a dealer is due for relief after this many minutes at a table
# (20 to 40; tables.rotation).
DEALER_ROTATION_MINUTES = env.int("DEALER_ROTATION_MINUTES", default=30)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "rest_framework.pagination.PageNumberPagination",
    "PAGE_SIZE": 50,
    # POST /api/auth/token/ (api.throttles): requests per address and per user name asked
    # for, counted in the cache (Redis in production), on top of django-axes' lock-out.
    "DEFAULT_THROTTLE_RATES": {
        "token_address": env("API_TOKEN_RATE_PER_ADDRESS", default="20/minute"),
        "token_username": env("API_TOKEN_RATE_PER_USERNAME", default="10/minute"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Siete y media back-office API",
    "DESCRIPTION": "Tables, hands and hand records, the ledger, the auditors' reports.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    # Several fields are named "kind": the reports' gets a name of its own.
    "ENUM_NAME_OVERRIDES": {"ReportKindEnum": "reports.models.ReportKind", "AlertKindEnum": "reports.models.AlertKind",
                            "SlipKindEnum": "cage.models.CashierSlip.Kind",
                            "AlertStatusEnum": "reports.models.Alert.Status"},
}

# django-axes first (it refuses any login of a locked-out user or address before a
# password is checked), then Django's ModelBackend with the user's groups (his roles).
AUTHENTICATION_BACKENDS = ["axes.backends.AxesStandaloneBackend", "casino.auth.RoleAwareBackend"]

# Failed logins (the login page, the admin's and POST /api/auth/token/: every call of
# django.contrib.auth.authenticate) are counted by django-axes in the database. A user name
# is locked at an address after AXES_FAILURE_LIMIT failures (default 5) of that name from
# it; an address, for every name, only after AXES_ADDRESS_FAILURE_LIMIT failures (default
# 50) of any names from it (casino.auth.FloorLockoutHandler): one person's guesses at a
# shared terminal, or behind the TLS proxy, lock out his own name there, not the floor.
# A lock lasts AXES_COOLOFF_MINUTES (default 15), the right password included. The
# lock-out page (429) says what to do; an administrator lifts a lock early in the admin
# ("Access attempts") or with `manage.py axes_reset_username NAME` / `axes_reset_ip
# ADDRESS`. Attempts while locked out neither count nor lengthen the cool-off.
#
# Behind reverse proxies, PROXY_COUNT is how many there are in front of the app, each
# appending the address it saw to X-Forwarded-For (1 for the TLS proxy of the deployment:
# docker-compose.yml); default 0: REMOTE_ADDR is the client's address. The client's address
# is then the one the outermost proxy appended: django-ipware (django-axes' "ipware"
# extra) is given the proxies between the client and the last one (its
# AXES_IPWARE_PROXY_COUNT: PROXY_COUNT - 1) and falls back to REMOTE_ADDR, the proxy's,
# for a header of another length (an address a client wrote in himself); DRF's throttles
# of the token endpoint read the same address (NUM_PROXIES).
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_ADDRESS_FAILURE_LIMIT = env.int("AXES_ADDRESS_FAILURE_LIMIT", default=50)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("AXES_COOLOFF_MINUTES", default=15))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
AXES_HANDLER = "casino.auth.FloorLockoutHandler"
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_LOCKOUT_CALLABLE = "casino.views.locked_out"
AXES_COOLOFF_MESSAGE = _("Too many failed logins: access is locked for a while. Wait and try again, "
                         "or ask an administrator to unlock it.")
AXES_PERMALOCK_MESSAGE = AXES_COOLOFF_MESSAGE
PROXY_COUNT = env.int("PROXY_COUNT", default=0)
if PROXY_COUNT > 0:
    AXES_IPWARE_PROXY_COUNT = PROXY_COUNT - 1
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("HTTP_X_FORWARDED_FOR", "REMOTE_ADDR")
    REST_FRAMEWORK["NUM_PROXIES"] = PROXY_COUNT
else:
    AXES_IPWARE_PROXY_COUNT = None
    AXES_IPWARE_META_PRECEDENCE_ORDER = ("REMOTE_ADDR",)
# The cage: the most one cashier's slip (a buy-in or a cash-out) may be for, Decimal euros
# (every form, the API and the booking service refuse above it, naming it).
CAGE_SLIP_MAXIMUM = Decimal(env("CAGE_SLIP_MAXIMUM", default="100000.00"))
# The house's name at the head of a printed slip.
CAGE_HOUSE_NAME = env("CAGE_HOUSE_NAME", default="Casino · Siete y media")
# The cage. A drawer closed with a variance (count − expected) beyond this many euros
# either way is an exception in the auditors' reports.
CAGE_DRAWER_TOLERANCE = env.str("CAGE_DRAWER_TOLERANCE", default="5.00")
# Anti-money-laundering (cage.services.aml). "eu": due diligence at AML_THRESHOLD a gaming
# day per patron (EU Directive 2015/849 art. 11(d); Ley 10/2010, RD 304/2014; CMF L561-13);
# "us": a currency transaction report above AML_US_CTR_THRESHOLD of cash in, or out, a
# gaming day and a log of every movement above AML_US_LOG_THRESHOLD (31 CFR 1021.311, .410).
AML_PROFILE = env.str("AML_PROFILE", default="eu")
AML_THRESHOLD = env.str("AML_THRESHOLD", default="2000.00")
AML_US_CTR_THRESHOLD = env.str("AML_US_CTR_THRESHOLD", default="10000.00")
AML_US_LOG_THRESHOLD = env.str("AML_US_LOG_THRESHOLD", default="3000.00")
# The gaming day starts at this hour of the casino's time zone (TIME_ZONE).
AML_GAMING_DAY_START = env.int("AML_GAMING_DAY_START", default=6)
# Years the AML and identity records are kept (PostgreSQL refuses their DELETE before).
AML_RETENTION_YEARS = env.int("AML_RETENTION_YEARS", default=10)

#: django-countries' Spanish says "Trinidad yTobago": the name given again, translated in
#: the casino's catalogue (locale/es), which comes before the library's.
COUNTRIES_OVERRIDE = {"TT": _("Trinidad and Tobago")}
# Admission (patrons.admission): may a patron without identity on file (document,
# nationality, date of birth) buy in and play? Default no: refused at every buy-in and at
# his first bet of a gaming day. A minor, or a patron on the exclusion register, never.
ADMISSION_WITHOUT_IDENTITY = env.bool("ADMISSION_WITHOUT_IDENTITY", default=False)
