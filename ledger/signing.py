"""Every ledger transaction signed, and chained: HMAC-SHA256 under the audit trail's key
(``CHAIN_KEY``, ``casino.keys``; its id stored with the transaction, never the key) of
its content and its legs, chained to the ledger's previous transaction's signature.

What the signature covers (``posting_body``): the transaction's kind, reference,
idempotency key, cause, poster, source, time, memo, the transaction it reverses, and its
legs (account, side, amount in cents, as many as it was posted with: ``legs``); and the
previous transaction's signature. Not ``detail`` (a hand's settlement as posted, which
the replay of the hand checks against its entries).

So whoever can write the database but does not hold the key cannot add a transaction
(a copy of a buy-in, a transfer, an opening of chips), change one, or add or remove a
leg of one without ``ledger_check`` naming it (``signature_faults``); nor remove one
without breaking the chain. Nothing here rests on PostgreSQL's transaction ids: a plain
``pg_dump`` and ``pg_restore`` keeps every signature whole.

The chain's order is the posting order: every posting transaction row-locks the chain's
head (``ledger.models.ChainHead``) before its accounts (``ledger.posting.lock_chain``)
and holds it until it commits, so that transactions are signed, numbered and committed
one after the other.
"""

import hmac
from datetime import UTC, datetime

from django.db import connection
from django.utils.translation import gettext as _

from casino.jsontext import canonical, loads
from casino.keys import current_key_id, hmac_hex, secret

#: The "previous signature" of the ledger's first transaction.
GENESIS = "0" * 64

def posting_body(*, kind: str, reference: str, idempotency_key: str, cause: dict, posted_by_id,
                 source: str, posted_at: datetime, memo: str, reverses_id, legs) -> str:
    """The signed content of one transaction: canonical JSON (sorted keys, no spaces,
    UTF-8) of its fields and its legs, sorted (``[account id, "D" or "C", cents]``; their
    order of insertion is not signed, their number is).

    Args:
        legs: ``[(account id, side, cents)]``; posted_at: an aware datetime (its
            ``isoformat()`` is signed: UTC, as PostgreSQL returns it to Django).
    """
    return canonical({
        "kind": kind, "reference": reference, "key": idempotency_key, "cause": cause or {},
        "by": None if posted_by_id is None else int(posted_by_id), "source": source,
        "at": posted_at.isoformat(), "memo": memo, "reverses": None if reverses_id is None else int(reverses_id),
        "n": len(legs), "legs": sorted([int(account), str(side), int(amount)] for account, side, amount in legs)})


def signature(*, key_id: str, key: bytes, previous: str, body: str) -> str:
    """HMAC-SHA256 (hex) under ``key`` of the key id, the previous signature and the body."""
    return hmac_hex(key, f"ledger\n{key_id}\n{previous}\n{body}")


def sign(txn, legs, previous: str) -> str:
    """Sign the unsaved Transaction ``txn`` with the current key,
    chained to ``previous``: sets its ``signature``, ``previous_signature``, ``key_id``
    and ``legs`` (their number); returns the signature.

    Args:
        legs: ``[(account id, side, cents)]`` as ``ledger.posting.post`` takes them.
    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set.
    """
    key_id = current_key_id()
    body = posting_body(kind=txn.kind, reference=txn.reference, idempotency_key=txn.idempotency_key,
                        cause=txn.cause, posted_by_id=txn.posted_by_id, source=txn.source, posted_at=txn.posted_at,
                        memo=txn.memo, reverses_id=txn.reverses_id, legs=legs)
    txn.signature = signature(key_id=key_id, key=secret(key_id), previous=previous, body=body)
    txn.previous_signature, txn.key_id, txn.legs = previous, key_id, len(legs)
    return txn.signature


# ---------------------------------------------------------------------------------------
# The check

#: Every transaction after an id with its legs; the amounts in cents (the column is numeric
#: with two places: ``* 100`` is exact), the cause as its text (``casino.jsontext``), the time
#: in UTC without its zone (the driver's own loader: Django's loader of a ``timestamptz``, in
#: Python, was a tenth of the ledger's check; benchmarks/RESULTS.md, "audit incremental").
_READ_SQL = """
SELECT t.id, t.kind, t.reference, t.idempotency_key, t.cause::text, t.posted_by_id, t.source,
       t.posted_at AT TIME ZONE 'UTC',
       t.memo, t.reverses_id, t.signature, t.previous_signature, t.key_id, t.legs,
       e.accounts, e.sides, e.amounts
  FROM ledger_transaction t
       LEFT JOIN LATERAL (SELECT array_agg(x.account_id) AS accounts, array_agg(x.side) AS sides,
                                 array_agg((x.amount * 100)::bigint) AS amounts
                            FROM ledger_entry x WHERE x.transaction_id = t.id) e ON true
 WHERE t.id > %s
 ORDER BY t.id"""


def _named(tx_id, kind, reference):
    return {"id": tx_id, "kind": kind, "reference": reference}


def signature_faults() -> list[str]:
    """Every transaction whose signature does not hold, in the reader's words (English
    under ``manage.py ledger_check``), each naming it; empty when every transaction is
    signed, whole and chained (``signature_scan`` from the genesis).
    """
    return signature_scan()[0]


def signature_scan(*, after_id: int = 0, head: str = GENESIS) -> tuple[list[str], int, str]:
    """``signature_faults`` over the transactions after ``after_id`` only, the chain
    continuing from ``head`` (an incremental check, ``reports.checkpoints``: the last
    transaction a check verified and its signature); from the genesis with 0. The
    transaction ``after_id`` is read again: gone, or its signature no longer ``head``, is a
    fault; one before it is not read.

    Returns:
        ``(faults, the last signed transaction's id, its signature)`` (``after_id`` and
        ``head`` when none follows).

    Faults: a transaction unsigned, signed with a key this server does not hold, or whose
    signature is not its content's and legs' (inserted by SQL, altered); one with more or
    fewer entries than it was posted with (a leg added or removed later); one that does
    not follow the transaction before it (one removed, or inserted between); and the
    chain's head not at the last transaction (the last ones removed). Reads every
    transaction once, with its entries, through a server-side cursor.
    """
    faults, previous, keys, last_id = [], head, {}, after_id
    if after_id:
        with connection.cursor() as cursor:
            cursor.execute("SELECT signature FROM ledger_transaction WHERE id = %s", [after_id])
            row = cursor.fetchone()
        if row is None or row[0] != head:
            faults.append(_("transaction #%(id)s, where the last check ended, was changed or removed since")
                          % {"id": after_id})
    with connection.chunked_cursor() as cursor:
        cursor.execute(_READ_SQL, [after_id])
        while rows := cursor.fetchmany(2000):
            for (tx_id, kind, reference, key, cause, by, source, at, memo, reverses, stored, stored_previous,
                 key_id, count, accounts, sides, amounts) in rows:
                named = _named(tx_id, kind, reference)
                if not stored or not key_id:
                    # Not the ledger's posting (inserted by SQL): named once, and left out of the
                    # chain, so that the transactions after it are checked against the ledger's own.
                    faults.append(_("transaction #%(id)s (%(kind)s, %(reference)s) is not signed with the "
                                    "ledger's key: it was not posted by the ledger") % named)
                    continue
                legs = list(zip(accounts or [], sides or [], amounts or [], strict=True))
                if len(legs) != count:
                    faults.append(_("transaction #%(id)s (%(kind)s, %(reference)s) has %(found)s entries but was "
                                    "posted with %(legs)s: entries were added or removed after it was posted")
                                  % {**named, "found": len(legs), "legs": count})
                if stored_previous != previous:
                    faults.append(_("transaction #%(id)s (%(kind)s, %(reference)s) does not follow the transaction "
                                    "before it in the ledger's chain") % named)
                if key_id not in keys:
                    keys[key_id] = secret(key_id)
                if keys[key_id] is None:
                    faults.append(_("transaction #%(id)s (%(kind)s, %(reference)s) is signed with a key this "
                                    "server does not hold") % named)
                else:
                    body = posting_body(kind=kind, reference=reference, idempotency_key=key,
                                        cause=loads(cause), posted_by_id=by, source=source,
                                        posted_at=at.replace(tzinfo=UTC),  # read in UTC without its zone
                                        memo=memo, reverses_id=reverses, legs=legs)
                    expected = signature(key_id=key_id, key=keys[key_id], previous=stored_previous, body=body)
                    if not hmac.compare_digest(expected, stored):
                        faults.append(_("transaction #%(id)s (%(kind)s, %(reference)s) does not match its "
                                        "signature: it or its entries were changed, or it was not posted by "
                                        "the ledger") % named)
                previous, last_id = stored, tx_id
    with connection.cursor() as cursor:
        cursor.execute("SELECT signature FROM ledger_chainhead WHERE id = 1")
        row = cursor.fetchone()
    if (row[0] if row else GENESIS) != previous:
        faults.append(_("the ledger's last transaction is not the head of its chain: transactions were removed "
                        "or added outside the ledger"))
    return faults, last_id, previous
