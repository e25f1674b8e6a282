"""Checks an auditor runs on a table's records: the hash chain, the hands' signed openings,
the hand numbers, and what
the apps above the tables register (``register_table_check``: the reports app adds the
table's hands replayed and the seals of its stored reports), all shown on the table's
integrity page (``table_faults``)."""

from django.db.models import TextField
from django.db.models.functions import Cast
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from tables.chain import GENESIS, EntryChecker, IsoUtc, opening_fault
from tables.models import Hand, HandEvent, Table

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
    faults = []
    previous = GENESIS
    checker = EntryChecker()
    rows = (HandEvent.objects.filter(table=table).order_by("id")
            .values_list("hand__number", "sequence", "kind", Cast("event", TextField()), "entered_by_id",
                         IsoUtc("entered_at"), "previous_hash", "hash", "id", "key_id"))
    for number, sequence, kind, text, by, at, stored_previous, stored, pk, key_id in rows.iterator(chunk_size=5000):
        if stored_previous != previous:
            faults.append(_("entry %(seq)s of hand #%(hand)s does not follow the entry before it")
                          % {"seq": sequence, "hand": number})
        fault = checker.fault(entry_id=pk, key_id=key_id, stored=stored, previous=stored_previous,
                              table_id=table.pk, hand_number=number, sequence=sequence, kind=kind, event_text=text,
                              entered_by_id=by, entered_at=at)
        if fault:
            faults.append(str(FAULT_WORDS[fault]) % {"seq": sequence, "hand": number})
        previous = stored
    table.refresh_from_db(fields=["last_event_hash"])
    if (table.last_event_hash or GENESIS) != previous:
        faults.append(_("the table's last entry is missing from the chain"))
    return faults


#: What each of ``tables.chain.opening_fault``'s answers says of a hand.
OPENING_WORDS = {
    "changed": gettext_lazy("hand #%(hand)s: its table, seats, bank, rules or limits are not those it was opened "
                            "with (changed after the fact)"),
    "unsigned": gettext_lazy("hand #%(hand)s: its opening is not signed with the audit trail's key"),
    "unknown_key": gettext_lazy("hand #%(hand)s: its opening is signed with a key this server does not hold"),
}


def opening_faults(table: Table) -> list[str]:
    """Every hand of the table whose own fields (table, number, shift, bank tenure and
    holder, seats, rules with the commission, limits) are not those signed at its
    opening (``tables.chain.sign_opening``), in words; empty if all hold. A hand's rules
    or seats changed by SQL would otherwise replay to agree with the forgery."""
    faults = []
    rows = (Hand.objects.filter(table=table).order_by("number")
            .values_list("number", "shift_id", "tenure_id", "bank_id", "seats", "rules", "min_bet", "max_bet",
                         "imported", "signature", "key_id"))
    for number, shift, tenure, bank, seats, rules, low, high, imported, stored, key_id in rows.iterator(
            chunk_size=2000):
        fault = opening_fault(key_id=key_id, stored=stored, table_id=table.pk, number=number, shift_id=shift,
                              tenure_id=tenure, bank_id=bank, seats=seats, rules=rules, min_bet=low, max_bet=high,
                              imported=imported)
        if fault:
            faults.append(str(OPENING_WORDS[fault]) % {"hand": number})
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


def number_gaps(table: Table) -> list[int]:
    """Hand numbers missing between 1 and the table's last hand."""
    numbers = set(table.hands.values_list("number", flat=True))
    return [n for n in range(1, table.last_hand_number + 1) if n not in numbers]
