"""Fixtures of the reports' tests: a table in play with known hands, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_reports .venv/bin/python -m pytest tests/reports
"""

from decimal import Decimal

import pytest
from django.db import connection

from cage.services.slips import cashier_buy_in
from tables import importing, services
from tables.models import Table
from tests.conftest import mesa_ready
from tests.factories import PlayerFactory
from tests.hands import event, record

#: luis 5+2 = 7 beats the bank's 6 (+10.00); marta 3+1 = 4 loses 20.00.
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]
#: luis 7 + caballo = 7½ is paid twice (+20.00) and takes the bank; marta 2+4 = 6 beats 5 (+10.00).
NATURAL = ["luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10", "luis card 11B", "marta bet 10",
           "marta card 4C", "marta stand", "bank stand"]
#: luis's bank: ana 3+5 = 8 busts (−10.00); marta 6+1 = 7 ties the bank's 2+5 = 7 and loses (−20.00).
LUIS_BANK = ["ana deal 3O", "marta deal 6C", "bank deal 2B", "ana bet 10", "ana card 5O", "marta bet 20",
             "marta card 1C", "marta stand", "bank card 5B", "bank stand"]


class TableInPlay:
    """A table in play: ``play(hand, "luis deal 5O", ...)`` enters events as the dealer."""

    def __init__(self, table, staff, players):
        self.table, self.staff, self.players = table, staff, players
        self.dealer, self.supervisor = staff["dealer"], staff["supervisor"]

    @property
    def shift(self):
        return self.table.shifts.order_by("-id").first()

    def open(self, *seats):
        return services.hand_open(table=self.table, seats=list(seats), opened_by=self.dealer)

    def play(self, hand, *lines):
        for line in lines:
            hand = services.hand_record_event(hand=hand, event=event(line), entered_by=self.dealer,
                                              expected_version=hand.version)
        return hand

    def hand(self, seats, lines):
        return self.play(self.open(*seats), *lines)

    def undo(self, hand, reason):
        return services.hand_undo(hand=hand, reason=reason, entered_by=self.dealer, expected_version=hand.version)

    def void(self, hand, reason):
        return services.hand_void(hand=hand, reason=reason, voided_by=self.supervisor)

    def close(self):
        return services.shift_close(shift=self.shift, closed_by=self.supervisor)


@pytest.fixture
def mesa(staff):
    """Mesa 1 (reglamento, 5–100, takeover capital 200): ana holds the bank with 100.00;
    luis, marta, pepe, rosa have 500.00 of chips each; dealer1's shift is open."""
    table, players = mesa_ready(staff)
    return TableInPlay(table, staff, players)


@pytest.fixture
def played(mesa):
    """Mesa 1 after a known shift: P01 (ana's bank +10.00), NATURAL (ana's bank −30.00,
    luis takes the bank with 7½), LUIS_BANK with one undone card (luis's bank +30.00),
    and a fourth hand (P01 again, under luis's bank) voided. Returns the TableInPlay."""
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], NATURAL)
    third = mesa.play(mesa.open("ana", "marta"), *LUIS_BANK[:4], "ana card 4O")
    third = mesa.undo(third, "the card was the 5 of oros")
    mesa.play(third, *LUIS_BANK[4:])
    fourth = mesa.hand(["ana", "marta"], ["ana deal 5O", "marta deal 3C", "bank deal 2E", "ana bet 10",
                                          "ana card 2B", "ana stand", "marta bet 20", "marta card 1O",
                                          "marta stand", "bank card 4E", "bank stand"])
    mesa.void(fourth, "dealt from the wrong shoe")
    return mesa


def import_shift(name, records, staff, *, rules="reglamento", bank="ana"):
    """A table ``name`` whose open shift holds ``records`` (hand records as table talk
    lines), imported and settled through ``hand_import_record``; players get chips first.
    Returns the Table."""
    codes = {bank, "luis", "marta", "pepe", "rosa", "yo"}
    for code in codes:
        player = PlayerFactory(code=code)
        cashier_buy_in(player=player, amount=Decimal("1000.00"), posted_by=staff["cashier"])
    first = record(*records[0][1], rules=rules, seats=records[0][0], bank=bank)
    table = Table.objects.create(name=name, rules=rules, min_bet=Decimal(first["min_bet"]),
                                 max_bet=Decimal(first["max_bet"]), bank_capital=Decimal("200.00"))
    services.shift_open(table=table, dealer=staff["dealer"], opened_by=staff["supervisor"])
    for seats, lines, *options in records:
        options = options[0] if options else {}
        importing.hand_import_record(record=record(*lines, rules=rules, seats=seats, bank=bank, table=name,
                                                  **options))
    return table


@pytest.fixture(autouse=True)
def deferred_checks_fire(request):
    """In a test that never commits, fire the ledger's deferred constraint triggers at
    its end anyway, so that an unbalanced posting fails the test (as tests/ledger does)."""
    marker = request.node.get_closest_marker("django_db")
    transactional = "transactional_db" in request.fixturenames or (
        marker is not None and marker.kwargs.get("transaction"))
    checks = not transactional and (marker is not None or "db" in request.fixturenames)
    if checks:
        request.getfixturevalue("db")
    yield
    if checks and connection.in_atomic_block and not connection.needs_rollback:
        with connection.cursor() as cursor:
            cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


#: Plausible edge figures for reglamento (stored as the simulation would store them).
EDGE = {"mean_per_unit": 0.06, "sd_per_unit_hand": 0.85, "sd_per_unit_bet": 1.1, "within_hand_correlation": 0.28,
        "bank_wins_bet": 0.52}


@pytest.fixture
def edges(db):
    """``EDGE`` stored for reglamento with 1 to 9 seats."""
    from reports.detection import edge_store

    for seats in range(1, 10):
        edge_store(rules="reglamento", seats=seats, hands=500_000, seed=17, result=EDGE)


def stored_report(played):
    """Close ``played``'s shift and run its shift report: the stored ``Report``."""
    from reports.services import report_request, report_run

    shift = played.close()
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)
    return report_run(request_id=request.pk).report
