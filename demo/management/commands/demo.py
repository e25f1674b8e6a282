"""``manage.py demo``: demo data for the quick start (idempotent: run it any number of times).

Creates, once each: staff users with their roles, the demo players with chips bought at
the cage, three tables with a bank drawn at each, a dozen finished hands at each table
(random legal play imported through ``hand_import_record``, so history and the ledger
are not empty), and an open shift for the dealer at Mesa 1. A second run changes
nothing (and never resets a password someone changed).
"""

import random
from datetime import date
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from cage.services.drawer import drawer_open, open_drawer_of
from cage.services.slips import awaiting_deposit, cashier_bank_deposit, cashier_buy_in
from casino.roles import (
    ADMIN,
    AUDITOR,
    CAGE_SUPERVISOR,
    CASHIER,
    COMPLIANCE,
    DEALER,
    PIT_SUPERVISOR,
    ensure_role_groups,
)
from game.simulate import random_record
from ledger.errors import AlreadyPosted
from ledger.money import cents
from patrons.models import Player
from tables import importing, services
from tables.models import BankTenure, Dispute, Incident, Table

#: (username, password, roles, superuser). Demo passwords only: change them anywhere real.
DEMO_STAFF = [
    ("admin", "demo-admin", [ADMIN], True),
    ("pit", "demo-pit", [PIT_SUPERVISOR], False),
    ("dealer", "demo-dealer", [DEALER], False),
    ("dealer2", "demo-dealer", [DEALER], False),
    ("cashier", "demo-cashier", [CASHIER], False),
    ("cage", "demo-cage", [CAGE_SUPERVISOR], False),
    ("auditor", "demo-auditor", [AUDITOR], False),
    ("cajajefe", "demo-cajajefe", [CAGE_SUPERVISOR], False),
    ("compliance", "demo-compliance", [COMPLIANCE], False),
]
#: The cashier's drawer float: 2,000.00 € (20 × 50, 40 × 20, 20 × 10).
DEMO_FLOAT = {"50.00": 20, "20.00": 40, "10.00": 20}
DEMO_PLAYERS = [("ana", "Ana Ruiz"), ("luis", "Luis Gómez"), ("marta", "Marta Sanz"),
                ("pepe", "Pepe Olmo"), ("rosa", "Rosa Vidal"), ("juan", "Juan Prieto"),
                ("lola", "Lola Marín"), ("paco", "Paco Durán"), ("nuria", "Nuria Sáez"),
                ("toni", "Toni Ferrer"), ("elena", "Elena Cano"), ("quique", "Quique Soto"),
                ("maite", "Maite Lozano"), ("jose.m", "José María Gil"), ("carmen_r", "Carmen Rey")]
BUY_IN = Decimal("2000.00")
#: (name, rules, min bet, max bet, takeover capital, bank holder, bank capital, seats)
DEMO_TABLES = [
    ("Mesa 1", {"profile": "reglamento"}, "5.00", "100.00", "300.00", "ana", "500.00",
     ["luis", "marta", "pepe", "rosa"]),
    ("Mesa 2", {"profile": "tradicional"}, "10.00", "10.00", "200.00", "juan", "400.00",
     ["lola", "paco", "nuria"]),
    ("Mesa 3", {"profile": "profesional"}, "5.00", "200.00", "500.00", "toni", "800.00",
     ["elena", "quique", "maite", "jose.m", "carmen_r"]),
]
HANDS_PER_TABLE = 12


class Command(BaseCommand):
    help = "Create demo staff, players, tables, banks, hands and a shift for the quick start (safe to run again)."

    @transaction.atomic
    def handle(self, *args, **options):
        staff = self._staff()
        players = self._players(staff["cashier"])
        hands = 0
        for name, rules, low, high, takeover, holder, capital, seats in DEMO_TABLES:
            table, _created = Table.objects.get_or_create(name=name, defaults={
                "rules": rules, "min_bet": Decimal(low), "max_bet": Decimal(high), "bank_capital": Decimal(takeover)})
            if table.bank_capital == 0:  # a table from an older demo: a 7½ takeover needs capital
                table.bank_capital = Decimal(takeover)
                table.save(update_fields=["bank_capital"])
            if table.last_hand_number == 0:
                hands += self._play(table, staff, players[holder], Decimal(capital), seats)
        mesa = Table.objects.get(name=DEMO_TABLES[0][0])
        if not mesa.shifts.filter(closed_at__isnull=True).exists():
            services.shift_open(table=mesa, dealer=staff["dealer"], opened_by=staff["pit"])
        self._dispute_desk(mesa, staff["pit"], players)
        self.stdout.write(f"demo data ready: {Player.objects.count()} players, {Table.objects.count()} tables, "
                          f"{hands} hands played now")
        for username, password, roles, _superuser in DEMO_STAFF:
            self.stdout.write(f"  {username} / {password} ({', '.join(roles)})")

    def _dispute_desk(self, table, pit, players):
        """An open dispute of the table's third hand and an incident at it, once (the
        dispute desk, ``/tables/disputes/``, for the pit to step through and decide)."""
        hand = table.hands.filter(number=3).first()
        if hand is not None and not Dispute.objects.filter(hand__table=table).exists():
            services.dispute_open(hand=hand, claim="Dice que su carta era un 7, no un 6.", opened_by=pit,
                                  player=players["luis"])
        if not Incident.objects.filter(table=table).exists():
            services.incident_record(table=table, kind=Incident.Kind.CARD_EXPOSED, hand=hand, recorded_by=pit,
                                     text="Carta de la banca vista al repartir.")

    def _staff(self):
        """The demo staff users, created once with their password; roles ensured each run."""
        ensure_role_groups()
        users = {}
        User = get_user_model()
        for username, password, roles, superuser in DEMO_STAFF:
            user = User.objects.filter(username=username).first()
            if user is None:
                make = User.objects.create_superuser if superuser else User.objects.create_user
                user = make(username=username, password=password, email="")
                user.is_staff = superuser or ADMIN in roles or AUDITOR in roles
                user.save(update_fields=["is_staff"])
            user.groups.add(*Group.objects.filter(name__in=roles))
            users[username] = user
        return users

    def _players(self, cashier):
        """The demo players, identified, each with ``BUY_IN`` of chips (one slip per player,
        ever), booked against the cashier's drawer (opened with ``DEMO_FLOAT`` if none is)."""
        players = {}
        if open_drawer_of(cashier) is None:  # no slip without an open drawer
            drawer_open(cashier=cashier, count=DEMO_FLOAT)
        for number, (code, name) in enumerate(DEMO_PLAYERS, start=1):
            # Identified (made-up documents): 2,000.00 € reaches the AML threshold.
            player, _created = Player.objects.get_or_create(code=code, defaults={
                "name": name, "document_type": "dni", "document_number": f"{number:08d}{'TRWAGMYFPDXBNJZSQVHLCKE'[number % 23]}",
                "nationality": "ES", "date_of_birth": date(1970 + number, 1 + number % 12, 1 + number)})
            try:
                cashier_buy_in(player=player, amount=BUY_IN, posted_by=cashier, idempotency_key=f"demo:buy-in:{code}")
            except AlreadyPosted:
                pass
            players[code] = player
        return players

    def _play(self, table, staff, holder, capital, seats):
        """A past shift of ``dealer2`` at a fresh table: the bank drawn and its capital
        deposited at the cage by its holder (a bank deposit slip), hands played and
        imported (the bank passes on a 7½ as the rules say), the shift closed."""
        if services.pending_bank_holder(table) is None:
            services.table_bank_draw(table=table, holder=holder, capital=capital, by=staff["pit"])
        tenure = BankTenure.objects.get(table=table, closed_at__isnull=True)
        for row in awaiting_deposit(tenure):  # nothing when it was deposited already
            cashier_bank_deposit(tenure=tenure, player=row["player"], amount=row["owing"], posted_by=staff["cashier"],
                                 idempotency_key=f"demo:bank-deposit:{tenure.pk}:{row['player'].code}")
        shift = services.shift_open(table=table, dealer=staff["dealer2"], opened_by=staff["pit"])
        group = [holder.code, *seats]
        rng = random.Random(f"demo:{table.name}")
        for _number in range(HANDS_PER_TABLE):
            bank = services.pending_bank_holder(table).code
            record = random_record(rng, rules=table.rules, min_bet=cents(table.min_bet), max_bet=cents(table.max_bet),
                                   seats=[code for code in group if code != bank], bank=bank, table=table.name)
            importing.hand_import_record(record=record, imported_by=staff["dealer2"])
        services.shift_close(shift=shift, closed_by=staff["pit"])
        return HANDS_PER_TABLE
