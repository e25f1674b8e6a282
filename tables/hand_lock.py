"""A hand read under its table's lock, with everything an entry needs: the console's hot path.

Every entry at a table locks the table's row first (``tables.services``), then reads the
hand, its table, bank holder, bank tenure, shift and dealer, and its entries so far. Read
through the ORM that is three statements and a query compiled on every request; on
PostgreSQL this module does it in two fixed statements (the lock, then one read), which
psycopg prepares once per connection. The lock is taken by a statement of its own so
that the read after it runs on a fresh snapshot (READ COMMITTED): what another entry
committed while this one waited for the lock is seen. Other databases (the SQLite quick
start) take the ORM path, with the same result.

The rows become ordinary model instances (``Model.from_db``, with each field's
``from_db_value``), related to one another as ``select_related`` would relate them; the
hand also carries ``entries``: its ``(kind, event)`` entries in order. [issue 4]
"""

import functools
import json

from django.contrib.auth import get_user_model
from django.db import connection

from casino.rows import row_loader, select_list
from ledger.models import BankTenure
from tables.models import Hand, HandEvent, Player, Shift, Table


def lock_hand(*, hand_id: int | None = None, table_id: int | None = None) -> Hand | None:
    """Lock the table's row and read the hand, inside the caller's transaction.

    Args:
        hand_id: the hand to read; or table_id: read the table's open hand.
    Returns:
        the Hand with ``table``, ``bank``, ``tenure``, ``shift`` and its ``dealer``
        loaded and ``entries`` (a list of ``(kind, event)``, oldest first); None when
        ``table_id`` is given and the table has no open hand.
    Raises:
        Hand.DoesNotExist: no hand ``hand_id``; Table.DoesNotExist: no table ``table_id``.
    """
    if connection.vendor != "postgresql":
        return _lock_hand_orm(hand_id=hand_id, table_id=table_id)
    with connection.cursor() as cursor:
        if hand_id is not None:
            cursor.execute("SELECT t.id FROM tables_table t JOIN tables_hand h ON h.table_id = t.id "
                           "WHERE h.id = %s FOR UPDATE OF t", [hand_id])
            if cursor.fetchone() is None:
                raise Hand.DoesNotExist(f"no hand {hand_id}")
            cursor.execute(_read_sql("h.id = %s"), [hand_id])
        else:
            cursor.execute("SELECT id FROM tables_table WHERE id = %s FOR UPDATE", [table_id])
            if cursor.fetchone() is None:
                raise Table.DoesNotExist(f"no table {table_id}")
            cursor.execute(_read_sql("h.table_id = %s AND h.status = 'open'"), [table_id])
        row = cursor.fetchone()
    return None if row is None else _instances(row)


def hand_entries(hand):
    """``(kind, event)`` of every entry of the hand, in order (no lock taken)."""
    return list(hand.events.order_by("sequence").values_list("kind", "event"))


def _lock_hand_orm(*, hand_id, table_id):
    if table_id is None:
        table_id = Hand.objects.values_list("table_id", flat=True).get(pk=hand_id)
    Table.objects.select_for_update().get(pk=table_id)  # then read: what committed meanwhile is seen
    hands = Hand.objects.select_related("table", "bank", "tenure", "shift__dealer")
    hand = (hands.get(pk=hand_id) if hand_id is not None
            else hands.filter(table_id=table_id, status=Hand.Status.OPEN).first())
    if hand is not None:
        hand.entries = hand_entries(hand)
    return hand


def _models():
    """``(model, alias, join)`` of the read, in column order."""
    user = get_user_model()
    return [(Hand, "h", None), (Table, "t", "JOIN {} t ON t.id = h.table_id"),
            (Player, "p", "JOIN {} p ON p.id = h.bank_id"),
            (BankTenure, "b", "JOIN {} b ON b.id = h.tenure_id"),
            (Shift, "s", "LEFT JOIN {} s ON s.id = h.shift_id"),
            (user, "u", "LEFT JOIN {} u ON u.id = s.dealer_id")]


@functools.cache
def _layout():
    """``[(row loader, first column, column after the last)]`` of each model, and the
    SELECT list and joins, built once."""
    layout, columns, joins, at = [], [], [], 0
    for model, alias, join in _models():
        fields, selected = select_list(model, alias)
        layout.append((row_loader(model, fields), at, at + len(fields)))
        columns.append(selected)
        if join is not None:
            joins.append(join.format(connection.ops.quote_name(model._meta.db_table)))
        at += len(fields)
    events = connection.ops.quote_name(HandEvent._meta.db_table)
    columns.append(f"(SELECT coalesce(json_agg(json_build_array(e.kind, e.event) ORDER BY e.sequence), '[]')::text "
                   f"FROM {events} e WHERE e.hand_id = h.id)")
    return layout, ", ".join(columns), " ".join(joins)


@functools.cache
def _read_sql(where):
    _layout_, columns, joins = _layout()
    return f"SELECT {columns} FROM {connection.ops.quote_name(Hand._meta.db_table)} h {joins} WHERE {where}"


def _instances(row):
    """The row's model instances, related as ``select_related`` relates them."""
    layout, _columns, _joins = _layout()
    made = []
    for load, start, end in layout:
        values = row[start:end]
        made.append(None if values[0] is None else load(values))  # None: a LEFT JOIN found nothing (no shift)
    hand, table, bank, tenure, shift, dealer = made
    hand.table, hand.bank, hand.tenure, hand.shift = table, bank, tenure, shift
    if shift is not None:
        shift.table = table
        shift.dealer = dealer
    hand.entries = [tuple(entry) for entry in json.loads(row[-1])]
    return hand
