"""Fixtures of the API's tests: the table in play of the tables' tests, API clients
authenticated by token as each staff member, and POSTs with an Idempotency-Key.

Run on PostgreSQL: ``DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_api
.venv/bin/python -m pytest tests/api``.
"""

import uuid

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.tables.conftest import mesa  # noqa: F401


class Api:
    """An API client authenticated by token as one user; ``post`` sends a fresh
    Idempotency-Key unless one is given (``key=None`` sends none)."""

    def __init__(self, user):
        self.user = user
        self.client = APIClient()
        token, _created = Token.objects.get_or_create(user=user)
        self.client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")

    def get(self, path, **params):
        return self.client.get(path, params)

    def post(self, path, body=None, *, key="new", **extra):
        headers = {}
        if key == "new":
            key = str(uuid.uuid4())
        if key is not None:
            headers["Idempotency-Key"] = key
        return self.client.post(path, body, format="json", headers=headers, **extra)


@pytest.fixture
def api(staff):
    """``api["dealer"].post(...)``: a token client for each of dealer1, pit1, caja1, audit1."""
    return {role: Api(user) for role, user in staff.items()}


def error_of(response):
    """The API's error object of a response."""
    return response.json()["error"]
