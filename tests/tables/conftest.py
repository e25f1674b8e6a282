"""A table ready to play: players with chips, a bank drawn for, a dealer on shift."""

from decimal import Decimal

import pytest

from ledger.services import cashier_buy_in
from tables import services
from tests.factories import PlayerFactory, TableFactory, UserFactory
from tests.hands import event


class TableInPlay:
    """A table in play for service tests: ``play("luis deal 5O", ...)`` enters events."""

    def __init__(self, table, dealer, supervisor, cashier, players):
        self.table, self.dealer, self.supervisor, self.cashier, self.players = table, dealer, supervisor, cashier, players

    def open(self, *seats):
        return services.hand_open(table=self.table, seats=list(seats), opened_by=self.dealer)

    def play(self, hand, *lines):
        for line in lines:
            hand = services.hand_record_event(hand=hand, event=event(line), entered_by=self.dealer,
                                              expected_version=hand.version)
        return hand


@pytest.fixture
def staff(db):
    return {"dealer": UserFactory(username="dealer1", roles=["dealer"]),
            "supervisor": UserFactory(username="pit1", roles=["pit_supervisor"]),
            "cashier": UserFactory(username="caja1", roles=["cashier"]),
            "auditor": UserFactory(username="audit1", roles=["auditor"])}


@pytest.fixture
def mesa(staff):
    """Mesa 1 (reglamento, 5–100): ana holds the bank with 100.00; luis, marta, pepe,
    rosa have 500.00 of chips each; dealer1's shift is open."""
    players = {code: PlayerFactory(code=code) for code in ("ana", "luis", "marta", "pepe", "rosa")}
    for player in players.values():
        cashier_buy_in(player=player, amount=Decimal("500.00"), posted_by=staff["cashier"])
    table = TableFactory(name="Mesa 1")
    services.table_bank_draw(table=table, holder=players["ana"], capital=Decimal("100.00"), by=staff["supervisor"])
    services.shift_open(table=table, dealer=staff["dealer"], opened_by=staff["supervisor"])
    return TableInPlay(table, staff["dealer"], staff["supervisor"], staff["cashier"], players)
