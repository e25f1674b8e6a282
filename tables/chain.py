"""The tables' keyed hash chain: each entry at a table is signed with HMAC-SHA256 over its
content and the table's previous entry's hash, under a secret key that lives in the
environment (``CHAIN_KEY``), never in the database. Whoever can write the database but
does not hold the key cannot recompute the chain after changing an entry: the chain
check (``tables.integrity.chain_faults``, the shift report's audit) finds the change.

Keys and their ids (``casino/settings/base.py``):

- ``CHAIN_KEY`` signs every new entry; ``CHAIN_KEY_ID`` (default ``"1"``) names it and is
  stored on each entry (``HandEvent.key_id``) and signed with it, so that a key can be
  replaced later: ``CHAIN_OLD_KEYS`` (``id=key,id=key``) keeps the old ones for checking.
- Entries written before the chain was keyed (by an earlier version of this code) carry
  the key id ``""``: plain SHA-256, as before. A migration cannot re-sign them (it has no
  key, and entries are never edited); instead the first keyed entry of each table signs
  the last unkeyed entry's hash, so changing an unkeyed entry breaks the keyed one after
  it. An unkeyed entry is accepted only up to ``CHAIN_UNKEYED_UNTIL`` (an entry id, default
  0: none), set from the environment when upgrading a database that has entries
  (docs/security.md, "Upgrading a database with unkeyed entries"): an entry rewritten unkeyed after that is a fault, so
  the chain cannot be downgraded to the unkeyed hash by the database's owner.
"""

import hashlib
import hmac
import json
from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.db.models import DateTimeField, Func

from casino.jsontext import canonical, loads
from casino.keys import current_key_id, secret

#: The "previous hash" of a table's first entry.
GENESIS = "0" * 64
#: The key id of an entry written before the chain was keyed (plain SHA-256).
UNKEYED = ""


def _key(key_id: str) -> bytes | None:
    """The secret of ``key_id`` (``casino.keys.secret``), None when this server does not hold it."""
    return secret(key_id)


def entry_body(*, table_id: int, hand_number: int, sequence: int, kind: str, event, entered_by_id: int | None,
               entered_at: datetime) -> str:
    """The signed content of one entry: canonical JSON (sorted keys, no spaces, UTF-8) of
    ``{"table", "hand", "sequence", "kind", "event", "by", "at"}`` (``at``: ``entered_at``'s
    ``isoformat()``), written around the event's canonical JSON (``_body``; the same text
    as ``json.dumps`` of that object with sorted keys: ``tests/reports/test_chain_stream.py``
    checks it). An import signs about 20 entries a hand, so the text is written around the
    event's JSON, not by ``json.dumps`` of the whole object (benchmarks/RESULTS.md, "Measurements behind the code's choices")."""
    return _body(table_id=table_id, hand_number=hand_number, sequence=sequence, kind_json=canonical(kind),
                 event_json=canonical(event), entered_by_id=entered_by_id, at=entered_at.isoformat())


def _body(*, table_id: int, hand_number: int, sequence: int, kind_json: str, event_json: str,
          entered_by_id: int | None, at: str) -> str:
    """``entry_body`` from its parts, the kind and the event already as canonical JSON, the
    keys in sorted order (``at, by, event, hand, kind, sequence, table``): the writer of the
    signed text for ``entry_body``; ``EntryChecker.check_rows`` writes the same text inline."""
    return (f'{{"at":{_json_string(at)},"by":{"null" if entered_by_id is None else int(entered_by_id)},'
            f'"event":{event_json},"hand":{int(hand_number)},'
            f'"kind":{kind_json},"sequence":{int(sequence)},"table":{int(table_id)}}}')


def _json_string(text: str) -> str:
    """``json.dumps(text)``: written around the text when no character of it needs an escape
    (printable ASCII without a quote or a backslash: every timestamp; the chain check writes
    one an entry), else by ``json.dumps``."""
    if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return f'"{text}"'
    return json.dumps(text)


def _digest(*, key_id: str, key: bytes | None, previous: str, body: str) -> str:
    """The hash (hex) of an entry's ``body`` chained to ``previous``: HMAC-SHA256 under
    ``key`` of the key id, ``previous`` and the body; for ``key_id`` ``""`` (``UNKEYED``),
    the SHA-256 of ``previous`` and the body. The one formula ``entry_hash`` writes and the
    checks recompute."""
    if key_id == UNKEYED:
        return hashlib.sha256((previous + body).encode()).hexdigest()
    return hmac.digest(key, f"{key_id}\n{previous}\n{body}".encode(), "sha256").hex()


def unkeyed_hash(*, previous: str, **content) -> str:
    """SHA-256 (hex) of an entry chained to ``previous``, without a key: how entries were
    hashed before the chain was keyed (key id ``""``). ``content``: as ``entry_body``."""
    return _digest(key_id=UNKEYED, key=None, previous=previous, body=entry_body(**content))


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
    return _digest(key_id=key_id, key=key, previous=previous, body=entry_body(**content))


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


class EntryChecker:
    """``entry_fault`` for a stream of stored entries, read as tuples with their event as
    the database's text (``event::text``) and their time in UTC (``AtUtc``): the chain check
    of a shift's or a table's entries (``reports.audit.chain_check``,
    ``tables.integrity.chain_scan``), a batch of rows at a time (``check_rows``).

    The same answers as ``entry_fault`` byte for byte: the body is ``entry_body``'s
    canonical JSON, written around the event's canonical JSON, which is made once per
    distinct event text (``json.loads``'s value, through ``casino.jsontext``, which sends the
    texts orjson would misread to ``json``: exact for integers of any size, which orjson
    alone would turn into floats past 64 bits and so report a sound entry as changed; then
    ``json.dumps`` with sorted keys) and kept in a bounded cache; each key's secret is looked up
    once and its HMAC set up once, copied for each entry (``hmac.HMAC.copy``: the one-shot
    ``hmac.digest`` sets the key up again each call). Holds no connection; one checker per
    check (the keys are read as first met).
    """

    #: Distinct event texts whose canonical JSON and value are kept (then the cache starts again).
    CACHE = 50_000

    def __init__(self):
        self._hmacs = {}
        self._events = {}
        self._words = {}
        self._unkeyed_until = settings.CHAIN_UNKEYED_UNTIL

    def _hmac(self, key_id: str):
        """The HMAC-SHA256 set up with ``key_id``'s secret, to be copied; ``UNKEYED`` for the
        unkeyed hash, None for a key this server does not hold."""
        if key_id not in self._hmacs:
            if key_id == UNKEYED:
                self._hmacs[key_id] = UNKEYED
            else:
                key = _key(key_id)
                self._hmacs[key_id] = None if key is None else hmac.new(key, digestmod="sha256")
        return self._hmacs[key_id]

    def check_rows(self, *, table_id: int, rows, previous: str, events: list | None = None,
                   numbers: dict | None = None) -> tuple[list, str]:
        """Check a batch of a table's stored entries, in the order of their ids.

        Args:
            table_id: the table's id (signed in each body).
            rows: tuples ``(hand_number, sequence, kind, event_text, entered_by_id,
                entered_at, previous_hash, hash, id, key_id, …)`` (columns after these are
                passed over), ``event_text`` the stored event's JSON text (jsonb's: any
                spacing, any order of keys), ``entered_at`` a naive ``datetime`` in UTC
                (``AtUtc``'s).
            previous: the stored hash of the entry before the first row (``GENESIS`` before
                a table's first entry).
            events: a list each row's decoded event is appended to (shared between rows of
                the same text: never to be changed by its reader), or None.
            numbers: ``{hand id: hand number}`` of every row's hand, when each row's first
                column is its hand's id, not its number.
        Returns:
            ``(faults, previous)``: ``[(row, what)]`` in the rows' order, ``what`` ``"link"``
            (its previous hash is not the stored hash of the entry before it) or
            ``entry_fault``'s answer (``"changed"``, ``"unkeyed"``, ``"unknown_key"``); and
            the last row's stored hash (``previous`` for no rows).

        The body is ``_body``'s text, written here in one f-string per entry: the calls of
        a per-entry method (``_body``'s keywords, the cache's, the key's) cost a chain check
        as much as its HMAC (benchmarks/RESULTS.md, "audit incremental");
        ``tests/reports/test_chain_stream.py`` checks the two texts agree.
        """
        cache, words, hmacs, loads_, encode = self._events, self._words, self._hmacs, loads, canonical
        compare, keep = hmac.compare_digest, None if events is None else events.append
        faults = []
        for row in rows:
            number, sequence, kind, text, by, at, stored_previous, stored, pk, key_id, *_rest = row
            if numbers is not None:
                number = numbers[number]
            if stored_previous != previous:
                faults.append((row, "link"))
            previous = stored
            known = cache.get(text)
            if known is None:
                if len(cache) >= self.CACHE:
                    cache.clear()
                value = loads_(text)
                known = cache[text] = (encode(value), value)
            if keep is not None:
                keep(known[1])
            kind_json = words.get(kind)
            if kind_json is None:
                kind_json = words[kind] = encode(kind)
            body = (f'{{"at":"{at.isoformat()}+00:00","by":{"null" if by is None else by},"event":{known[0]},'
                    f'"hand":{number},"kind":{kind_json},"sequence":{sequence},"table":{table_id}}}')
            base = hmacs[key_id] if key_id in hmacs else self._hmac(key_id)
            if base is None:
                faults.append((row, "unknown_key"))
            elif isinstance(base, str):  # UNKEYED
                if pk > self._unkeyed_until:
                    faults.append((row, "unkeyed"))
                elif not compare(_digest(key_id=UNKEYED, key=None, previous=stored_previous, body=body), stored):
                    faults.append((row, "changed"))
            else:
                keyed = base.copy()
                keyed.update(f"{key_id}\n{stored_previous}\n{body}".encode())
                if not compare(keyed.hexdigest(), stored):
                    faults.append((row, "changed"))
        return faults, previous


class AtUtc(Func):
    """A timestamp in UTC without its zone (``AT TIME ZONE 'UTC'``, whatever the session's
    time zone): read in binary it comes as a naive ``datetime`` whose ``isoformat()`` +
    ``"+00:00"`` is the entry's ``at`` as ``entry_body`` signs it. PostgreSQL's cost is a
    subtraction, not a ``to_char``; ours a ``datetime`` without a zone to ask (the chain's
    readers: ``tables.integrity.chain_scan``, ``reports.audit``'s shift chain)."""

    output_field = DateTimeField()
    template = "(%(expressions)s AT TIME ZONE 'UTC')"


# ---------------------------------------------------------------------------------------
# A hand's own fields, signed at its opening

def opening_body(*, table_id: int, number: int, shift_id: int | None, tenure_id: int, bank_id: int, seats,
                 rules, min_bet, max_bet, imported: bool) -> str:
    """The signed content of a hand's opening: canonical JSON of what it was opened with
    and is played under (its table and number, shift, bank tenure and holder, seats in
    order, rules with the profile and the commission, limits as euros with two places,
    whether it was imported)."""
    return canonical({
        "table": int(table_id), "number": int(number), "shift": None if shift_id is None else int(shift_id),
        "tenure": int(tenure_id), "bank": int(bank_id), "seats": list(seats), "rules": rules,
        "min": f"{Decimal(min_bet):.2f}", "max": f"{Decimal(max_bet):.2f}", "imported": bool(imported)})


def opening_signature(key_id: str, key: bytes, body: str) -> str:
    return hmac.digest(key, f"hand\n{key_id}\n{body}".encode(), "sha256").hex()


def _opening_content(hand) -> dict:
    return {"table_id": hand.table_id, "number": hand.number, "shift_id": hand.shift_id,
            "tenure_id": hand.tenure_id, "bank_id": hand.bank_id, "seats": hand.seats, "rules": hand.rules,
            "min_bet": hand.min_bet, "max_bet": hand.max_bet, "imported": hand.imported}


def sign_opening(hand) -> None:
    """Sign the unsaved ``hand``'s own fields (``opening_body``) with the current key: sets
    its ``signature`` (HMAC-SHA256 hex) and ``key_id``; the hand's table, tenure and bank
    are set (their ids signed).

    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set.
    """
    key_id = current_key_id()
    hand.signature = opening_signature(key_id, _key(key_id), opening_body(**_opening_content(hand)))
    hand.key_id = key_id


def opening_fault(*, key_id: str, stored: str, **content) -> str | None:
    """Why a stored hand's opening signature does not hold, or None if it does:
    ``"unsigned"`` (no signature), ``"unknown_key"`` (a key this server does not hold) or
    ``"changed"`` (its fields are not those it was opened with). ``content``: as
    ``opening_body``."""
    if not stored or not key_id:
        return "unsigned"
    key = _key(key_id)
    if key is None:
        return "unknown_key"
    digest = opening_signature(key_id, key, opening_body(**content))
    return None if hmac.compare_digest(digest, stored) else "changed"
