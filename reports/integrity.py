"""Every check an auditor runs, in one place: ``manage.py ledger_check`` runs them all,
and a table's integrity page (``tables.views.hands.integrity``) shows the same faults of
that table.

The checks: the ledger's balances and sums (``ledger.selectors.ledger_faults``); every
transaction's business record (``reports.justification``: none, or one pointing
elsewhere, is an orphan); every hand replayed from its entries against its stored bets,
settlement and posting, and every
hand posting's hand (``tables.replay``); each table's keyed chain of entries
(``tables.integrity.chain_faults``), its hands' own fields against their signed openings
(``tables.integrity.opening_faults``) and its hand numbers without gaps; and every stored
shift report's seal, the chain head it sealed, against the chain now
(``reports.audit.seal_faults``: an entry rewritten after the report, even by someone
holding the chain's key who recomputed every hash after it, is found); and every stored
report against the seals' witness outside the database (``reports.witness``: a report
and its seal rewritten together, by the owner with the key, are found); and every signed
monthly statement's signature (``reports.statements``).
"""

from ledger.selectors import ledger_faults
from reports.audit import seal_faults
from reports.justification import orphan_transactions
from reports.statements import statement_faults
from reports.texts import exception_text
from reports.witness import witness_faults, witness_file_faults
from tables.integrity import chain_faults, number_gaps, opening_faults
from tables.models import Hand, Table
from tables.replay import all_hand_faults, hand_faults


def seal_fault_words(table: Table) -> list[str]:
    """The stored shift reports of ``table`` whose sealed chain head is no longer the
    chain's, and its reports that are not what the seals' witness holds, in the reader's
    words."""
    return [exception_text(fault) for fault in seal_faults(table) + witness_faults(table)]


def table_audit_faults(table: Table) -> list[str]:
    """What the reports app adds to a table's integrity page (registered with
    ``tables.integrity.register_table_check``): the table's hands replayed and its stored
    reports' seals, in the reader's words."""
    replay = [exception_text(fault) for fault in hand_faults(Hand.objects.filter(table=table))]
    return replay + seal_fault_words(table)


def all_faults() -> list[str]:
    """Every fault every check finds (the module's docstring), in words; empty when the
    books and the tables' records are whole. A table's faults are prefixed by its name.

    Returns:
        list of str, the ledger's first, then the orphan transactions, the hands', then the
        witness file's own, then
        each table's (by name).
    """
    faults = list(ledger_faults()) + [exception_text(fault) for fault in orphan_transactions()]
    faults += list(all_hand_faults())
    faults += [exception_text(fault) for fault in witness_file_faults() + statement_faults()]
    for table in Table.objects.order_by("name"):
        mine = chain_faults(table) + opening_faults(table) + seal_fault_words(table)
        gaps = number_gaps(table)
        if gaps:
            mine.append("missing hand numbers: " + ", ".join(map(str, gaps[:100])))
        faults += [f"{table.name}: {fault}" for fault in mine]
    return faults
