"""Hand records from files, one at a time: memory stays flat over any number of hands.

A path may be a hand record (``*.json``), JSON Lines of records (``*.jsonl``,
``*.ndjson``: one record per non-empty line), a directory (its ``.json``/``.jsonl`` files
in name order), or ``-`` for one record on standard input.
"""

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


class UnreadableRecord:
    """A record that could not be read or decoded: ``message`` says why."""

    __slots__ = ("message",)

    def __init__(self, message):
        self.message = message


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
        yield Source(path), UnreadableRecord(f"cannot read the file: {error}")
        return
    yield Source(path), decode_record(text)


def decode_record(text):
    """The JSON value of ``text``: orjson for speed; where orjson refuses (integers past
    64 bits, NaN), the standard library decides, so the verdict is the standard one."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(text)
    except ValueError as error:  # JSONDecodeError, or a number too long to convert
        return UnreadableRecord(f"malformed JSON: {error}")
