# The two commands of the README: `make start` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: start test lint conformance

$(VENV)/.installed: pyproject.toml
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet -e '.[dev]'
	touch $@

# The back-office on the embedded default: SQLite file db.sqlite3, Celery tasks in-process.
start: $(VENV)/.installed
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	$(PY) manage.py runserver 127.0.0.1:8000

# The test suite, on PostgreSQL at 127.0.0.1:5432 (DATABASE_URL to use another).
test: $(VENV)/.installed
	$(PY) -m pytest

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check .

conformance: $(VENV)/.installed
	$(PY) ../shared/tools/check_conformance.py
