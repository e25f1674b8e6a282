"""Hand numbers and entry sequences checked once per statement, not once per row.

The guards of ``0004_postgresql_guards`` stay what they were: a table's hands are numbered
1, 2, 3… with no gap, and a hand's entries 1, 2, 3…. They were row triggers, each row
reading the largest number before it: an import copies about 20 entries a hand in one
``COPY``, and those reads were the database's largest cost after the rows themselves
(``pg_stat_user_functions``, 2,000 of benchmarks/import.py's chained hands in batches of
100, 2026-11-24: ``tables_handevent_insert`` 39,380 calls in 545 ms, ``tables_hand_insert``
2,000 calls in 511 ms). Now an ``AFTER INSERT ... FOR EACH STATEMENT`` trigger reads the
statement's new rows (its transition table) once: per table (per hand), its new numbers
in order must each follow the one before, and the first must follow a number already
there (or be 1). Together with the unique (table, number) and (hand, sequence) constraints,
checked as each row goes in, and with no row ever deleted or renumbered (``0004``'s
update and delete guards), that is the same rule.

``0004``'s row triggers come back when this is reversed.
"""

from django.db import migrations


def statement_guard(*, name, table, group, column, rows, message):
    """The ``AFTER INSERT ... FOR EACH STATEMENT`` guard ``name`` on ``table``: per
    ``group`` (a table's hands, a hand's entries), the statement's new rows (its transition
    table ``rows``) numbered in ``column`` must each follow the one before, the first one
    a row already there (or be 1); else ``message`` (the number, the group, the next
    number), as the row triggers of ``0004`` raised it."""
    return rf"""
CREATE FUNCTION {name}() RETURNS trigger AS $$
DECLARE
    bad record;
BEGIN
    SELECT n.{column}, n.{group}, n.before INTO bad FROM (
        SELECT {column}, {group}, lag({column}) OVER (PARTITION BY {group} ORDER BY {column}) AS before
        FROM {rows}) n
    WHERE CASE WHEN n.before IS NOT NULL THEN n.{column} <> n.before + 1
               ELSE n.{column} > 1 AND NOT EXISTS (
                   SELECT 1 FROM {table} t WHERE t.{group} = n.{group} AND t.{column} = n.{column} - 1) END
    ORDER BY n.{group}, n.{column} LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION '{message}', bad.{column}, bad.{group},
            coalesce(bad.before + 1, (SELECT coalesce(max(t.{column}), 0) + 1 FROM {table} t
                                      WHERE t.{group} = bad.{group} AND t.{column} < bad.{column}))
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER {name} AFTER INSERT ON {table}
    REFERENCING NEW TABLE AS {rows}
    FOR EACH STATEMENT EXECUTE FUNCTION {name}();
"""


FORWARD = r"""
DROP TRIGGER tables_hand_insert ON tables_hand;
DROP FUNCTION tables_hand_insert();
DROP TRIGGER tables_handevent_insert ON tables_handevent;
DROP FUNCTION tables_handevent_insert();
""" + statement_guard(name="tables_hand_numbers", table="tables_hand", group="table_id", column="number",
                      rows="new_hands", message="hand number % at table %: the next hand is number %") \
    + statement_guard(name="tables_handevent_sequences", table="tables_handevent", group="hand_id",
                      column="sequence", rows="new_entries", message="entry % of hand %: the next entry is %")

BACKWARD = r"""
DROP TRIGGER tables_handevent_sequences ON tables_handevent;
DROP FUNCTION tables_handevent_sequences();
DROP TRIGGER tables_hand_numbers ON tables_hand;
DROP FUNCTION tables_hand_numbers();

CREATE FUNCTION tables_hand_insert() RETURNS trigger AS $$
DECLARE
    last integer;
BEGIN
    SELECT coalesce(max(number), 0) INTO last FROM tables_hand WHERE table_id = NEW.table_id;
    IF NEW.number <> last + 1 THEN
        RAISE EXCEPTION 'hand number % at table %: the next hand is number %', NEW.number, NEW.table_id, last + 1
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_hand_insert BEFORE INSERT ON tables_hand
    FOR EACH ROW EXECUTE FUNCTION tables_hand_insert();

CREATE FUNCTION tables_handevent_insert() RETURNS trigger AS $$
DECLARE
    last integer;
BEGIN
    SELECT coalesce(max(sequence), 0) INTO last FROM tables_handevent WHERE hand_id = NEW.hand_id;
    IF NEW.sequence <> last + 1 THEN
        RAISE EXCEPTION 'entry % of hand %: the next entry is %', NEW.sequence, NEW.hand_id, last + 1
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER tables_handevent_insert BEFORE INSERT ON tables_handevent
    FOR EACH ROW EXECUTE FUNCTION tables_handevent_insert();
"""


class Migration(migrations.Migration):
    dependencies = [("tables", "0011_lean_event_indexes")]
    operations = [migrations.RunSQL(FORWARD, BACKWARD)]
