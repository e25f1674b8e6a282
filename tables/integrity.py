"""Checks an auditor runs on a table's records: the hash chain, the hands' signed openings,
the hand numbers, and what
the apps above the tables register (``register_table_check``: the reports app adds the
table's hands replayed and the seals of its stored reports), all shown on the table's
integrity page (``table_faults``)."""

from typing import NamedTuple

from django.db import connection
from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino.jsontext import loads
from tables.chain import GENESIS, AtUtc, EntryChecker, opening_fault
from tables.models import Hand, HandEvent, Table

#: Entries per round trip of the chain check's server-side cursor.
CHAIN_BATCH = 5000

#: An entry whose previous hash is not the hash of the entry before it.
LINK_WORDS = gettext_lazy("entry %(seq)s of hand #%(hand)s does not follow the entry before it")
#: What each of ``tables.chain.entry_fault``'s answers says of an entry.
FAULT_WORDS = {
    "changed": gettext_lazy("entry %(seq)s of hand #%(hand)s was changed after it was entered"),
    "unkeyed": gettext_lazy("entry %(seq)s of hand #%(hand)s is not signed with the audit trail's key"),
    "unknown_key": gettext_lazy("entry %(seq)s of hand #%(hand)s is signed with a key this server does not hold"),
}


def chain_faults(table: Table) -> list[str]:
    """Every break in the table's keyed chain of entries, in words; empty if intact.

    Each entry's HMAC is recomputed with the key (``tables.chain``) from its content and
    the previous entry's hash; a changed entry, a removed one or a reordered one breaks the
    chain from there, and so does one rehashed without the key. The entries are read as
    tuples through a server-side cursor, their events as text (``EntryChecker``).
    """
    return chain_scan(table)[0]


class ChainScan(NamedTuple):
    """What ``chain_scan`` found and where it stopped."""

    #: Every break, in words.
    faults: list[str]
    #: The last entry's id (``after_id`` when none was read).
    last_id: int
    #: The last entry's stored hash (``head`` when none was read).
    head: str
    #: How many entries were read.
    entries: int


def chain_scan(table: Table, *, after_id: int = 0, head: str = GENESIS, upto: int | None = None,
               feed=None, numbers: dict[int, int] | None = None) -> ChainScan:
    """``chain_faults`` over the table's entries after entry ``after_id`` only, the chain
    continuing from ``head`` (an incremental check, ``reports.checkpoints``: the last
    entry a check verified and its hash). With ``after_id`` 0, every entry from the
    genesis.

    The entry ``after_id`` is read again: gone, or its hash no longer ``head`` (rewritten,
    even by the key's holder who recomputed the chain after it), is a fault; an entry
    before it is not read (``ledger_check --full`` reads them).

    ``upto``: only the entries up to that id (one range of a table's chain checked in
    parallel ranges, ``reports.checkpoints``), and then the table's last entry is not
    compared (the last range's check does it).

    ``feed``: given each batch of entries read, after its check, as ``feed.extend(entries)``,
    an iterable of ``(hand_id, sequence, kind, event)``, ``event`` decoded once for the check
    and the feed (``EntryChecker.check_rows``'s ``events``; ``tables.replay.ReplayFeed``: the
    hands replayed from this one read).

    ``numbers``: ``{hand id: number}`` already read (``ReplayFeed.numbers``); the numbers of
    the other hands an entry is read of are read a batch at a time.

    Returns:
        ``ChainScan(faults in words, the last entry's id, its hash, how many entries were
        read)`` (``after_id``, ``head``, 0 when there is no entry after it).
    """
    faults = []
    previous = head
    if after_id:
        now = HandEvent.objects.filter(table=table, pk=after_id).values_list("hash", flat=True).first()
        if now != head:
            faults.append(_("entry #%(entry)s, where the last check ended, was changed or removed since")
                          % {"entry": after_id})
    checker, table_id = EntryChecker(), table.pk
    last_id, read = after_id, 0
    given, numbers = numbers, dict(numbers or {})  # the caller's left as it is
    entries = HandEvent.objects.filter(table=table, pk__gt=after_id)
    if upto is not None:
        entries = entries.filter(pk__lte=upto)
    rows = (entries.order_by("id")
            .values_list("hand_id", "sequence", "kind", Cast("event", TextField()), "entered_by_id",
                         AtUtc("entered_at"), "previous_hash", "hash", "id", "key_id"))
    # The queryset's SQL read through a server-side cursor of its own: every column is text,
    # a number or a timestamp as the driver gives it, so Django's row iterator has nothing to
    # convert and only adds its cost per row (the chain check reads every entry of a table).
    # In binary: a timestamp comes as its 8 bytes and its isoformat() is written by the
    # checker, where PostgreSQL's to_char of it took 5 s of its CPU a 100,000 hands for 1.2 s
    # of ours; in UTC without its zone (AtUtc), so that no time zone is asked for its offset.
    # The hands' numbers (signed in each entry) are given or read a batch's hands at a time,
    # not joined to every entry: the join was a third of PostgreSQL's work for this read
    # (benchmarks/RESULTS.md, "audit incremental").
    sql, params = rows.query.sql_with_params()
    with connection.chunked_cursor() as cursor:
        cursor.cursor.execute(sql, params, binary=True)
        while batch := cursor.fetchmany(CHAIN_BATCH):
            hand_ids = [row[0] for row in batch]
            # The batch's hands' numbers (a whole table's would fill the memory), or those not given.
            # (set.difference looks a dict up as it is; set.issubset would copy it into a set.)
            missing = set(hand_ids) if given is None else set(hand_ids).difference(numbers)
            read_now = _numbers(missing) if missing else {}
            if given is None:
                numbers = read_now
            else:
                numbers.update(read_now)
            if len(read_now) < len(missing):
                # An entry whose hand is gone (deleted behind the back) is not read, as a join
                # would not: the chain breaks at the entry after it.
                batch = [row for row in batch if row[0] in numbers]
                hand_ids = [row[0] for row in batch]
                if not batch:
                    continue
            events = None if feed is None else []
            found, previous = checker.check_rows(table_id=table_id, rows=batch, previous=previous, events=events,
                                                 numbers=numbers)
            for row, what in found:
                words = LINK_WORDS if what == "link" else FAULT_WORDS[what]
                faults.append(str(words) % {"seq": row[1], "hand": numbers[row[0]]})
            last_id, read = batch[-1][8], read + len(batch)
            if feed is not None:
                feed.extend(zip(hand_ids, [row[1] for row in batch], [row[2] for row in batch], events, strict=True))
    if upto is None:
        table.refresh_from_db(fields=["last_event_hash"])
        if (table.last_event_hash or GENESIS) != previous:
            faults.append(_("the table's last entry is missing from the chain"))
    return ChainScan(faults, last_id, previous, read)


def _numbers(hand_ids: set[int]) -> dict[int, int]:
    """``{hand id: its number}`` of ``hand_ids``."""
    return dict(Hand.objects.filter(pk__in=hand_ids).values_list("pk", "number"))


#: What each of ``tables.chain.opening_fault``'s answers says of a hand.
OPENING_WORDS = {
    "changed": gettext_lazy("hand #%(hand)s: its table, seats, bank, rules or limits are not those it was opened "
                            "with (changed after the fact)"),
    "unsigned": gettext_lazy("hand #%(hand)s: its opening is not signed with the audit trail's key"),
    "unknown_key": gettext_lazy("hand #%(hand)s: its opening is signed with a key this server does not hold"),
}


def opening_text(code: str, number: int) -> str:
    """``tables.chain.opening_fault``'s answer ``code`` for hand ``number``, in words."""
    return str(OPENING_WORDS[code]) % {"hand": number}


def opening_faults(table: Table) -> list[str]:
    """Every hand of the table whose own fields (table, number, shift, bank tenure and
    holder, seats, rules with the commission, limits) are not those signed at its
    opening (``tables.chain.sign_opening``), in words, in the order of numbers; empty if
    all hold. A hand's rules or seats changed by SQL would otherwise replay to agree with
    the forgery. (A check in ranges checks its hands' openings from the rows its replay
    reads: ``tables.replay.ReplayFeed``'s ``openings_after``.)"""
    faults = []
    # seats and rules read as their text, decoded by casino.jsontext (json's values, faster).
    rows = (Hand.objects.filter(table=table).order_by("number")
            .values_list("number", "shift_id", "tenure_id", "bank_id", Cast("seats", TextField()),
                         Cast("rules", TextField()), "min_bet", "max_bet", "imported", "signature", "key_id"))
    for number, shift, tenure, bank, seats, rules, low, high, imported, stored, key_id in rows.iterator(
            chunk_size=2000):
        fault = opening_fault(key_id=key_id, stored=stored, table_id=table.pk, number=number, shift_id=shift,
                              tenure_id=tenure, bank_id=bank, seats=loads(seats), rules=loads(rules), min_bet=low,
                              max_bet=high, imported=imported)
        if fault:
            faults.append(opening_text(fault, number))
    return faults


_table_checks = []


def register_table_check(check) -> None:
    """Add ``check(table) -> list[str]`` (faults in the reader's words) to those
    ``table_faults`` runs; an app above the tables registers its own in its
    ``AppConfig.ready`` (the reports app: the hands replayed, its reports' seals)."""
    if check not in _table_checks:
        _table_checks.append(check)


def table_faults(table: Table) -> list[str]:
    """Every fault of the table, in words: its chain of entries (``chain_faults``), its
    hands' signed openings (``opening_faults``), then the registered checks'
    (``register_table_check``). Empty if all is whole."""
    faults = chain_faults(table) + opening_faults(table)
    for check in _table_checks:
        faults += check(table)
    return faults


_sections = []


def register_integrity_section(template: str, context) -> None:
    """Add a section to the tables' integrity pages: ``template`` rendered with
    ``section`` = ``context(table)`` (a dict); an app above the tables registers its own in
    its ``AppConfig.ready`` (the reports app: the latest runs of ``ledger_check``)."""
    if (template, context) not in _sections:
        _sections.append((template, context))


def integrity_sections(table: Table) -> list[dict]:
    """The registered sections of ``table``'s integrity page: ``[{"template", "context"}]``."""
    return [{"template": template, "context": context(table)} for template, context in _sections]


def number_gaps(table: Table, *, after: int = 0) -> list[int]:
    """Hand numbers missing between ``after`` + 1 (default 1) and the table's last hand,
    ascending. Reads only the numbers above ``after``, as a count first: no list is made
    when none is missing."""
    table.refresh_from_db(fields=["last_hand_number"])
    last = table.last_hand_number
    hands = table.hands.filter(number__gt=after, number__lte=last)
    if last <= after or hands.count() == last - after:
        return []
    numbers = set(hands.values_list("number", flat=True))
    return [n for n in range(after + 1, last + 1) if n not in numbers]
