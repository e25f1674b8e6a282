"""factory_boy factories shared by the tests."""

from decimal import Decimal

import factory
from django.contrib.auth.models import Group, User

from casino.roles import ensure_role_groups
from tables.models import Player, Table


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


class TableFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Table
        django_get_or_create = ("name",)

    name = factory.Sequence(lambda n: f"Mesa {n + 1}")
    rules = {"profile": "reglamento"}
    min_bet = Decimal("5.00")
    max_bet = Decimal("100.00")
    bank_capital = Decimal("200.00")
