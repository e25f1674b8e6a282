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
def anon(db, settings):
    """A player without identity on file, at a casino that seats such patrons
    (``ADMISSION_WITHOUT_IDENTITY``): the AML rules then ask for his identity at the
    threshold."""
    settings.ADMISSION_WITHOUT_IDENTITY = True
    return PlayerFactory(code="anon", unidentified=True)


@pytest.fixture(autouse=True)
def english():
    """The refusals' words matched in English (the site's Spanish is tested in the pages)."""
    from django.utils import translation

    with translation.override("en"):
        yield
