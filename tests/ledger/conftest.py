"""Fixtures of the ledger's tests: players, a table, a cashier, settled conformance hands.

Run on PostgreSQL (the guards are triggers): ``DATABASE_URL=postgres://postgres@127.0.0.1
:5432/casino_ledger .venv/bin/python -m pytest tests/ledger``.
"""
import copy
import datetime
import json
from decimal import Decimal

import pytest
from django.contrib.auth.models import Group, User
from django.db import connection

from cage.services.slips import cashier_buy_in
from casino.roles import CASHIER, ensure_role_groups
from game.payouts import settle
from game.record import play_record
from patrons.models import Player
from tables.bank.tenures import tenure_open
from tables.models import Table
from tests.conftest import CONFORMANCE
from tests.factories import open_drawer

#: An identity on file (the AML due diligence), for the players of these tests.
IDENTITY = {"document_type": "dni", "document_number": "12345678Z", "nationality": "ES",
            "date_of_birth": datetime.date(1980, 1, 1)}

CODES = ("ana", "luis", "marta", "pepe", "rosa", "yo", "banca")

#: A tradicional hand whose nets cancel out: yo splits, wins hand 1 (6½ v 6), busts hand 2.
ZERO_NET_RECORD = {
    "format": "siete-y-media/hand-1", "rules": "tradicional", "min_bet": "10.00", "max_bet": "10.00",
    "bank": "ana", "seats": ["yo"], "events": [
        {"do": "deal", "seat": "yo", "card": "11O"}, {"do": "deal", "seat": "bank", "card": "3E"},
        {"do": "bet", "seat": "yo", "amount": "10"}, {"do": "card", "seat": "yo", "card": "10C"},
        {"do": "split", "seat": "yo"}, {"do": "card", "seat": "yo", "card": "6B"},
        {"do": "stand", "seat": "yo"}, {"do": "bet", "seat": "yo", "amount": "10"},
        {"do": "card", "seat": "yo", "card": "3O"}, {"do": "card", "seat": "yo", "card": "5C"},
        {"do": "card", "seat": "bank", "card": "3C"}, {"do": "stand", "seat": "bank"}]}


def conformance_record(prefix):
    """The decoded public conformance record whose file name starts with ``prefix``."""
    (path,) = [p for p in CONFORMANCE.glob(f"{prefix}*.json") if not p.name.endswith(".expected.json")]
    return json.loads(path.read_text())


def settlement_of(record, **changes):
    """``settle(play_record(record))`` after replacing top-level fields (``rules=...``)."""
    record = copy.deepcopy(record)
    record.update(changes)
    return settle(play_record(record))


@pytest.fixture
def players(db):
    """``{code: Player}`` for every code the conformance hands use."""
    return {code: Player.objects.get_or_create(code=code, defaults={
                "name": code.title(), **IDENTITY, "document_number": f"{number:08d}L"})[0]  # one player per document
            for number, code in enumerate(CODES, 1)}


@pytest.fixture
def table(db):
    return Table.objects.create(name="Mesa 1", rules="reglamento", min_bet=Decimal("5.00"),
                                max_bet=Decimal("100.00"))


@pytest.fixture
def cashier(db):
    groups = ensure_role_groups()
    user = User.objects.create_user("caja", password="caja-secret-1")
    user.groups.add(groups[CASHIER])
    open_drawer(user)
    return user


@pytest.fixture
def other_user(db):
    ensure_role_groups()
    user = User.objects.create_user("dealer1", password="dealer-secret-1")
    user.groups.add(Group.objects.get(name="dealer"))
    return user


@pytest.fixture
def fund(cashier):
    """``fund(player, "100.00")``: a buy-in, returning the slip."""
    def buy(player, amount):
        return cashier_buy_in(player=player, amount=Decimal(amount), posted_by=cashier)
    return buy


@pytest.fixture
def ana_bank(players, table, fund, cashier):
    """ana's open tenure at Mesa 1 with 500.00 capital (she bought 1000.00 of chips)."""
    fund(players["ana"], "1000.00")
    return tenure_open(table=table, holder=players["ana"], capital=Decimal("500.00"), began="draw",
                                posted_by=cashier)


@pytest.fixture(autouse=True)
def deferred_checks_fire(request):
    """In a test that never commits (``django_db`` wraps it in a transaction), fire the
    deferred constraint triggers at its end anyway, so an unbalanced posting fails it."""
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or (
        marker is not None and marker.kwargs.get("transaction"))
    checks = not transactional and (marker is not None or "db" in request.fixturenames)
    if checks:
        request.getfixturevalue("db")  # set up first, so torn down (rolled back) after us
    yield
    if checks and connection.in_atomic_block and not connection.needs_rollback:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.fixture
def as_cashier(client, cashier):
    """The test client logged in as the cashier."""
    client.force_login(cashier)
    return client
