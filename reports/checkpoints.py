"""The audit's checks run from a sealed checkpoint: the full check (``ledger_check --full``)
over everything, in chunks that may run in parallel, and the incremental check
(``ledger_check``, nightly by beat) over what was added since the last checkpoint.

A *chunk* is the ledger's part, one table's, or one range of a table's hands and entries
when it has more to check than ``AUDIT_CHUNK_HANDS`` (``table_ranges``: so that one busy
table's history is spread over the workers too). ``check_chunk`` is the
one code path of a chunk, full or incremental: a chunk's spec carries the point it starts
from (``since``; None: from the genesis), and the chunk returns its faults and the point
it reached:

- the ledger's part: every transaction after ``since``'s signed and chained from its
  signature, balanced, its reversal mirrored, justified by its business record, a hand
  posting's hand there; every account's balance against its sum at ``since`` plus its
  new entries (``ledger.selectors.ledger_scan``); and, whole (a few rows each), the
  players' chips, the slips' numbers, the syndicates' shares, the seals' witness file and
  the signed monthly statements;
- a table's part: its keyed chain of entries after ``since``'s entry, continuing from its
  hash (``tables.integrity.chain_scan``); the new hands' signed openings and numbers; the
  hands replayed that are new or have an entry after ``since`` (a void, a hand finished
  since); and, whole, its stored reports' seals against the chain and the witness.

``check_run`` verifies the checkpoints' own seals (``checkpoint_faults``: the latest's, or
every one's in a full run), runs the
chunks (in Celery workers, one task a chunk, when a worker and a result backend are there
and the run is not itself inside a task; else one after the other in this process),
gathers them (a table's ranges merged into what the table checked whole gives:
``merge_results``), and stores a new ``CheckPoint`` sealed and chained to the one before. What
an incremental check can and cannot see: docs/security.md, "Incremental checks".
"""

import gc
import hmac
import json
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone, translation

from casino.keys import current_key_id, hmac_hex, secret
from ledger.models import Transaction
from ledger.selectors import ledger_scan
from reports.justification import orphan_transactions
from reports.models import CheckPoint
from reports.services import snapshot
from reports.statements import statement_faults
from reports.texts import exception_text
from reports.witness import witness_faults, witness_file_faults
from tables.chain import GENESIS
from tables.integrity import chain_scan, number_gaps, opening_text
from tables.models import Hand, HandEvent, Table
from tables.replay import ReplayFeed, fault_text, postings_without_hand

#: Seconds to wait for a Celery worker to answer before running the chunks here.
PING_SECONDS = 1.0
#: Seconds to wait for the chunks' results from the workers.
RESULT_SECONDS = 6 * 3600


def chunk_specs(state: dict | None) -> list[dict]:
    """The chunks of a run starting from ``state`` (a checkpoint's ``state``; None: the
    full check): ``[{"part": "ledger", "since": …}, {"part": "table", "table": id,
    "since": …}, …]``, per table by id; a table the state does not know starts from the
    genesis. A table with more hands to check than ``AUDIT_CHUNK_HANDS`` is split into
    ranges (``table_ranges``), one chunk each, in order, each with its ``"range"``."""
    return list(iter_chunk_specs(state))


def iter_chunk_specs(state: dict | None) -> Iterator[dict]:
    """``chunk_specs``'s, one at a time: the ledger's first, before the tables' ranges are
    worked out (``run_chunks`` sends each as it comes: a worker starts on the ledger's
    while the ranges' bounds are read, which took 1.7 s at 1,000,000 hands with both
    cores otherwise idle: benchmarks/RESULTS.md, "audit incremental")."""
    state = state or {}
    tables = state.get("tables") or {}
    yield {"part": "ledger", "since": state.get("ledger")}
    for pk in Table.objects.order_by("pk").values_list("pk", flat=True):
        since = tables.get(str(pk))
        ranges = table_ranges(pk, since)
        if len(ranges) == 1:
            yield {"part": "table", "table": pk, "since": since}
        else:
            for each in ranges:
                yield {"part": "table", "table": pk, "since": since, "range": each}


#: Every ``size``-th hand of a table after a hand id (not the last hand), and the greatest
#: id of that hand's entries: where its ranges end.
_BOUNDS_SQL = """
SELECT b.id, (SELECT max(e.id) FROM tables_handevent e WHERE e.hand_id = b.id)
  FROM (SELECT id, row_number() OVER (ORDER BY id) AS n, count(*) OVER () AS total
          FROM tables_hand WHERE table_id = %s AND id > %s) b
 WHERE b.n %% %s = 0 AND b.n < b.total ORDER BY b.id"""


def table_ranges(table_id: int, since: dict | None, size: int | None = None) -> list[dict]:
    """A table's check from ``since`` (its state in a checkpoint; None: from the genesis)
    split into ranges of ``size`` hands (default ``AUDIT_CHUNK_HANDS``), in order:
    ``[{"index", "last", "hands": [after, upto], "entries": [after, upto]}, …]``, each
    range the hands of an id in ``(after, upto]`` and the entries of an id in ``(after,
    upto]`` (``upto`` None on the last: to the end). A range's entries end at the greatest
    entry of its last hand (never before the range before's end): every entry and every
    hand after ``since`` is in exactly one range, whatever the order they were entered in.
    One range (the whole table) when it has ``size`` hands or fewer to check."""
    since = since or {}
    after_hand, after_entry = int(since.get("hand") or 0), int(since.get("entry") or 0)
    size = max(1, int(size or settings.AUDIT_CHUNK_HANDS))
    with connection.cursor() as cursor:
        cursor.execute(_BOUNDS_SQL, [table_id, after_hand, size])
        bounds = cursor.fetchall()
    ranges, hand, entry = [], after_hand, after_entry
    for upto_hand, upto_entry in bounds:
        upto_entry = max(entry, upto_entry or 0)
        ranges.append({"index": len(ranges), "last": False, "hands": [hand, upto_hand], "entries": [entry, upto_entry]})
        hand, entry = upto_hand, upto_entry
    ranges.append({"index": len(ranges), "last": True, "hands": [hand, None], "entries": [entry, None]})
    return ranges


def check_chunk(spec: dict) -> dict:
    """Check one chunk (the module's docstring), in one REPEATABLE READ snapshot, without
    PostgreSQL's JIT.

    Args:
        spec: one of ``chunk_specs``'s (JSON: what a Celery task carries).
    Returns:
        ``{"part", "table", "faults": [English text], "state": the point reached,
        "hands", "entries", "transactions": how many were checked}``.
    """
    with translation.override(None), snapshot(), _fewer_collections():
        if connection.in_atomic_block:
            with connection.cursor() as cursor:
                # No JIT: the orphans' one query (reports.justification) has a plan big enough for
                # PostgreSQL to compile it, seconds of compiling for a query of 0.1 s
                # (benchmarks/RESULTS.md, "audit incremental"); the others gain nothing from it.
                cursor.execute("SET LOCAL jit = off")
                cursor.execute("SET LOCAL max_parallel_workers_per_gather = 0")
        if spec["part"] == "ledger":
            return _ledger_chunk(spec.get("since"))
        return _table_chunk(Table.objects.get(pk=spec["table"]), spec.get("since"), spec.get("range"))


#: The cyclic garbage collector's first threshold during a chunk (Python's default: 700).
COLLECT_AFTER = 50_000


@contextmanager
def _fewer_collections():
    """The cyclic garbage collector run less often during a chunk: what the process holds
    already frozen (never scanned again), the youngest generation collected after
    ``COLLECT_AFTER`` new objects, not 700. A chunk makes millions of short-lived dicts and
    lists (decoded events, bets, settlements), freed by their counts, without cycles; with
    the default thresholds the collector took an eighth of a chunk's CPU (py-spy;
    benchmarks/RESULTS.md, "audit incremental"). Restored after; peak memory unchanged. A
    process that froze objects itself (a server's preloaded code) keeps them frozen."""
    thresholds = gc.get_threshold()
    ours = gc.get_freeze_count() == 0
    if ours:
        gc.freeze()
    gc.set_threshold(COLLECT_AFTER, *thresholds[1:])
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if ours:
            gc.unfreeze()


def _ledger_chunk(since):
    after_id = int((since or {}).get("transaction") or 0)
    faults, state = ledger_scan(since=since)
    faults += [exception_text(fault) for fault in orphan_transactions(after_id=after_id)]
    faults += [fault_text(fault) for fault in postings_without_hand(Transaction.objects.filter(pk__gt=after_id))]
    faults += [exception_text(fault) for fault in witness_file_faults() + statement_faults()]
    checked = Transaction.objects.filter(pk__gt=after_id, pk__lte=state["transaction"]).count()
    return {"part": "ledger", "table": None, "faults": faults, "state": state, "hands": 0, "entries": 0,
            "transactions": checked}


def _table_chunk(table, since, part=None):
    """A table's chunk: the whole table from ``since``, or one of its ranges (``part``,
    ``table_ranges``'s). A range checks the chain over its own entries, continuing from
    the stored hash of the table's entry just before them (the range before verified that
    entry: a changed or removed entry at a range's end is found by one range or the
    other), the openings of its own hands and replays them; the first range also replays
    the earlier hands with an entry since (an incremental run's), the last one compares
    the table's last entry, looks for gaps in the numbers and checks the seals, and its
    point is the table's. ``"sections"``: how many of ``"faults"`` are the replay's, the
    chain's and the openings' (the rest: the table's whole), for ``merge_results``."""
    since = since or {}
    after_entry, after_hand = int(since.get("entry") or 0), int(since.get("hand") or 0)
    part = part or {"index": 0, "last": True, "hands": [after_hand, None], "entries": [after_entry, None]}
    first, last = part["index"] == 0, part["last"]
    (hand_from, hand_upto), (entry_from, entry_upto) = part["hands"], part["entries"]
    if first:
        start, head = after_entry, since.get("head") or GENESIS
    else:  # from the entry before the range: verified by the range before (read in this snapshot)
        start, head = (HandEvent.objects.filter(table=table, pk__lte=entry_from).order_by("-pk")
                       .values_list("pk", "hash").first() or (0, GENESIS))
    if last:
        last_hand = (Hand.objects.filter(table=table).order_by("-pk").values_list("pk", flat=True).first()
                     or hand_from)
    else:
        last_hand = hand_upto
    hands = _replayed_hands(table, since, hand_from=hand_from, last_hand=last_hand, first=first)
    # The hands replayed from the chain check's one read of the entries (ReplayFeed), the
    # openings of the range's own hands checked from the rows the replay reads.
    feed = ReplayFeed(hands, openings_after=hand_from)
    chain, last_entry, head, entries = chain_scan(table, after_id=start, head=head, upto=entry_upto, feed=feed,
                                                  numbers=feed.numbers)
    replayed = [fault_text(fault) for fault in feed.faults()]
    openings = [opening_text(code, number) for number, code in feed.openings]
    whole = []
    if last:
        gaps = number_gaps(table, after=int(since.get("number") or 0))
        if gaps:
            whole.append("missing hand numbers: " + ", ".join(map(str, gaps[:100])))
        whole += [exception_text(fault) for fault in _seal_faults(table)]
    state = {"entry": last_entry, "head": head, "hand": last_hand, "number": table.last_hand_number}
    mine = [f"{table.name}: {fault}" for fault in chain + openings + whole]
    return {"part": "table", "table": table.pk, "faults": replayed + mine, "state": state,
            "hands": feed.hands, "entries": entries,
            "transactions": 0, "sections": [len(replayed), len(chain), len(openings)]}


def _replayed_hands(table, since, *, hand_from, last_hand, first):
    """The hands a table's chunk replays: those of an id in ``(hand_from, last_hand]``,
    and in the first range of an incremental run the earlier hands with an entry since."""
    touched = Q(pk__gt=hand_from)
    after_entry, after_hand = int(since.get("entry") or 0), int(since.get("hand") or 0)
    if first and after_entry:
        # The earlier hands with an entry since (a void, a hand finished since: a few), as a
        # list: "id > n OR id IN (subquery)" made PostgreSQL read every hand and hash every
        # ledger transaction of the history for the replay's join; "id > n OR id IN (list)"
        # reads the new hands and those by their index.
        earlier = set(HandEvent.objects.filter(table=table, pk__gt=after_entry, hand_id__lte=after_hand)
                      .values_list("hand_id", flat=True))
        if earlier:
            touched |= Q(pk__in=sorted(earlier))
    return Hand.objects.filter(table=table, pk__lte=last_hand).filter(touched)


def merge_results(results: list[dict]) -> list[dict]:
    """The chunks' results (``check_chunk``'s, in ``chunk_specs``'s order) as one a part:
    a table's ranges made one result, as the table checked whole would give: its faults
    the replay's of every range, then the chain's, the openings', the rest; its counts
    summed; its point the last range's. Each result gets ``"chunks"``: how many it was."""
    merged = []
    for result in results:
        previous = merged[-1] if merged else None
        if previous is None or result["part"] != "table" or previous["table"] != result["table"]:
            merged.append({**result, "chunks": 1})
            continue
        both = [previous, result]
        sections = [[], [], [], []]
        for each in both:
            faults, (replay, chain, openings) = each["faults"], each["sections"]
            cuts = [0, replay, replay + chain, replay + chain + openings, len(faults)]
            for index in range(4):
                sections[index] += faults[cuts[index]:cuts[index + 1]]
        merged[-1] = {**result, "faults": [fault for section in sections for fault in section],
                      "hands": previous["hands"] + result["hands"], "entries": previous["entries"] + result["entries"],
                      "sections": [len(section) for section in sections[:3]], "chunks": previous["chunks"] + 1}
    return merged


def _seal_faults(table):
    from reports.audit import seal_faults

    return seal_faults(table) + witness_faults(table)


# ---------------------------------------------------------------------------------------
# The checkpoints' seals


def _body(*, full, started_at, state, fault_count, faults) -> str:
    return json.dumps({"full": bool(full), "started_at": started_at.isoformat(), "state": state,
                       "fault_count": int(fault_count), "faults": faults},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def checkpoint_seal(*, key_id: str, previous: str, full: bool, started_at: datetime, state: dict,
                    fault_count: int, faults: list) -> str | None:
    """The seal of a checkpoint's fields (HMAC-SHA256 hex under the key ``key_id``, over
    ``"checkpoint"``, the key id, the previous checkpoint's seal and the fields as
    canonical JSON); None when this server does not hold that key."""
    key = secret(key_id)
    if key is None:
        return None
    body = _body(full=full, started_at=started_at, state=state, fault_count=fault_count, faults=faults)
    return hmac_hex(key, f"checkpoint\n{key_id}\n{previous}\n{body}")


def checkpoint_faults(*, whole: bool = False) -> tuple[list[str], CheckPoint | None]:
    """The checkpoints' seals and links checked: the latest's seal and its link to the one
    before it (what an incremental run rests on: its state), or (``whole``: the full
    check) every checkpoint's, oldest first.

    Returns:
        ``(faults in English, the latest checkpoint if its seal and link hold and, with
        ``whole``, every other's too; else None)``: a checkpoint whose seal is not its
        fields' (forged or altered: its state could skip what was changed), one sealed
        with a key this server does not hold, or one that does not follow the one before
        (one removed or inserted between) is named, and the next run is then a full check.
    """
    faults, previous, latest = [], GENESIS, None
    points = CheckPoint.objects.order_by("pk").only("full", "started_at", "state", "fault_count", "faults",
                                                    "previous", "seal", "key_id")
    if not whole:
        last = points.last()
        if last is None:
            return [], None
        previous = (CheckPoint.objects.filter(pk__lt=last.pk).order_by("-pk").values_list("seal", flat=True).first()
                    or GENESIS)
        points = [last]
    else:
        points = points.iterator(chunk_size=20)
    for point in points:
        if point.previous != previous:
            faults.append(f"audit checkpoint #{point.pk} does not follow the checkpoint before it: checkpoints "
                          "were removed or added outside the check")
        expected = checkpoint_seal(key_id=point.key_id, previous=point.previous, full=point.full,
                                   started_at=point.started_at, state=point.state, fault_count=point.fault_count,
                                   faults=point.faults)
        if expected is None:
            faults.append(f"audit checkpoint #{point.pk} is sealed with a key this server does not hold")
        elif not hmac.compare_digest(expected, point.seal):
            faults.append(f"audit checkpoint #{point.pk} does not match its seal: it was forged or altered")
        previous, latest = point.seal, point
    return faults, (None if faults else latest)


# ---------------------------------------------------------------------------------------
# A run


def _fan_out() -> bool:
    """Whether the chunks go to Celery workers: not eager, a result backend to gather
    them, not inside a task (a task waiting for others could hold the last worker), and
    a worker answers."""
    from celery import current_task

    from casino.celery import app

    if settings.CELERY_TASK_ALWAYS_EAGER or not app.conf.result_backend or current_task:
        return False
    try:
        # The first answer is enough (limit=1): without a limit, ping waits the whole timeout.
        return bool(app.control.ping(timeout=PING_SECONDS, limit=1))
    except Exception:  # noqa: BLE001 - the broker down: this process does the work
        return False


def run_chunks(specs: Iterable[dict], *, fan_out: bool | None = None) -> tuple[list[dict], str]:
    """Each chunk's ``check_chunk``, in the specs' order, a table's ranges merged into one
    result (``merge_results``).

    Args:
        specs: ``chunk_specs``'s, or ``iter_chunk_specs``'s (each sent as it comes).
        fan_out: send each chunk to a Celery worker (task ``reports.check_chunk``) and
            gather the results; None: when ``_fan_out`` says workers are there.
    Returns:
        ``(results, "celery" or "process")``.
    """
    if fan_out is None:
        fan_out = _fan_out()
    if not fan_out:
        return merge_results([check_chunk(spec) for spec in specs]), "process"
    from celery.result import ResultSet

    from reports.tasks import check_chunk_task

    sent = ResultSet([check_chunk_task.apply_async((spec,)) for spec in specs])
    return merge_results(sent.get(timeout=RESULT_SECONDS, propagate=True)), "celery"


def check_run(*, full: bool = False, fan_out: bool | None = None) -> CheckPoint:
    """Run the audit's checks and store their checkpoint.

    Args:
        full: everything from the genesis (``ledger_check --full``); else from the latest
            checkpoint when the checkpoints' seals hold (the first run, or one after a
            broken seal, is full).
        fan_out: as ``run_chunks``.
    Returns:
        the stored ``CheckPoint`` (its ``faults`` in English: the checkpoints' own first,
        then the ledger's, then each table's).
    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set.
    """
    started_at, started = timezone.now(), time.perf_counter()
    faults, latest = checkpoint_faults(whole=full)
    full = full or latest is None
    results, workers = run_chunks(iter_chunk_specs(None if full else latest.state), fan_out=fan_out)
    state = {"ledger": results[0]["state"],
             "tables": {str(result["table"]): result["state"] for result in results[1:]}}
    for result in results:
        faults += result["faults"]
    kept = faults[:CheckPoint.FAULT_LIMIT]
    key_id = current_key_id()
    with transaction.atomic():
        with connection.cursor() as cursor:  # one checkpoint written at a time: each follows the one before
            cursor.execute("SELECT pg_advisory_xact_lock(hashtext('reports_checkpoint'))")
        previous = CheckPoint.objects.order_by("-pk").values_list("seal", flat=True).first() or GENESIS
        return CheckPoint.objects.create(
            full=full, started_at=started_at, finished_at=timezone.now(),
            seconds=round(time.perf_counter() - started, 3), chunks=sum(r["chunks"] for r in results),
            workers=workers,
            hands=sum(r["hands"] for r in results), entries=sum(r["entries"] for r in results),
            transactions=sum(r["transactions"] for r in results), state=state, fault_count=len(faults),
            faults=kept, previous=previous, key_id=key_id,
            seal=checkpoint_seal(key_id=key_id, previous=previous, full=full, started_at=started_at, state=state,
                                 fault_count=len(faults), faults=kept))


def latest_checkpoints(count: int = 10) -> list[CheckPoint]:
    """The latest ``count`` checkpoints, newest first (the integrity page)."""
    return list(CheckPoint.objects.order_by("-pk").defer("state")[:count])
