"""Fixtures of the patrons' tests: the table in play of the tables' tests."""

from tests.tables.conftest import mesa  # noqa: F401
