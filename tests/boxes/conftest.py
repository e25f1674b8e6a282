"""Fixtures of the boxes' tests: Mesa 1 with a 5 % commission, in play, on PostgreSQL."""

from decimal import Decimal

import pytest

from tests.conftest import mesa_ready
from tests.factories import UserFactory
from tests.reports.conftest import TableInPlay, deferred_checks_fire  # noqa: F401


@pytest.fixture
def mesa(staff):
    """Mesa 1 (reglamento with a 5 % commission, 5–100): ana banks with 100.00; luis,
    marta, pepe, rosa hold 500.00 each; dealer1's session is open."""
    table, players = mesa_ready(staff)
    table.rules = {"profile": "reglamento", "commission_rate": "0.05"}
    table.save(update_fields=["rules"])
    return TableInPlay(table, staff, players)


@pytest.fixture
def counters(staff):
    """Two people who count boxes (neither dealer1): pit1 and a second supervisor, pit2."""
    return staff["supervisor"], UserFactory(username="pit2", roles=["pit_supervisor"])


TEN = Decimal("10.00")
