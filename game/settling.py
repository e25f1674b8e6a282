"""The core of ``manage.py settle``: one decoded hand record to the settlement it prints.

Pure Python (no Django): the command, the conformance tests and ``benchmarks/settle.py``
settle through ``settle_record``. [hand-record.md "Settling"]
"""

import sys

import orjson

from game.errors import IllegalEvent
from game.payouts import settle
from game.record import play_record
from game.recordfiles import UnreadableRecord, read_record_files


def settle_record(record):
    """The printed settlement of one decoded record (without its ``file``), or its error.

    Args:
        record: a decoded hand record, or ``recordfiles.UnreadableRecord``.
    Returns:
        ``(result dict, valid)``: ``{"bets", "players", "bank", "commission",
        "next_bank"}`` (with the record's ``table`` and ``number`` when it has them) or
        ``{"error": {"event", "message"}}``.
    """
    if isinstance(record, UnreadableRecord):
        return {"error": {"event": 0, "message": record.message}}, False
    try:
        settlement = settle(play_record(record))
    except IllegalEvent as error:
        return {"error": error.as_dict()}, False
    result = settlement.as_dict()
    for key in ("table", "number"):
        if key in record:
            result[key] = record[key]
    return result, True


#: Lines written at once by ``settle_files`` (one write a chunk, not one a line).
WRITE_CHUNK = 1000


def settle_files(paths, write, stdin=None):
    """Settle every record under ``paths`` as ``manage.py settle`` prints them.

    Args:
        paths: files, JSON Lines files, directories or ``-`` (``recordfiles.read_record_files``).
        write: called with text (``str``) holding whole lines, each ending in a newline:
            one JSON object per record, in order (``{"file", "line"?, ...settle_record}``),
            ``WRITE_CHUNK`` lines a call at most (the output's memory stays flat).
        stdin: the text stream read for ``-`` (default ``sys.stdin``).
    Returns:
        int: how many records were invalid (the command then exits with status 2).
    """
    invalid = 0
    dumps = orjson.dumps
    lines = []
    add = lines.append
    for source, record in read_record_files(paths, stdin=stdin):
        result, valid = settle_record(record)
        invalid += not valid
        head = {"file": source.file}
        if source.line is not None:
            head["line"] = source.line
        head.update(result)
        add(dumps(head))
        if len(lines) == WRITE_CHUNK:
            write(_joined(lines))
            lines.clear()
    if lines:
        write(_joined(lines))
    return invalid


def _joined(lines):
    lines.append(b"")
    return b"\n".join(lines).decode()


def main(argv=None):
    """``manage.py settle FILE...`` without Django (``manage.py`` runs it so when given
    only paths: the command needs no setting, no database, no app): prints what
    ``tables/management/commands/settle.py`` prints, and exits as it does (status 2 and
    ``CommandError: N invalid record(s)`` on standard error when any record is invalid).

    Args:
        argv: the paths (default ``sys.argv[2:]``, after ``manage.py settle``).
    Returns:
        int: the exit status, 0 or 2.
    """
    paths = sys.argv[2:] if argv is None else argv
    invalid = settle_files(paths, sys.stdout.write)
    sys.stdout.flush()
    if invalid:
        sys.stderr.write(f"CommandError: {invalid} invalid record(s)\n")
        return 2
    return 0
