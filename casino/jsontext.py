"""JSON text read back from the database as the standard library reads it, and the
canonical JSON the audit trail signs as the standard library writes it, faster: the
audit's checks decode every stored event, settlement and cause (``tables.replay``,
``ledger.signing``) and write again every signed body (``canonical``), and orjson does
both several times faster than ``json``.

orjson alone is not the standard verdict: it reads an integer past 64 bits as a float
(``123456789012345678901234567890`` -> ``1.2345678901234568e+29``) and refuses what
``json`` reads (``1e400``: infinity). So a text with a run of 19 digits or more (every
integer orjson could misread has one; a long fraction or a long string of digits only
costs the slower path) and a text orjson refuses go to ``json``: the value is always
``json.loads``'s, byte for byte of what it compares or signs.
"""

import json
import re

import orjson

#: ``bytes.translate``'s table: each ASCII digit to ``0``, every other byte to a space, so
#: that a run of digits is found by ``in`` (a regular expression looks at each character in
#: Python's engine: several times slower than orjson's whole parse).
_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
#: 19 digits in a row: the shortest text of an integer orjson may not read exactly.
_LONG_NUMBER = b"0" * 19


def loads(text: str | bytes):
    """``json.loads(text)``'s value, through orjson where it gives the same.

    Args:
        text: JSON text (``str`` or UTF-8 ``bytes``), e.g. a ``jsonb`` column read as text.
    Returns:
        the decoded value (dicts, lists, str, int, float, bool, None).
    Raises:
        ValueError (``json.JSONDecodeError``): the text is not JSON.
    """
    data = text.encode() if isinstance(text, str) else text
    if not _has_long_number(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(text)


def _has_long_number(data: bytes) -> bool:
    """Whether ``data`` holds 19 ASCII digits in a row."""
    return _LONG_NUMBER in data.translate(_DIGITS)


def normal(value):
    """``json.loads(json.dumps(value))``: ``value`` as it would read back from a ``jsonb``
    column (tuples as lists, keys as strings), through orjson where it gives the same.

    orjson refuses an integer past 64 bits and a key that is not a string, and writes a
    float NaN or infinity as ``null``: ``json`` does those (any ``null`` in orjson's text).

    Raises:
        TypeError, ValueError: as ``json.dumps`` for a value JSON cannot hold.
    """
    try:
        text = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError
        text = None
    if text is None or b"null" in text:
        return json.loads(json.dumps(value))
    return loads(text)


#: The canonical JSON signed by the audit trail (``tables.chain``, ``ledger.signing``): keys
#: sorted, no spaces, UTF-8 (no ``\\u`` escapes).
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
#: orjson's options for ``canonical``: keys sorted; a subclass of str, int, dict or list (a
#: model's choice, a lazy text), a dataclass and a datetime are not written by orjson
#: (``json`` writes the first as its value and refuses the others).
_ORJSON_CANONICAL = (orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_PASSTHROUGH_DATACLASS
                     | orjson.OPT_PASSTHROUGH_DATETIME)
#: Where orjson's float may not be json's: both write the shortest text that reads back the
#: same, in the same form, except between 1e-9 and 1e-4 (``1e-05``, ``1e-09``: json's
#: exponent has two digits, orjson's one or none: ``0.00001``, ``1e-9``). A text with
#: ``0.0000`` or a digit then ``e-`` is written by json (a string holding one only costs the
#: slower path). Looked for with ``in`` first (memchr's speed: a regular expression over the
#: whole text cost as much as json's encoding, 4.9 µs a ledger transaction).
_SMALL = b"0.0000"
_EXPONENT = re.compile(rb"[0-9]e-")


def canonical(value) -> str:
    """``json``'s canonical text of ``value``: ``json.dumps(value, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``, through orjson where it writes the same.

    orjson writes a float below 1e-4 in another form (``0.00001`` for ``1e-05``, ``1e-6``
    for ``1e-06``), refuses an integer past 64 bits, a key that is not a string and a lone
    surrogate: a text with such a float (``_SMALL``, ``_EXPONENT``) and a value orjson refuses go to
    ``json``. The texts agree on every other value (``tests/test_jsontext.py``, Hypothesis),
    so a body signed by either is checked by either. One difference is left, on values no
    signed row can hold: a NaN or an infinity, which orjson writes ``null`` and ``json``
    ``NaN`` (PostgreSQL's ``json`` refuses both, so no such value is ever stored), and an
    ``Enum`` that is not a str or an int, which orjson writes as its value and ``json``
    refuses (as the ``JSONField`` that would store it does).

    Raises:
        TypeError, ValueError: as ``json.dumps`` for a value JSON cannot hold.
    """
    try:
        text = orjson.dumps(value, option=_ORJSON_CANONICAL)
    except TypeError:  # orjson.JSONEncodeError
        return _CANONICAL.encode(value)
    if _SMALL in text or (b"e-" in text and _EXPONENT.search(text)):
        return _CANONICAL.encode(value)
    return text.decode()
