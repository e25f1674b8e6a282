# The back-office's image: web (gunicorn), Celery worker and beat all run from it.
# docker-compose.yml sets the environment (casino.settings.production needs
# DJANGO_SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, CACHE_URL, DJANGO_ALLOWED_HOSTS, CHAIN_KEY).
# tests/test_shipped.py installs and runs exactly what the COPY lines copy, and checks
# that they copy every directory the settings need.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DJANGO_SETTINGS_MODULE=casino.settings.production \
    PYTHONPATH=/app

WORKDIR /app

# psycopg[binary] ships its own libpq: no system library is needed. An editable install,
# so that web, worker and beat all import the code (and its templates and Spanish
# catalogues, compiled: the .mo files are committed) from /app. A C compiler for the
# install only: setup.py compiles game's hot modules with mypyc (without one it installs
# their pure Python modules; benchmarks/RESULTS.md "settle"), then it is removed.
COPY pyproject.toml setup.py README.md ./
COPY game ./game
COPY casino ./casino
COPY patrons ./patrons
COPY tables ./tables
COPY ledger ./ledger
COPY reports ./reports
COPY boxes ./boxes
COPY api ./api
COPY cage ./cage
COPY demo ./demo
COPY templates ./templates
COPY locale ./locale
COPY manage.py ./
# collectstatic needs the production settings' variables, not their values.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && pip install -e . \
    && apt-get purge -y --auto-remove gcc libc6-dev && rm -rf /var/lib/apt/lists/* /app/build \
    && DJANGO_SECRET_KEY=build DATABASE_URL=postgres://build/build CELERY_BROKER_URL=redis://build \
       CACHE_URL=locmemcache:// DJANGO_ALLOWED_HOSTS=build CHAIN_KEY=build-only-not-a-key-000000000000000 python manage.py collectstatic --noinput \
    && useradd --system --uid 1000 --home /app casino \
    && mkdir -p /var/lib/casino/witness \
    && chown -R casino /app /var/lib/casino/witness

USER casino
EXPOSE 8000
CMD ["gunicorn", "casino.wsgi:application", "--config", "python:casino.gunicorn_conf", "--bind", "0.0.0.0:8000", "--workers", "3", "--access-logfile", "-"]
