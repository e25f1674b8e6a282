"""``manage.py demo``: demo data for the quick start (idempotent: run it any number of times)."""

from decimal import Decimal

from django.core.management.base import BaseCommand
from django.db import transaction

from tables.models import Player, Table

DEMO_PLAYERS = [("ana", "Ana Ruiz"), ("luis", "Luis Gómez"), ("marta", "Marta Sanz"),
                ("pepe", "Pepe Olmo"), ("rosa", "Rosa Vidal")]
DEMO_TABLES = [
    ("Mesa 1", {"profile": "reglamento"}, "5.00", "100.00"),
    ("Mesa 2", {"profile": "tradicional"}, "10.00", "10.00"),
    ("Mesa 3", {"profile": "profesional"}, "5.00", "200.00"),
]


class Command(BaseCommand):
    help = "Create demo players and tables for the quick start (safe to run again)."

    @transaction.atomic
    def handle(self, *args, **options):
        for code, name in DEMO_PLAYERS:
            Player.objects.get_or_create(code=code, defaults={"name": name})
        for name, rules, low, high in DEMO_TABLES:
            Table.objects.get_or_create(name=name, defaults={
                "rules": rules, "min_bet": Decimal(low), "max_bet": Decimal(high)})
        self.stdout.write(f"demo data ready: {Player.objects.count()} players, "
                          f"{Table.objects.count()} tables")
