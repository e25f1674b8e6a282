"""What an entry and an opening read under their table's lock.

Every write at a table locks the table's row first (``SELECT … FOR UPDATE``), then reads
what it needs; the lock is a statement of its own so that the read after it runs on a
fresh snapshot (READ COMMITTED): what another entry committed while this one waited for
the lock is seen.

An entry (``lock_hand``) locks the table and reads the hand with its table, bank holder,
bank tenure, shift and dealer, and its entries so far: the console's hot path, and the
project's one locked read written in SQL (the lock, then ``_read``): one prepared
statement in place of the ORM's lock, ``select_related`` and entries query (three
statements, compiled on every request), about half of an entry's server CPU
(benchmarks/RESULTS.md, "Measurements behind the code's choices").

An opening (``lock_table_for_opening``) locks the table and reads its last hand, its
open bank tenure and its open shift through the ORM: it runs once a hand (20–30 entries),
a few percent of a hand's server CPU: not worth a second read written in SQL.
"""

import functools
import json
from typing import NamedTuple

from django.contrib.auth import get_user_model
from django.db import connection

from patrons.models import Player
from tables.models import BankTenure, Hand, HandEvent, Shift, Table


class LockedHand(NamedTuple):
    """A hand read under its table's lock (``lock_hand``)."""

    #: the Hand, with ``table``, ``bank``, ``tenure``, ``shift`` and the shift's
    #: ``dealer`` loaded (``shift.table`` is ``table``).
    hand: Hand
    #: its entries, ``(kind, event)`` in order.
    entries: list


class Opening(NamedTuple):
    """What opening a table's next hand reads under its lock (``lock_table_for_opening``)."""

    #: the Table as it is once locked.
    table: Table
    #: its latest hand not voided (only ``LAST_HAND_FIELDS`` loaded), or None.
    last_hand: Hand | None
    #: its open BankTenure with its ``holder``, or None.
    tenure: BankTenure | None
    #: its open Shift with its ``dealer``, or None.
    shift: Shift | None


def lock_hand(*, hand_id: int | None = None, table_id: int | None = None) -> LockedHand | None:
    """Lock the table's row and read the hand, inside the caller's transaction.

    Args:
        hand_id: the hand to read; or table_id: read the table's open hand.
    Returns:
        a ``LockedHand``; None when ``table_id`` is given and the table has no open hand.
    Raises:
        Hand.DoesNotExist: no hand ``hand_id``; Table.DoesNotExist: no table ``table_id``.
    """
    with connection.cursor() as cursor:
        if hand_id is not None:
            cursor.execute("SELECT t.id FROM tables_table t JOIN tables_hand h ON h.table_id = t.id "
                           "WHERE h.id = %s FOR UPDATE OF t", [hand_id])
            if cursor.fetchone() is None:
                raise Hand.DoesNotExist(f"no hand {hand_id}")
            cursor.execute(_read("h.id = %s"), [hand_id])  # after the lock: what committed meanwhile is seen
        else:
            cursor.execute("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", [table_id])
            if cursor.fetchone() is None:
                raise Table.DoesNotExist(f"no table {table_id}")
            cursor.execute(_read(f"h.table_id = %s AND h.status = '{Hand.Status.OPEN.value}'"), [table_id])
        row = cursor.fetchone()
    if row is None:
        return None
    hand, table, bank, tenure, shift, dealer = (_instance(part, row) for part in _layout()[0])
    hand.table, hand.bank, hand.tenure, hand.shift = table, bank, tenure, shift
    if shift is not None:
        shift.table, shift.dealer = table, dealer
    return LockedHand(hand, [tuple(entry) for entry in json.loads(row[-1])])


#: The models of the entry's read, their aliases and joins, in column order.
_JOINED = ((Hand, "h", None), (Table, "t", "JOIN {} t ON t.id = h.table_id"),
           (Player, "p", "JOIN {} p ON p.id = h.bank_id"), (BankTenure, "b", "JOIN {} b ON b.id = h.tenure_id"),
           (Shift, "s", "LEFT JOIN {} s ON s.id = h.shift_id"), ("user", "u", "LEFT JOIN {} u ON u.id = s.dealer_id"))


class _Part(NamedTuple):
    """One model's columns in the entry's read."""

    model: type
    #: the attribute names of its concrete fields, in order (``Model.from_db``'s).
    attnames: list
    #: ``[(index, [converter, …])]`` of its fields that have database converters.
    converters: list
    start: int
    end: int


@functools.cache
def _layout():
    """``([_Part of each model], SELECT list, joins)`` of the entry's read, worked out once
    from the models."""
    quote = connection.ops.quote_name
    parts, columns, joins, at = [], [], [], 0
    for model, alias, join in _JOINED:
        model = get_user_model() if model == "user" else model
        fields = model._meta.concrete_fields
        converters = [(i, field.get_db_converters(connection)) for i, field in enumerate(fields)]
        parts.append(_Part(model, [field.attname for field in fields], [(i, c) for i, c in converters if c],
                           at, at + len(fields)))
        columns += [f"{alias}.{quote(field.column)}" for field in fields]
        at += len(fields)
        if join is not None:
            joins.append(join.format(quote(model._meta.db_table)))
    columns.append(f"(SELECT coalesce(json_agg(json_build_array(e.kind, e.event) ORDER BY e.sequence), '[]')::text "
                   f"FROM {quote(HandEvent._meta.db_table)} e WHERE e.hand_id = h.id)")
    return parts, ", ".join(columns), " ".join(joins)


@functools.cache
def _read(where):
    """The entry's read: the hand ``where`` selects (alias ``h``), the rows it joins, and
    its entries as a JSON array of ``[kind, event]``."""
    _parts, columns, joins = _layout()
    return f"SELECT {columns} FROM {connection.ops.quote_name(Hand._meta.db_table)} h {joins} WHERE {where}"


def _instance(part, row):
    """The instance of ``part``'s model in ``row``, as the ORM loads it: each value through
    its field's database converters (a JSON field's text parsed), then ``Model.from_db``.
    None for a LEFT JOIN's missing row (its id is NULL)."""
    values = list(row[part.start:part.end])
    if values[0] is None:
        return None
    for i, converters in part.converters:
        for convert in converters:
            values[i] = convert(values[i], None, connection)
    return part.model.from_db(connection.alias, part.attnames, values)


#: The fields of the last hand an opening reads: whether it is open, and who takes the
#: bank after it (``services.pending_bank_holder``).
LAST_HAND_FIELDS = ("id", "table_id", "number", "status", "tenure_id", "next_bank")


def lock_table_for_opening(table_id: int) -> Opening:
    """Lock the table's row and read what opening its next hand needs, inside the
    caller's transaction (see ``Opening``).

    Raises:
        Table.DoesNotExist: no table ``table_id``.
    """
    table = Table.objects.select_for_update().get(pk=table_id)
    shift = Shift.objects.select_related("dealer", "current_dealer").filter(table=table, closed_at__isnull=True).first()
    if shift is not None:
        shift.table = table
    return Opening(table, last_hand(table), open_tenure(table), shift)


def last_hand(table):
    """The table's latest hand not voided, only its ``LAST_HAND_FIELDS`` loaded, or None
    (no lock taken)."""
    return table.hands.exclude(status=Hand.Status.VOIDED).order_by("-number").only(*LAST_HAND_FIELDS).first()


def open_tenure(table):
    """The table's open BankTenure with its holder, and ``table`` as its table (a bank
    transfer reads it), or None (no lock taken)."""
    tenure = BankTenure.objects.select_related("holder").filter(table=table, closed_at__isnull=True).first()
    if tenure is not None:
        tenure.table = table
    return tenure


def hand_entries(hand):
    """``(kind, event)`` of every entry of the hand, in order (no lock taken)."""
    return list(hand.events.order_by("sequence").values_list("kind", "event"))


def lock_table(table_id: int) -> Table:
    """The table's row, locked for the rest of the caller's transaction (``SELECT ... FOR
    UPDATE``): its entries, hand numbers and chain advance one writer at a time."""
    return Table.objects.select_for_update().get(pk=table_id)
