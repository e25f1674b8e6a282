"""A table ready to play: players with chips, a bank drawn for, a dealer on shift."""


import pytest

from tables import services
from tests.conftest import mesa_ready
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
def mesa(staff):
    """Mesa 1 (reglamento, 5–100): ana holds the bank with 100.00; luis, marta, pepe,
    rosa have 500.00 of chips each; dealer1's shift is open."""
    table, players = mesa_ready(staff)
    return TableInPlay(table, staff["dealer"], staff["supervisor"], staff["cashier"], players)
