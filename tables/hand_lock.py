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
hand also carries ``entries``: its ``(kind, event)`` entries in order.

Opening a hand (``lock_table_for_opening``) likewise locks the table's row, reading the
table as it is now, then reads in one statement what the opening needs: the table's last
hand, its open bank tenure and its open shift. [issue 4]
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


#: The fields of the last hand an opening reads: whether it is open, and who takes the
#: bank after it (``services.pending_bank_holder``).
LAST_HAND_FIELDS = ("id", "table_id", "number", "status", "tenure_id", "next_bank")


def lock_table_for_opening(table_id: int) -> Table:
    """Lock the table's row and read what opening its next hand needs, inside the
    caller's transaction.

    Args:
        table_id: the table's id.
    Returns:
        the Table as it is once locked, with ``last_hand``: its latest hand not voided
        (only ``LAST_HAND_FIELDS`` loaded) or None; ``open_tenure``: its open BankTenure
        with its ``holder`` (and this table) or None; ``open_shift``: its open Shift
        with its ``dealer`` (and this table) or None.
    Raises:
        Table.DoesNotExist: no table ``table_id``.
    """
    if connection.vendor != "postgresql":
        return _lock_table_for_opening_orm(table_id)
    table_sql, load_table, opening_sql, loads = _opening_layout()
    with connection.cursor() as cursor:
        cursor.execute(table_sql, [table_id])
        row = cursor.fetchone()
        if row is None:
            raise Table.DoesNotExist(f"no table {table_id}")
        table = load_table(row)
        cursor.execute(opening_sql, [table_id] * 3)  # after the lock: what committed meanwhile is seen
        last, tenure, holder, shift, dealer = _made(loads, cursor.fetchone())
    if tenure is not None:
        tenure.table, tenure.holder = table, holder
    if shift is not None:
        shift.table, shift.dealer = table, dealer
    table.last_hand, table.open_tenure, table.open_shift = last, tenure, shift
    return table


def _lock_table_for_opening_orm(table_id):
    table = Table.objects.select_for_update().get(pk=table_id)
    table.last_hand, table.open_tenure = last_hand(table), open_tenure(table)
    table.open_shift = Shift.objects.select_related("dealer").filter(table=table, closed_at__isnull=True).first()
    if table.open_shift is not None:
        table.open_shift.table = table
    return table


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


@functools.cache
def _opening_layout():
    """The table's locking read and its row loader; the opening's read (the last hand,
    the open tenure and its holder, the open shift and its dealer: at most one row each,
    by the tables' constraints) and ``[(row loader, first column, column after the
    last)]`` of each model in it. Built once."""
    quote = connection.ops.quote_name
    fields, columns = select_list(Table, "t")
    table_sql = f"SELECT {columns} FROM {quote(Table._meta.db_table)} t WHERE t.id = %s FOR UPDATE"
    hand_fields, hand_columns = select_list(Hand, "h", only=LAST_HAND_FIELDS)
    read = [(Hand, hand_fields, hand_columns)]
    read += [(model, *select_list(model, alias))
             for model, alias in ((BankTenure, "b"), (Player, "p"), (Shift, "s"), (get_user_model(), "u"))]
    loads = _loads([(model, model_fields) for model, model_fields, _columns in read])
    selected = ", ".join(model_columns for _model, _fields, model_columns in read)
    hands, tenures, players, shifts, users = (quote(model._meta.db_table)
                                              for model in (Hand, BankTenure, Player, Shift, get_user_model()))
    opening_sql = (
        f"SELECT {selected} FROM (SELECT 1) one "
        f"LEFT JOIN LATERAL (SELECT {hand_columns} FROM {hands} h WHERE h.table_id = %s AND h.status <> '{Hand.Status.VOIDED.value}' "
        f"ORDER BY h.number DESC LIMIT 1) h ON true "
        f"LEFT JOIN {tenures} b ON b.table_id = %s AND b.closed_at IS NULL LEFT JOIN {players} p ON p.id = b.holder_id "
        f"LEFT JOIN {shifts} s ON s.table_id = %s AND s.closed_at IS NULL LEFT JOIN {users} u ON u.id = s.dealer_id")
    return table_sql, row_loader(Table, fields), opening_sql, loads


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
    parts, columns, joins = [], [], []
    for model, alias, join in _models():
        fields, selected = select_list(model, alias)
        parts.append((model, fields))
        columns.append(selected)
        if join is not None:
            joins.append(join.format(connection.ops.quote_name(model._meta.db_table)))
    events = connection.ops.quote_name(HandEvent._meta.db_table)
    columns.append(f"(SELECT coalesce(json_agg(json_build_array(e.kind, e.event) ORDER BY e.sequence), '[]')::text "
                   f"FROM {events} e WHERE e.hand_id = h.id)")
    return _loads(parts), ", ".join(columns), " ".join(joins)


@functools.cache
def _read_sql(where):
    _layout_, columns, joins = _layout()
    return f"SELECT {columns} FROM {connection.ops.quote_name(Hand._meta.db_table)} h {joins} WHERE {where}"


def _instances(row):
    """The row's model instances, related as ``select_related`` relates them."""
    layout, _columns, _joins = _layout()
    made = _made(layout, row)
    hand, table, bank, tenure, shift, dealer = made
    hand.table, hand.bank, hand.tenure, hand.shift = table, bank, tenure, shift
    if shift is not None:
        shift.table = table
        shift.dealer = dealer
    hand.entries = [tuple(entry) for entry in json.loads(row[-1])]
    return hand


def _loads(parts):
    """``[(row loader, first column, column after the last)]`` of each ``(model, fields)``
    of ``parts``, whose columns follow one another in a row from its first."""
    loads, at = [], 0
    for model, fields in parts:
        loads.append((row_loader(model, fields), at, at + len(fields)))
        at += len(fields)
    return loads


def _made(loads, row):
    """Each model's instance of ``row`` (``loads`` as ``_loads`` makes them); None where a
    LEFT JOIN found nothing (its first column, the id, is NULL)."""
    return [None if row[start] is None else load(row[start:end]) for load, start, end in loads]
