"""The tables' keyed hash chain: each entry at a table is signed with HMAC-SHA256 over its
content and the table's previous entry's hash, under a secret key that lives in the
environment (``CHAIN_KEY``), never in the database. Whoever can write the database but
does not hold the key cannot recompute the chain after changing an entry: the chain
check (``tables.integrity.chain_faults``, the shift report's audit) finds the change.
[issue 14 "An audit trail that needs a secret to forge"]

Keys and their ids (``casino/settings/base.py``):

- ``CHAIN_KEY`` signs every new entry; ``CHAIN_KEY_ID`` (default ``"1"``) names it and is
  stored on each entry (``HandEvent.key_id``) and signed with it, so that a key can be
  replaced later: ``CHAIN_OLD_KEYS`` (``id=key,id=key``) keeps the old ones for checking.
- Entries written before the chain was keyed (migration ``tables.0007_keyed_chain``) carry
  the key id ``""``: plain SHA-256, as before. A migration cannot re-sign them (it has no
  key, and entries are never edited); instead the first keyed entry of each table signs
  the last unkeyed entry's hash, so changing an unkeyed entry breaks the keyed one after
  it. An unkeyed entry is accepted only up to ``CHAIN_UNKEYED_UNTIL`` (an entry id, default
  0: none), set from the environment when upgrading a database that has entries
  (README, "The audit trail's key"): an entry rewritten unkeyed after that is a fault, so
  the chain cannot be downgraded to the unkeyed hash by the database's owner.
"""

import hashlib
import hmac
import json
from datetime import datetime

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

#: The "previous hash" of a table's first entry.
GENESIS = "0" * 64
#: The key id of an entry written before the chain was keyed (plain SHA-256).
UNKEYED = ""


def current_key_id() -> str:
    """The id of the key new entries are signed with (``CHAIN_KEY_ID``).

    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set.
    """
    _key(settings.CHAIN_KEY_ID)
    return settings.CHAIN_KEY_ID


def _key(key_id: str) -> bytes | None:
    """The secret of ``key_id`` (bytes), None when this server does not hold it."""
    if key_id == settings.CHAIN_KEY_ID:
        if not settings.CHAIN_KEY:
            raise ImproperlyConfigured("CHAIN_KEY must be set: it signs the tables' entries")
        return settings.CHAIN_KEY.encode()
    old = settings.CHAIN_OLD_KEYS.get(key_id)
    return old.encode() if old else None


def entry_body(*, table_id: int, hand_number: int, sequence: int, kind: str, event, entered_by_id: int | None,
               entered_at: datetime) -> str:
    """The signed content of one entry: canonical JSON (sorted keys, no spaces, UTF-8)."""
    return json.dumps({"table": table_id, "hand": hand_number, "sequence": sequence, "kind": kind,
                       "event": event, "by": entered_by_id, "at": entered_at.isoformat()},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def unkeyed_hash(*, previous: str, **content) -> str:
    """SHA-256 (hex) of an entry chained to ``previous``, without a key: how entries were
    hashed before the chain was keyed (key id ``""``). ``content``: as ``entry_body``."""
    return hashlib.sha256((previous + entry_body(**content)).encode()).hexdigest()


def entry_hash(*, previous: str, key_id: str | None = None, **content) -> str:
    """The hash (64 hex digits) of one entry chained to the table's previous entry's hash.

    Args:
        previous: the previous entry's hash (``GENESIS`` for a table's first entry).
        key_id: the key's id (default: the current key's, ``CHAIN_KEY_ID``); ``""``: the
            unkeyed SHA-256 of entries written before the chain was keyed.
        content: ``table_id``, ``hand_number``, ``sequence``, ``kind``, ``event``,
            ``entered_by_id``, ``entered_at`` (as ``entry_body``).
    Returns:
        HMAC-SHA256 (hex) under the key of ``key_id`` of the key id, ``previous`` and the
        entry's body.
    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set; KeyError: ``key_id`` is not a key
        this server holds.
    """
    key_id = current_key_id() if key_id is None else key_id
    if key_id == UNKEYED:
        return unkeyed_hash(previous=previous, **content)
    key = _key(key_id)
    if key is None:
        raise KeyError(key_id)
    message = f"{key_id}\n{previous}\n{entry_body(**content)}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def entry_fault(*, entry_id: int, key_id: str, stored: str, previous: str, **content) -> str | None:
    """Why one stored entry's hash does not hold, or None if it does.

    Returns:
        ``"changed"`` (the hash is not the entry's), ``"unkeyed"`` (an unkeyed hash on an
        entry after ``CHAIN_UNKEYED_UNTIL``: written or rewritten without the key), or
        ``"unknown_key"`` (signed with a key this server does not hold: not checkable).
    """
    if key_id == UNKEYED and entry_id > settings.CHAIN_UNKEYED_UNTIL:
        return "unkeyed"
    try:
        digest = entry_hash(previous=previous, key_id=key_id, **content)
    except KeyError:
        return "unknown_key"
    return None if hmac.compare_digest(digest, stored) else "changed"
