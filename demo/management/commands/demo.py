"""``manage.py demo``: demo data for the quick start (idempotent: run it any number of times).

Creates, once each: staff users with their roles, the demo players with chips bought at
the cage, three tables with a bank drawn at each, a dozen finished hands at each table
(random legal play imported through ``hand_import_record``, so history and the ledger
are not empty; at Mesa 1 ``dealer3`` relieves ``dealer2`` halfway through), an open
shift for the dealer at Mesa 1, a pit with its rotation plan, a dispute left open and
one decided, an incident, a chip transfer, a bank withdrawal, the exclusion register (a
regulator's file loaded, a self-exclusion) with a refused registration, and the month
before's statement computed. All through the service functions. A second run changes nothing
(and never resets a password someone changed).
"""

import random
from datetime import date, timedelta
from decimal import Decimal

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from cage.services.drawer import drawer_open, open_drawer_of
from cage.services.slips import awaiting_deposit, cashier_bank_deposit, cashier_buy_in
from casino.periods import gaming_day
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
from ledger.chips import chips_transfer
from ledger.errors import AlreadyPosted
from ledger.money import cents
from patrons.admission import exclusion_load, name_key, self_exclusion_add
from patrons.errors import AdmissionRefused
from patrons.models import AdmissionRefusal, ExclusionEntry, ExclusionLoad, ExclusionSource, Player
from patrons.services import player_register
from reports.models import MonthlyStatement
from reports.statements import statement_compute, statement_request
from tables import importing, services
from tables.bank.life import bank_withdraw
from tables.models import BankTenure, BankWithdrawal, Dispute, Incident, Pit, Table
from tables.services.rotation import rotation_plan_set

#: (username, password, roles, superuser). Demo passwords only: change them anywhere real.
DEMO_STAFF = [
    ("admin", "demo-admin", [ADMIN], True),
    ("pit", "demo-pit", [PIT_SUPERVISOR], False),
    ("dealer", "demo-dealer", [DEALER], False),
    ("dealer2", "demo-dealer", [DEALER], False),
    ("dealer3", "demo-dealer", [DEALER], False),
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
#: The pit of the demo tables and its rotation plan: minutes at a table, relief order.
DEMO_PIT, DEMO_ROTATION_MINUTES, DEMO_RELIEF_ORDER = "Sala A", 30, ["dealer2", "dealer3"]
#: Chips handed at Mesa 1 under the pit's eye: (giver, receiver, amount, reason).
DEMO_TRANSFER = ("luis", "marta", "50.00", "Le devuelve lo que le prestó en la mano anterior.")
#: The bank withdrawn from at the end of its session: (table, amount).
DEMO_WITHDRAWAL = ("Mesa 3", "100.00")
#: Spain's register of gaming bans as a regulator's CSV would read (made-up people).
DEMO_RGIAJ_FILE = (
    "documento;nombre;apellidos;fecha_nacimiento\n"
    "71234567W;Víctor;Ibáñez Rubio;14/03/1969\n"
    "52000111D;Pilar;Mora Esteban;02/11/1980\n"
    ";Andrés;Cuesta Llorente;23/07/1975\n").encode()
#: The patron on that register who comes to the cage to register: refused, recorded.
DEMO_REFUSED = {"code": "victor", "name": "Víctor Ibáñez Rubio", "document_type": "dni",
                "document_number": "71234567W", "nationality": "ES", "date_of_birth": date(1969, 3, 14)}
#: A patron's own exclusion from this casino, entered by the compliance officer.
DEMO_SELF_EXCLUSION = {"name": "Sergio Peña Villar", "date_of_birth": date(1984, 6, 9),
                       "note": "Autoexclusión firmada en admisión."}


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
        self._rotation(staff)
        self._transfer_and_withdrawal(staff["pit"], players)
        self._register(staff)
        self._statement(staff["auditor"])
        self.stdout.write(f"demo data ready: {Player.objects.count()} players, {Table.objects.count()} tables, "
                          f"{hands} hands played now")
        for username, password, roles, _superuser in DEMO_STAFF:
            self.stdout.write(f"  {username} / {password} ({', '.join(roles)})")

    def _dispute_desk(self, table, pit, players):
        """An open dispute of the table's third hand and an incident at it, once (the
        dispute desk, ``/tables/disputes/``, for the pit to step through and decide), and a
        dispute decided (rejected) at Mesa 2, once."""
        hand = table.hands.filter(number=3).first()
        if hand is not None and not Dispute.objects.filter(hand__table=table).exists():
            services.dispute_open(hand=hand, claim="Dice que su carta era un 7, no un 6.", opened_by=pit,
                                  player=players["luis"])
        if not Incident.objects.filter(table=table).exists():
            services.incident_record(table=table, kind=Incident.Kind.CARD_EXPOSED, hand=hand, recorded_by=pit,
                                     text="Carta de la banca vista al repartir.")
        # One decided too, at Mesa 2: a claim rejected (the hand stands, the ledger untouched).
        other = Table.objects.get(name=DEMO_TABLES[1][0])
        hand = other.hands.filter(number=5).first()
        if hand is not None and not Dispute.objects.filter(hand__table=other).exists():
            dispute = services.dispute_open(hand=hand, claim="Dice que apostó 20, no 10.", opened_by=pit,
                                            player=players["lola"])
            services.dispute_decide(dispute=dispute, outcome=Dispute.Outcome.REJECTED, decided_by=pit,
                                    decision="La mesa es de 10 a 10: la apuesta anotada es la única posible.")

    def _rotation(self, staff):
        """The pit of the demo tables, its rotation plan's first version (the rotation
        page, ``/tables/rotation/``), once."""
        if not Pit.objects.filter(name=DEMO_PIT).exists():
            rotation_plan_set(pit=None, name=DEMO_PIT, minutes=DEMO_ROTATION_MINUTES,
                              tables=list(Table.objects.filter(name__in=[row[0] for row in DEMO_TABLES])),
                              dealers=[staff[name] for name in DEMO_RELIEF_ORDER], set_by=staff["pit"],
                              note="Plan de la demo.")

    def _transfer_and_withdrawal(self, pit, players):
        """A chip transfer between two players (once: its idempotency key), and a part of
        Mesa 3's bank withdrawn by its holder after its hands (once per tenure)."""
        giver, receiver, amount, reason = DEMO_TRANSFER
        try:
            chips_transfer(giver=players[giver], receiver=players[receiver], amount=Decimal(amount), reason=reason,
                           posted_by=pit, idempotency_key=f"demo:transfer:{giver}:{receiver}")
        except AlreadyPosted:
            pass
        name, amount = DEMO_WITHDRAWAL
        tenure = BankTenure.objects.filter(table__name=name, closed_at__isnull=True).first()
        if tenure is not None and not BankWithdrawal.objects.filter(tenure=tenure).exists():
            bank_withdraw(tenure=tenure, amount=Decimal(amount), posted_by=pit)

    def _register(self, staff):
        """The exclusion register: a regulator's file loaded (RGIAJ), a self-exclusion,
        and a patron on that file refused at his registration at the cage (the refusal
        recorded for the compliance officer), each once."""
        if not ExclusionLoad.objects.filter(source=ExclusionSource.RGIAJ).exists():
            exclusion_load(content=DEMO_RGIAJ_FILE, file_name="rgiaj-demo.csv", source=ExclusionSource.RGIAJ,
                           loaded_by=staff["compliance"])
        if not ExclusionEntry.objects.filter(source=ExclusionSource.SELF,
                                             name_key=name_key(DEMO_SELF_EXCLUSION["name"])).exists():
            self_exclusion_add(entered_by=staff["compliance"], **DEMO_SELF_EXCLUSION)
        if not AdmissionRefusal.objects.exists():
            try:
                player_register(by=staff["cashier"], **DEMO_REFUSED)
            except AdmissionRefused:
                pass  # refused, as he must be: the attempt is recorded

    def _statement(self, auditor):
        """The month before's statement, asked for by the auditor and computed now, once
        (its figures are the ledger's of then: none on a fresh database). Never the
        running month's: its versions are the auditor's to ask for, sign and compare."""
        if MonthlyStatement.objects.exists():
            return
        today = gaming_day(timezone.now())
        month = today.replace(day=1) - timedelta(days=1)
        statement = statement_request(month=month, requested_by=auditor, today=today)
        statement_compute(statement_id=statement.pk)

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
        dealer = staff["dealer2"]
        for number in range(1, HANDS_PER_TABLE + 1):
            if table.name == DEMO_TABLES[0][0] and number == HANDS_PER_TABLE // 2 + 1:  # a relief mid-session
                services.dealer_relieve(shift=shift, dealer=staff["dealer3"], relieved_by=staff["pit"])
                dealer = staff["dealer3"]
            bank = services.pending_bank_holder(table).code
            record = random_record(rng, rules=table.rules, min_bet=cents(table.min_bet), max_bet=cents(table.max_bet),
                                   seats=[code for code in group if code != bank], bank=bank, table=table.name)
            importing.hand_import_record(record=record, imported_by=dealer)
        services.shift_close(shift=shift, closed_by=staff["pit"])
        return HANDS_PER_TABLE
