"""JSON text read back from the database as the standard library reads it, faster: the
audit's checks decode every stored event, settlement and cause (``tables.replay``,
``ledger.signing``), and orjson does it several times faster than ``json``.

orjson alone is not the standard verdict: it reads an integer past 64 bits as a float
(``123456789012345678901234567890`` -> ``1.2345678901234568e+29``) and refuses what
``json`` reads (``1e400``: infinity). So a text with a run of 19 digits or more (every
integer orjson could misread has one; a long fraction or a long string of digits only
costs the slower path) and a text orjson refuses go to ``json``: the value is always
``json.loads``'s, byte for byte of what it compares or signs.
"""

import json

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
