"""Fixtures of the cage's tests: a cashier (drawer not yet open), a cage supervisor, a
compliance officer, players identified or not."""

import pytest

from tests.factories import PlayerFactory, UserFactory


@pytest.fixture
def cashier(db):
    return UserFactory(username="caja", roles=["cashier"])


@pytest.fixture
def supervisor(db):
    return UserFactory(username="jefa", roles=["cage_supervisor"])


@pytest.fixture
def compliance(db):
    return UserFactory(username="cumplimiento", roles=["compliance_officer"])


@pytest.fixture
def luis(db):
    return PlayerFactory(code="luis")


@pytest.fixture
def anon(db):
    """A player without identity on file."""
    return PlayerFactory(code="anon", unidentified=True)


@pytest.fixture(autouse=True)
def english():
    """The refusals' words matched in English (the site's Spanish is tested in the pages)."""
    from django.utils import translation

    with translation.override("en"):
        yield
