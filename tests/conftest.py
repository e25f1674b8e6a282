"""Shared fixtures. The suite runs on PostgreSQL (casino.settings.test)."""
import json
from decimal import Decimal
from pathlib import Path

import pytest

from cage.services.slips import cashier_buy_in
from tables import services
from tests.factories import PlayerFactory, TableFactory, UserFactory, deposit_bank, open_drawer

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture
def conformance_cases():
    """(name, record, expected) for every public conformance case."""
    cases = []
    for path in sorted(CONFORMANCE.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        cases.append((path.stem, json.loads(path.read_text()), expected))
    return cases


@pytest.fixture
def staff(db):
    """The staff; the cashier ``caja1`` has his drawer open (``open_drawer``)."""
    users = {"dealer": UserFactory(username="dealer1", roles=["dealer"]),
             "supervisor": UserFactory(username="pit1", roles=["pit_supervisor"]),
             "cashier": UserFactory(username="caja1", roles=["cashier"]),
             "auditor": UserFactory(username="audit1", roles=["auditor"])}
    open_drawer(users["cashier"])
    return users


def mesa_ready(staff):
    """Mesa 1 (reglamento, 5–100): ana holds the bank with 100.00 deposited at the cage (her
    500.00 of chips untouched); luis, marta, pepe and
    rosa have 500.00 of chips each; dealer1's shift is open. Returns ``(table,
    {code: Player})`` for the ``mesa`` fixtures of the tables' and the reports' tests."""
    players = {code: PlayerFactory(code=code) for code in ("ana", "luis", "marta", "pepe", "rosa")}
    for player in players.values():
        cashier_buy_in(player=player, amount=Decimal("500.00"), posted_by=staff["cashier"])
    table = TableFactory(name="Mesa 1")
    services.table_bank_draw(table=table, holder=players["ana"], capital=Decimal("100.00"), by=staff["supervisor"])
    deposit_bank(table, staff["cashier"])  # ana deposits the bank's 100.00 at the cage
    services.shift_open(table=table, dealer=staff["dealer"], opened_by=staff["supervisor"])
    return table, players
