"""Sessions at a table in the database, played by the edge's own simulation
(``game.edge.play_hands``) and imported through ``hand_import_records``: for the
tests of the alerts' detection (issue 17). The bank stays with its holder
(``bank_passes_on_natural`` off), so that every record's bank is the table's."""

import random
from datetime import date
from decimal import Decimal

from cage.services.slips import cashier_buy_in
from game.edge import play_hands
from patrons.models import Player
from tables import importing, services
from tables.models import Table
from tests.factories import deposit_bank

RULES = {"profile": "reglamento", "bank_passes_on_natural": False}
SEATS = 4
SEAT_PLAYERS = tuple(f"s{i}" for i in range(1, SEATS + 1))
BANK = "banca"
CHIPS = Decimal("100000.00")


def simulated_table(name, staff, *, holders=(BANK,), players=SEAT_PLAYERS, rules=RULES):
    """A table ``name`` with the simulation's limits (1–10), every player with chips, the
    bank drawn for by ``holders[0]``. Returns the Table."""
    for code in {*holders, *players}:
        player, _created = Player.objects.get_or_create(code=code, defaults={  # identified: the AML threshold
            "name": code.title(), "document_type": "passport", "document_number": f"SIM-{code}", "nationality": "ES",
            "date_of_birth": date(1980, 1, 1)})
        cashier_buy_in(player=player, amount=CHIPS, posted_by=staff["cashier"])
    table = Table.objects.create(name=name, rules=rules, min_bet=Decimal("1.00"), max_bet=Decimal("10.00"),
                                 bank_capital=Decimal("0.00"))
    services.table_bank_draw(table=table, holder=Player.objects.get(code=holders[0]), capital=Decimal("5000.00"),
                             by=staff["supervisor"])
    deposit_bank(table)
    return table


def records(seed, hands, *, rig=None, keep=None, rules=RULES):
    """``hands`` hand records of the simulation (seed ``seed``), those ``keep(result)`` keeps."""
    out = []
    for result in play_hands(rules, seats=SEATS, hands=hands, rng=random.Random(f"session-{seed}"), rig=rig,
                             record=True):
        if keep is None or keep(result):
            out.append(result.record)
    return out


def play_shift(table, dealer, supervisor, hand_records, *, close=True):
    """A shift of ``dealer`` at ``table`` with these records imported (batches of 50),
    closed unless ``close`` is False. Returns the Shift."""
    shift = services.shift_open(table=table, dealer=dealer, opened_by=supervisor)
    bank = table.bank_tenures.get(closed_at__isnull=True).holder.code
    batch = []
    for record in hand_records:
        batch.append({**record, "table": table.name, "bank": bank})
        if len(batch) == 50:
            importing.hand_import_records(records=batch)
            batch = []
    if batch:
        importing.hand_import_records(records=batch)
    if close:
        shift = services.shift_close(shift=shift, closed_by=supervisor)
    return shift
