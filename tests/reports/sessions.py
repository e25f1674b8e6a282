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


def cast(record, players, *, started_at=None):
    """A simulated record with its seats ``s1`` … played by ``players`` (codes, in seat
    order), begun at ``started_at`` (an aware datetime) when given."""
    names = dict(zip(SEAT_PLAYERS, players, strict=False))
    events = [{key: names.get(value, value) if key in ("seat", "player") else value for key, value in event.items()}
              for event in record["events"]]
    out = {**record, "seats": [names[seat] for seat in record["seats"]], "events": events}
    if started_at is not None:
        out["started_at"] = started_at.isoformat()
    return out


def rigged_records(seed, hands, *, share=0.0, seat=1, stand_at=None, rules=RULES, rig="win"):
    """``hands`` records of the simulation (seed ``seed``); in ``share`` of them (drawn
    with the seed) seat ``seat`` (position from 1) wins his bet: the hand is dealt again
    until he does (a dealer feeding him; ``rig="natural"``: until he wins with his 7½
    paid double or with the bank bust). ``stand_at`` (half-points) the seats' threshold,
    else the profile's default strategy. Returns ``(records, rigged)``: rigged the count."""
    from game.edge import default_strategy

    rng = random.Random(f"rigged-{seed}")
    strategy = None if stand_at is None else default_strategy(rules, stand_at=stand_at)
    plays = play_hands(rules, seats=SEATS, hands=10 ** 9, rng=rng, strategy=strategy, record=True)
    out, rigged = [], 0
    for _ in range(hands):
        result = next(plays)
        if share and rng.random() < share:
            rigged += 1
            while not any(position == seat and bank < 0
                          and (rig == "win" or -bank >= 2 * stake or result.bank_points > 15)
                          for position, stake, bank in result.bets):
                result = next(plays)
        out.append(result.record)
    return out, rigged
