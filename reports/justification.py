"""Every ledger transaction has the business record that justifies it, and that record
points back (issue 29's third point): an orphan on either side is a fault.

The ledger (below every other app) knows its transactions only by ``kind`` and ``cause``
(``ledger.references``); the records live above it. This check, at the top with the other
audits, reads them all in one query (``ORPHANS_SQL``) and names each transaction whose
record is missing or points elsewhere:

==============================  ==============================================================
kind                            justified by (pointing back)
==============================  ==============================================================
``hand``                        the settled or voided hand whose ``transaction`` it is
                                (checked by the replay, ``tables.replay``: not twice)
``buy_in``, ``cash_out``        the cashier slip whose ``transaction`` it is
``capital_in``                  a slip (cash at the cage), else its tenure's account among its legs
``bank_rebuild``                a slip, else the tenure's rebuild of that number and its account
``distribution``, ``bank_sale``  its tenure, whose account is among its legs
``bank_withdrawal``             the withdrawal (``tables.BankWithdrawal``) whose ``transaction`` it is
``transfer``                    the chip transfer (``ledger.ChipTransfer``) whose ``transaction``
                                it is; a takeover's price (``bank_price``) its tenure's account
``opening``                     the player (his opening chips, once, under the key
                                ``opening:<player id>``) whose account is among its legs
``table_buy_in``, ``tip``,      the table buy-in, the tip, the box count, the tronc's
``tips``, ``box_count``,        distribution whose ``transaction`` it is
``tronc``
``drawer_float``,               the cage drawer whose ``float_transaction`` (``close_transaction``)
``drawer_close``                it is
``reversal``                    a voided hand whose posting it reverses, or the slip void whose
                                ``reversal`` it is
==============================  ==============================================================

The records' side: a settled or voided hand without a posting, a voided hand whose posting
was not reversed, are the replay's faults (``tables.replay``); a slip, a slip's void, a
table buy-in, a tronc distribution, a chip transfer and a bank withdrawal cannot exist
without theirs (``NOT NULL`` foreign keys); a drawer that lent a float, or closed with a
float to give back or a variance, without its posting is named by ``RECORDS_SQL``.
"""

from django.db import connection

_TENURE_LEG = """EXISTS (SELECT 1 FROM ledger_entry e JOIN tables_banktenure bt ON bt.account_id = e.account_id
                         WHERE e.transaction_id = t.id AND bt.id::text = t.cause->>'tenure')"""
_SLIP = "EXISTS (SELECT 1 FROM cage_cashierslip r WHERE r.transaction_id = t.id)"


def _player_leg(key: str) -> str:
    return f"""EXISTS (SELECT 1 FROM ledger_entry e JOIN ledger_account a ON a.id = e.account_id
                       JOIN patrons_player p ON p.id = a.player_id
                       WHERE e.transaction_id = t.id AND p.code = t.cause->>'{key}')"""


def _points_back(table: str) -> str:
    return f"EXISTS (SELECT 1 FROM {table} r WHERE r.transaction_id = t.id)"


#: ``{kind: SQL condition on the transaction t}``: true when its record justifies it.
JUSTIFIED = {
    # A hand posting no hand points at is the replay's fault already (``tables.replay``).
    "hand": "true",
    "buy_in": _SLIP,
    "cash_out": _SLIP,
    "capital_in": f"({_SLIP} OR (t.cause->>'kind' = 'bank_capital' AND {_TENURE_LEG}))",
    "bank_rebuild": f"""({_SLIP} OR (t.cause->>'kind' = 'bank_rebuild' AND {_TENURE_LEG} AND EXISTS (
                        SELECT 1 FROM tables_bankrebuild r WHERE r.tenure_id::text = t.cause->>'tenure'
                        AND r.number::text = t.cause->>'number')))""",
    "distribution": _TENURE_LEG,
    "bank_sale": _TENURE_LEG,
    "bank_withdrawal": _points_back("tables_bankwithdrawal"),
    "transfer": f"""((t.cause->>'kind' = 'transfer' AND {_points_back('ledger_chiptransfer')})
                     OR (t.cause->>'kind' = 'bank_price' AND {_TENURE_LEG}))""",
    # Once per player ever, under its key (``ledger.chips.chips_opening``).
    "opening": f"""(t.cause->>'kind' = 'opening' AND {_player_leg('player')}
                    AND t.idempotency_key = 'opening:' || (SELECT p.id FROM patrons_player p
                                                           WHERE p.code = t.cause->>'player')
                    AND NOT EXISTS (SELECT 1 FROM ledger_transaction o WHERE o.kind = 'opening' AND o.id <> t.id
                                    AND o.cause->>'player' = t.cause->>'player'))""",
    "table_buy_in": _points_back("boxes_tablebuyin"),
    "tip": _points_back("boxes_tabletip"),
    "tips": _points_back("boxes_boxcount"),
    "box_count": _points_back("boxes_boxcount"),
    "tronc": _points_back("boxes_troncdistribution"),
    "drawer_float": "EXISTS (SELECT 1 FROM cage_drawer d WHERE d.float_transaction_id = t.id)",
    "drawer_close": "EXISTS (SELECT 1 FROM cage_drawer d WHERE d.close_transaction_id = t.id)",
    "reversal": """(EXISTS (SELECT 1 FROM tables_hand h WHERE h.transaction_id = t.reverses_id
                            AND h.status = 'voided')
                    OR EXISTS (SELECT 1 FROM cage_slipvoid v WHERE v.reversal_id = t.id))""",
}

ORPHANS_SQL = ("SELECT t.id, t.kind, t.reference FROM ledger_transaction t WHERE t.id > %s AND NOT coalesce(CASE t.kind "
               + " ".join(f"WHEN '{kind}' THEN {condition}" for kind, condition in JUSTIFIED.items())
               + " ELSE false END, false) ORDER BY t.id")


#: The records that must have a posting and have none: a drawer that lent a float, or that
#: closed with a float to give back or a variance, without that posting.
RECORDS_SQL = """
SELECT d.id, 'drawer_float' FROM cage_drawer d WHERE d.float_amount > 0 AND d.float_transaction_id IS NULL
UNION ALL
SELECT d.id, 'drawer_close' FROM cage_drawer d
 WHERE d.closed_at IS NOT NULL AND d.close_transaction_id IS NULL
   AND (d.variance <> 0 OR d.float_transaction_id IS NOT NULL)
ORDER BY 1, 2
"""


def orphan_transactions(*, after_id: int = 0) -> list[dict]:
    """The ledger transactions no business record justifies (the module's table); of an
    id above ``after_id`` only (an incremental check's new ones). The drawers without their
    postings (``RECORDS_SQL``) are read whole: one row a drawer.

    Returns:
        ``[{"code": "transaction_orphan", "transaction": id, "kind": kind, "reference":
        text}]`` in the order they were posted, then ``[{"code": "record_without_posting",
        "drawer": id, "kind": kind}]`` (``RECORDS_SQL``); empty when every one is justified.
    """
    with connection.cursor() as cursor:
        cursor.execute(ORPHANS_SQL, [after_id])
        faults = [{"code": "transaction_orphan", "transaction": pk, "kind": kind, "reference": reference}
                  for pk, kind, reference in cursor.fetchall()]
        cursor.execute(RECORDS_SQL)
        return faults + [{"code": "record_without_posting", "drawer": pk, "kind": kind}
                         for pk, kind in cursor.fetchall()]
