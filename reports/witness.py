"""Seals kept outside the database: every stored report's seal, written to a witness the
database's users cannot rewrite.

Each report ``reports.services.report_store`` stores is also written, in the same
transaction before it commits, as one line of JSON to the witness: the file
``seals-<this database's witness identity>.jsonl`` in the directory ``SEAL_WITNESS_DIR`` (its own volume in
``docker-compose.yml``), opened for appending only, and one line of the process's log
(logger ``reports.witness``, to standard error in production). A casino points the
directory at a write-once store (a WORM mount, an object store with retention, a
directory its backup ships each night to the regulator) and its log collector at its own
archive: someone holding the database, even its owner with the chain's key, can then
rewrite a report and its seal in PostgreSQL but not the witness.

A line: ``report`` (id), ``key``, ``version``, ``at_close``, ``table``, ``shift``,
``seal`` (the report's ``result["seal"]``: the chain head of its shift's entries, and
whatever heads a later seal adds; None for a bank-rotation report), ``result_sha256``
(SHA-256 of the stored result as canonical JSON), ``computed_at`` and ``written_at``
(ISO 8601, UTC), and ``prev`` (SHA-256 of the line before it, ``""`` for the first): a
line edited or removed in the file breaks the lines after it.

``witness_faults`` compares every stored report with its line: ``manage.py ledger_check``
and each table's integrity page run it (``reports.integrity``).
"""

import fcntl
import hashlib
import json
import logging
import os
import uuid
from datetime import UTC, datetime
from pathlib import Path

from django.conf import settings
from django.db import connection

logger = logging.getLogger("reports.witness")



def witness_identity(*, create: bool = False) -> str | None:
    """This database's witness identity (``reports.models.WitnessIdentity``), a UUID as
    text; made now when ``create`` and there is none yet, else None."""
    from reports.models import WitnessIdentity

    found = WitnessIdentity.objects.values_list("uuid", flat=True).first()
    if found is None and create:
        with connection.cursor() as cursor:  # two first reports at once: one row wins
            cursor.execute("INSERT INTO reports_witnessidentity (one, uuid, created_at) VALUES (true, %s, now()) "
                           "ON CONFLICT (one) DO NOTHING", [uuid.uuid4()])
        found = WitnessIdentity.objects.values_list("uuid", flat=True).first()
    return None if found is None else str(found)


def witness_path(identity: str) -> Path:
    """The witness file of the database named ``identity``:
    ``SEAL_WITNESS_DIR/seals-<identity>.jsonl``."""
    return Path(settings.SEAL_WITNESS_DIR) / f"seals-{identity}.jsonl"


def result_digest(result) -> str:
    """SHA-256 (hex) of a report's result as canonical JSON (keys sorted, no spaces):
    the same for the dict stored and the dict PostgreSQL's jsonb gives back."""
    text = json.dumps(result, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def witness_report(report) -> dict:
    """Append ``report``'s line to the witness and log it (the module's docstring).

    Args:
        report: a stored ``reports.models.Report`` (its ``result`` as read back from
            the database, so that its digest is the one a later check computes).
    Returns:
        the line written, as a dict.
    Raises:
        OSError: the witness directory cannot be created or written (the caller's
            transaction rolls back: a report is never stored without its witness).
    """
    seal = report.result.get("seal") if isinstance(report.result, dict) else None
    line = {"report": report.pk, "key": report.key, "version": report.version, "at_close": report.at_close,
            "table": report.table_id, "shift": report.shift_id, "seal": seal,
            "result_sha256": result_digest(report.result), "computed_at": report.computed_at.isoformat(),
            "written_at": datetime.now(UTC).isoformat()}
    path = witness_path(witness_identity(create=True))
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
    with open(descriptor, "ab") as appender, open(path, "rb") as reader:
        fcntl.flock(appender, fcntl.LOCK_EX)  # one writer at a time: ``prev`` is the last line's
        line["prev"] = _last_line_hash(reader)
        text = json.dumps(line, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        appender.write(text.encode("utf-8") + b"\n")
        appender.flush()
        os.fsync(appender.fileno())
    logger.info("seal witnessed: %s", text)
    return line


def _last_line_hash(reader) -> str:
    reader.seek(0, os.SEEK_END)
    size = reader.tell()
    if not size:
        return ""
    start = max(0, size - 65536)
    while True:
        reader.seek(start)
        tail = reader.read(size - start)
        body = tail[:-1] if tail.endswith(b"\n") else tail
        cut = body.rfind(b"\n")
        if cut >= 0 or start == 0:
            return hashlib.sha256(body[cut + 1:]).hexdigest()
        start = max(0, start - 65536)


def read_witness(path: Path | None = None) -> tuple[dict[int, dict], list[dict]]:
    """The witness's lines by report id, and the faults of the file itself (this
    database's file unless ``path``; none yet: no line, no fault).

    Returns:
        ``({report id: line}, faults)``; a fault is ``{"code": "witness_broken", "line":
        n}`` (the line's ``prev`` is not the hash of the line before: a line edited or
        removed) or ``{"code": "witness_unreadable", "line": n}`` (not JSON).
    """
    lines, faults, previous = {}, [], ""
    if path is None:
        identity = witness_identity()
        if identity is None:
            return lines, faults
        path = witness_path(identity)
    if not path.exists():
        return lines, faults
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, start=1):
            body = raw.rstrip(b"\n")
            try:
                line = json.loads(body)
            except ValueError:
                faults.append({"code": "witness_unreadable", "line": number})
                previous = hashlib.sha256(body).hexdigest()
                continue
            if line.get("prev") != previous:
                faults.append({"code": "witness_broken", "line": number})
            previous = hashlib.sha256(body).hexdigest()
            lines[line.get("report")] = {**line, "line": number}
    return lines, faults


def witness_file_faults() -> list[dict]:
    """The faults of this database's witness file itself (``read_witness``)."""
    return read_witness()[1]


def witness_faults(table=None) -> list[dict]:
    """Every stored report against its witness line (of ``table``'s reports only, if given).

    Returns:
        list of dicts with ``code``: ``report_unwitnessed`` (``report``, ``key``,
        ``version``: stored but never witnessed: inserted by SQL, or witnessed to another
        directory), ``seal_replaced`` (``report``, ``key``, ``version``, ``line``: its seal
        or its result is not the one witnessed: rewritten after it was stored, the key's
        holder included), ``report_gone`` (``report``, ``key``, ``version``, ``line``:
        witnessed, not in the database: deleted), and, without ``table``, the file's own
        faults first (``read_witness``).
    """
    from reports.models import Report

    lines, file_faults = read_witness()
    faults = file_faults if table is None else []
    reports = Report.objects.order_by("pk")
    if table is not None:
        reports = reports.filter(table=table)
    seen = set()
    for pk, key, version, result in reports.values_list("pk", "key", "version", "result").iterator(chunk_size=200):
        seen.add(pk)
        line = lines.get(pk)
        if line is None:
            faults.append({"code": "report_unwitnessed", "report": pk, "key": key, "version": version})
            continue
        seal = result.get("seal") if isinstance(result, dict) else None
        if (line.get("key"), line.get("version"), line.get("seal"), line.get("result_sha256")) != (
                key, version, seal, result_digest(result)):
            faults.append({"code": "seal_replaced", "report": pk, "key": key, "version": version,
                           "line": line["line"]})
    for pk, line in sorted(lines.items(), key=lambda item: item[1]["line"]):
        if pk not in seen and (table is None or line.get("table") == table.pk):
            faults.append({"code": "report_gone", "report": pk, "key": line.get("key"),
                           "version": line.get("version"), "line": line["line"]})
    return faults
