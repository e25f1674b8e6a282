"""Checks an auditor runs on a table's records: the hash chain, the hand numbers."""

from django.utils.translation import gettext as _

from tables.models import HandEvent, Table
from tables.services import GENESIS, entry_hash


def chain_faults(table: Table) -> list[str]:
    """Every break in the table's SHA-256 chain of entries, in words; empty if intact.

    Each entry's hash is recomputed from its content and the previous entry's hash; a
    changed entry, a removed one or a reordered one breaks the chain from there.
    """
    faults = []
    previous = GENESIS
    rows = (HandEvent.objects.filter(table=table).order_by("id")
            .values_list("hand__number", "sequence", "kind", "event", "entered_by_id", "entered_at",
                         "previous_hash", "hash"))
    for number, sequence, kind, event, by, at, stored_previous, stored in rows.iterator():
        if stored_previous != previous:
            faults.append(_("entry %(seq)s of hand #%(hand)s does not follow the entry before it")
                          % {"seq": sequence, "hand": number})
        digest = entry_hash(previous=stored_previous, table_id=table.pk, hand_number=number, sequence=sequence,
                            kind=kind, event=event, entered_by_id=by, entered_at=at)
        if digest != stored:
            faults.append(_("entry %(seq)s of hand #%(hand)s was changed after it was entered")
                          % {"seq": sequence, "hand": number})
        previous = stored
    table.refresh_from_db(fields=["last_event_hash"])
    if (table.last_event_hash or GENESIS) != previous:
        faults.append(_("the table's last entry is missing from the chain"))
    return faults


def number_gaps(table: Table) -> list[int]:
    """Hand numbers missing between 1 and the table's last hand."""
    numbers = set(table.hands.values_list("number", flat=True))
    return [n for n in range(1, table.last_hand_number + 1) if n not in numbers]
