"""Model instances made of rows read by written SQL (``casino.rows``) are the ORM's."""

import pytest
from django.db import connection
from django.db.models.signals import post_init

from casino.rows import row_loader
from tables import services
from tables.models import Hand, Player, Table
from tests.conftest import mesa_ready

pytestmark = pytest.mark.django_db


def _read(model, pk, fields):
    """``model``'s row ``pk``, as written SQL reads it: the fields' values as the driver
    returns them."""
    chosen = ", ".join(f"x.{connection.ops.quote_name(field.column)}" for field in fields)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {chosen} FROM {connection.ops.quote_name(model._meta.db_table)} x WHERE x.id = %s",
                       [pk])
        return cursor.fetchone()


def _as_the_orm_loads(made, read):
    assert type(made) is type(read) and made.__dict__.keys() - {"_state"} == read.__dict__.keys() - {"_state"}
    assert {k: v for k, v in made.__dict__.items() if k != "_state"} == {
        k: v for k, v in read.__dict__.items() if k != "_state"}
    assert (made._state.adding, made._state.db) == (False, "default")
    assert made.get_deferred_fields() == read.get_deferred_fields()


def test_a_loaded_row_is_the_instance_the_orm_loads_all_fields_or_some(staff):
    table, _players = mesa_ready(staff)
    table = Table.objects.get(pk=table.pk)
    fields = list(Table._meta.concrete_fields)
    made = row_loader(Table, fields)(_read(Table, table.pk, fields))
    _as_the_orm_loads(made, table)
    assert made.rules == {"profile": "reglamento"}  # the JSON text parsed
    hand = services.hand_open(table=table, seats=["luis", "marta"], opened_by=staff["dealer"])
    some = [field for field in Hand._meta.concrete_fields if field.attname in ("id", "number", "status", "tenure_id")]
    made = row_loader(Hand, some)(_read(Hand, hand.pk, some))
    _as_the_orm_loads(made, Hand.objects.only("id", "number", "status", "tenure_id").get(pk=hand.pk))
    assert made.seats == ["luis", "marta"]  # a deferred field loads when read, as the ORM's does
    made.tenure_id = made.tenure_id  # a foreign key's id set as the ORM sets it
    assert made.tenure.holder.code == "ana"


def test_fields_out_of_the_models_order_are_refused():
    fields = list(Table._meta.concrete_fields)
    with pytest.raises(ValueError, match="order"):
        row_loader(Table, fields[::-1])


def test_a_model_with_a_post_init_receiver_is_made_through_its_init(db):
    seen = []

    def receiver(sender, instance, **kwargs):
        seen.append(instance.code)

    player = Player.objects.create(code="nuria", name="Nuria")
    fields = list(Player._meta.concrete_fields)
    post_init.connect(receiver, sender=Player)
    try:
        made = row_loader(Player, fields)(_read(Player, player.pk, fields))
    finally:
        post_init.disconnect(receiver, sender=Player)
    assert seen == ["nuria"] and made.code == "nuria" and not made._state.adding

