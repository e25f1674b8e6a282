"""The core of ``manage.py settle``: one decoded hand record to the settlement it prints.

Pure Python (no Django): the command, the conformance tests and ``benchmarks/settle.py``
settle through ``settle_record``. [hand-record.md "Settling"]
"""

from game.errors import IllegalEvent
from game.payouts import settle
from game.record import play_record
from game.recordfiles import UnreadableRecord


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
