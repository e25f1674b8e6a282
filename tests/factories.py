"""factory_boy factories shared by the tests."""

import datetime
from decimal import Decimal

import factory
from django.contrib.auth.models import Group, User

from casino.roles import ensure_role_groups
from patrons.models import Player
from tables.models import Table


class UserFactory(factory.django.DjangoModelFactory):
    """A staff user; ``UserFactory(roles=["dealer"])`` puts him in those role groups."""

    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"staff{n}")
    password = factory.PostGenerationMethodCall("set_password", "secret-pass-1")

    @factory.post_generation
    def roles(self, create, extracted, **kwargs):
        if create and extracted:
            ensure_role_groups()
            self.groups.add(*Group.objects.filter(name__in=extracted))
        if create:
            self.save()


class PlayerFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Player
        django_get_or_create = ("code",)

    code = factory.Sequence(lambda n: f"player{n}")
    name = factory.LazyAttribute(lambda p: p.code.title())
    # Identified (the AML due diligence lets his movements pass the threshold);
    # ``PlayerFactory(unidentified=True)`` for one without.
    document_type = "dni"
    document_number = factory.Sequence(lambda n: f"{n:08d}Z")
    nationality = "ES"
    date_of_birth = datetime.date(1980, 1, 1)

    class Params:
        unidentified = factory.Trait(document_type="", document_number="", nationality="", date_of_birth=None)


#: The demo float of a drawer: 1,000.00 € (10 × 50, 20 × 20, 10 × 10).
FLOAT = {"50.00": 10, "20.00": 20, "10.00": 10}


def open_drawer(cashier, count=None):
    """The cashier's open drawer (opened with ``count``, default ``FLOAT``, if he has none):
    no slip is booked without one."""
    from cage.services.drawer import drawer_open, open_drawer_of

    return open_drawer_of(cashier) or drawer_open(cashier=cashier, count=FLOAT if count is None else count)


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Mesa {n + 1}")
    rules = {"profile": "reglamento"}
    min_bet = Decimal("5.00")
    max_bet = Decimal("100.00")
    bank_capital = Decimal("200.00")


def deposit_bank(table, cashier=None):
    """Book at the cage what the bank open at ``table`` still awaits (each member's share
    of its capital, or of the rebuild the pit ordered: ``deposits_owed``), so that it may
    play its next hand. ``cashier``
    (default: a cashier ``caja-banca``) gets his drawer opened if he has none.

    Returns:
        the slips booked (``[CashierSlip]``, empty when nothing was owed).
    """
    from cage.services.slips import awaiting_deposit, cashier_bank_deposit
    from tables.models import BankTenure

    cashier = cashier or UserFactory(username="caja-banca", roles=["cashier"])
    open_drawer(cashier)
    tenure = BankTenure.objects.get(table=table, closed_at__isnull=True)
    return [cashier_bank_deposit(tenure=tenure, player=row["player"], amount=row["owing"], posted_by=cashier)
            for row in awaiting_deposit(tenure)]
