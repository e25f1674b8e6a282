# The README's commands: `make start`, `make test` (and `make test-fast`).
VENV ?= .venv
PY := $(VENV)/bin/python
# Where `make start` serves (`make start PORT=8150` when 8000 is taken).
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: start test test-fast shipped lint conformance

# setup.py compiles game's hot modules in place (mypyc): they are built again when they change.
$(VENV)/.installed: pyproject.toml setup.py game/cards.py game/hand.py game/payouts.py game/record.py
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

# The back-office with demo data on PostgreSQL: DATABASE_URL's, else the embedded server in
# var/postgres (started now, stopped after runserver: Ctrl-C); Celery tasks in-process.
start: $(VENV)/.installed
	$(PY) -m casino.localdb run -- sh -c '$(PY) manage.py migrate --noinput && $(PY) manage.py demo \
	  && exec $(PY) manage.py runserver $(HOST):$(PORT)'

# The test suite, on PostgreSQL at DATABASE_URL, else the embedded server (started by the
# run, stopped after), on $(WORKERS) processes (pytest-xdist), each on its own test database.
# auto: one per core (each process's database is copied from one migrated template:
# tests/conftest.py); worksteal: an idle process takes tests from a busy one's queue.
WORKERS ?= auto
XDIST := -n $(WORKERS) --dist worksteal
# The 30 slowest tests are listed at the end: CI's log says where its time goes.
test: $(VENV)/.installed
	$(PY) -m pytest $(XDIST) --durations=30

# The fast tier: the engine's and the unit tests (FAST in tests/conftest.py), no database;
# on one process per core as `make test` (the Hypothesis properties and the edge's checks
# share out; benchmarks/RESULTS.md "CI time").
test-fast: $(VENV)/.installed
	$(PY) -m pytest -m fast $(XDIST)

# The image's files installed in a fresh virtual env and run as shipped (gunicorn, a Celery
# worker and beat on Redis, Chromium walking it): tests/test_shipped.py.
shipped: $(VENV)/.installed
	$(PY) -m pytest -m shipped tests/test_shipped.py

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .

conformance: $(VENV)/.installed
	$(PY) ../shared/tools/check_conformance.py
