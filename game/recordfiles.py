"""Hand records from files, one at a time: memory stays flat over any number of hands.

A path may be a hand record (``*.json``), JSON Lines of records (``*.jsonl``,
``*.ndjson``: one record per non-empty line), a directory (its ``.json``/``.jsonl`` files
in name order), or ``-`` for one record on standard input.
"""

import errno
import json
import os
import sys

import orjson

JSON_LINES = (".jsonl", ".ndjson")
RECORD_SUFFIXES = (".json", *JSON_LINES)


class Source:
    """Where a record came from: ``file`` as given on the command line, ``line`` for
    JSON Lines (from 1), else None."""

    __slots__ = ("file", "line")

    def __init__(self, file, line=None):
        self.file = file
        self.line = line

    def __str__(self):
        return self.file if self.line is None else f"{self.file}:{self.line}"


#: What ``json`` says is wrong (its English ``msg``), as a code the shell words in the
#: reader's language.
JSON_FAULTS = {
    "Expecting value": "value",
    "Expecting ',' delimiter": "comma",
    "Expecting ':' delimiter": "colon",
    "Expecting property name enclosed in double quotes": "key",
    "Unterminated string starting at": "unterminated",
    "Invalid control character at": "control",
    "Invalid \\escape": "escape",
    "Invalid \\uXXXX escape": "escape",
    "Extra data": "extra",
}


class UnreadableRecord:
    """A record that could not be read or decoded.

    Attributes:
        message: why, in English (``manage.py settle`` prints it).
        code: why, for a program or a shell that words it in the reader's language:
            ``"json"`` (``params``: ``line``, ``column``, ``fault``: a ``JSON_FAULTS``
            value, ``"number"`` for a number too long to convert, else ``"syntax"``),
            ``"missing"``, ``"denied"``, ``"directory"`` (the file), ``"encoding"``
            (not UTF-8: ``params["position"]``, the byte), ``"depth"`` (nested past
            ``MAX_DEPTH``: ``params["field"]``, the record's field or "", and
            ``params["limit"]``), ``"unreadable"`` (another
            error of the system: ``params["errno"]``).
        params: the figures of ``code``.
    """

    __slots__ = ("code", "message", "params")

    def __init__(self, message, code="unreadable", **params):
        self.message = message
        self.code = code
        self.params = params


def _unreadable_file(error):
    """The ``UnreadableRecord`` of an ``OSError`` or ``UnicodeDecodeError``."""
    message = f"cannot read the file: {error}"
    if isinstance(error, UnicodeDecodeError):
        return UnreadableRecord(message, "encoding", position=error.start)
    code = {errno.ENOENT: "missing", errno.EACCES: "denied", errno.EISDIR: "directory"}.get(error.errno, "unreadable")
    return UnreadableRecord(message, code, errno=error.errno)


def read_record_files(paths, stdin=None):
    """Yield ``(Source, record)`` for every record under ``paths``, in order.

    Args:
        paths: file paths, directories, or ``-``.
        stdin: the text stream read for ``-`` (default ``sys.stdin``).
    Yields:
        ``(Source, dict | UnreadableRecord)``: the decoded JSON value (whatever its
        type), or why it could not be read (missing file, bad UTF-8, malformed JSON).
    """
    for path in paths:
        if path == "-":
            text = (stdin or sys.stdin).read()
            yield Source("-"), decode_record(text)
        elif os.path.isdir(path):
            names = sorted(n for n in os.listdir(path) if n.endswith(RECORD_SUFFIXES))
            for name in names:
                yield from _read_file(os.path.join(path, name))
        else:
            yield from _read_file(path)


def _read_file(path):
    try:
        if path.endswith(JSON_LINES):
            with open(path, encoding="utf-8") as stream:
                for number, line in enumerate(stream, 1):
                    if line.strip():
                        yield Source(path, number), decode_record(line)
            return
        with open(path, encoding="utf-8") as stream:
            text = stream.read()
    except (OSError, UnicodeDecodeError) as error:
        yield Source(path), _unreadable_file(error)
        return
    yield Source(path), decode_record(text)


#: The deepest nesting of arrays and objects a record may have: a hand record needs 3
#: (the record, its events, an event); deeper is refused before anything reads it, naming
#: the field, instead of Python's ``RecursionError`` in whatever walks it next.
MAX_DEPTH = 32


def decode_record(text):
    """The JSON value of ``text``: orjson for speed; where orjson refuses (integers past
    64 bits, NaN, nesting past its own limit), the standard library decides, so the
    verdict is the standard one. A value nested deeper than ``MAX_DEPTH`` is unreadable,
    naming the record's field it is in (found in the text, without parsing it)."""
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        deep = deep_field_in_text(text, MAX_DEPTH)
        if deep is not None:
            return _too_deep(deep)
        try:
            value = json.loads(text)
        except ValueError as error:  # JSONDecodeError, or a number too long to convert
            return malformed_json(error)
    if _plain_record(value, text):
        return value
    deep = deep_field(value, MAX_DEPTH)
    return value if deep is None else _too_deep(deep)


def _plain_record(value, text):
    """Is ``value``, decoded from JSON ``text``, an object nested at most 3 levels (itself,
    its fields, their items), as a hand record is? Its arrays and objects down to that
    level are counted, and their types read in C (``map(type, ...)``), and compared with
    the brackets opened in ``text`` (``[`` and ``{``, those in strings too): as many, and
    there is none deeper. False otherwise (``deep_field`` then decides)."""
    if type(value) is not dict:
        return False
    scalars = _SCALARS
    known = 1
    for field in _values(value):
        kind = type(field)
        if kind is list:
            known += 1
            kinds = set(map(type, field))
            if kinds == _DICT_ONLY:
                known += len(field)
            elif not kinds <= scalars:
                return False
        elif kind is dict:
            known += 1
            if not scalars.issuperset(map(type, _values(field))):
                return False
    return known == text.count("{") + text.count("[")


def _too_deep(field):
    """The ``UnreadableRecord`` (code ``depth``) of a record nested too deep in ``field``."""
    where = f"field {field}" if field else "the record"
    return UnreadableRecord(f"{where}: JSON nested more than {MAX_DEPTH} levels deep", "depth", field=field,
                            limit=MAX_DEPTH)


def deep_field(value, limit):
    """The record's field (its top-level key, ``""`` for the value itself) holding arrays
    and objects nested more than ``limit`` deep in ``value`` (parsed JSON), or None.
    A recursion at most ``limit`` deep first (a record passes in microseconds), then,
    for a record too deep, an iterative walk naming the field."""
    kind = type(value)
    if (kind is not dict and kind is not list) or _within(value, limit - 1):
        return None
    stack = [(value, 1, "")]
    while stack:
        current, depth, field = stack.pop()
        kind = type(current)
        if kind is not dict and kind is not list:
            continue
        if depth > limit:
            return field
        if kind is list:
            stack.extend((child, depth + 1, field) for child in current)
        elif depth == 1:  # the record's own fields name what is inside them
            stack.extend((child, 2, key) for key, child in current.items())
        else:
            stack.extend((child, depth + 1, field) for child in current.values())
    return None  # pragma: no cover - _within and the walk agree


#: The types of a JSON value that holds no array nor object.
_SCALARS = frozenset((str, int, float, bool, type(None)))
_values = dict.values
_DICT_ONLY = {dict}


def _within(value, budget):
    """Do ``value``'s arrays and objects nest at most ``budget`` levels below it?"""
    for child in value.values() if type(value) is dict else value:
        kind = type(child)
        if (kind is dict or kind is list) and (budget == 0 or not _within(child, budget - 1)):
            return False
    return True


def deep_field_in_text(text, limit):
    """As ``deep_field``, read from JSON ``text`` without parsing it (text too deep for a
    parser): the top-level key whose value opens more than ``limit`` arrays and objects,
    ``""`` if the value itself does outside any key, or None if it never does."""
    depth, key, last_string = 0, "", None
    in_string = escaped = False
    start = 0
    for position, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
                if depth == 1:
                    last_string = text[start:position]
        elif char == '"':
            in_string, start = True, position + 1
        elif char in "[{":
            depth += 1
            if depth > limit:
                return key
        elif char in "]}":
            depth -= 1
        elif char == ":" and depth == 1 and last_string is not None:
            key = last_string
    return None


def malformed_json(error):
    """The ``UnreadableRecord`` (code ``json``) of ``json``'s ``JSONDecodeError``, or of
    the ``ValueError`` of a number too long to convert (a ``UnicodeDecodeError``: code
    ``encoding``)."""
    if isinstance(error, UnicodeDecodeError):
        return UnreadableRecord(f"malformed JSON: {error}", "encoding", position=error.start)
    if isinstance(error, json.JSONDecodeError):
        return UnreadableRecord(f"malformed JSON: {error}", "json", line=error.lineno, column=error.colno,
                                fault=JSON_FAULTS.get(error.msg, "syntax"))
    return UnreadableRecord(f"malformed JSON: {error}", "json", line=None, column=None, fault="number")
