"""The pure game's tests run without a database: a test here that asks for one (the
``db`` fixture or any fixture built on it, the ``django_db`` marker, a Django
``TransactionTestCase``) is refused before it starts. Any other access to the database
raises already (pytest-django blocks it in a test that did not ask for it)."""

import pytest
from django.test import TransactionTestCase


def pytest_runtest_setup(item):
    # Before the runner sets the test's fixtures up (the database's among them), after
    # the xfail marks are read.
    cls = getattr(item, "cls", None)
    if ("django_db_setup" in item.fixturenames or item.get_closest_marker("django_db") is not None
            or (cls is not None and issubclass(cls, TransactionTestCase))):
        pytest.fail(f"{item.nodeid} asks for the database: the engine's tests run without one "
                    f"(tests/engine/conftest.py)", pytrace=False)
