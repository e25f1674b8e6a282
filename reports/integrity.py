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

from reports.audit import seal_faults
from reports.texts import exception_text
from reports.witness import witness_faults
from tables.models import Hand, Table
from tables.replay import hand_faults


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
    books and the tables' records are whole: the full check's chunks
    (``reports.checkpoints.check_chunk``, the one code path of ``ledger_check``), run in
    this process, no checkpoint stored. A table's faults are prefixed by its name.

    Returns:
        list of str, the ledger's first (with the orphan transactions and postings, the
        witness file's and the statements'), then each table's (by id): its hands
        replayed, then its chain, openings, numbers and seals.
    """
    from reports.checkpoints import chunk_specs, run_chunks

    results, _workers = run_chunks(chunk_specs(None), fan_out=False)
    return [fault for result in results for fault in result["faults"]]
