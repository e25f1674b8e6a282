"""The dispute desk's writes, each in one database transaction: a dispute opened on a
hand, decided once (upheld, with the hand voided through ``hand_void`` where it was
wrong, or rejected), and an incident recorded at a table. Nothing is changed after or
deleted (PostgreSQL: ``tables/sql/0003_disputes.sql``).
"""

from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from game.entries import VOID
from patrons.models import Player
from tables.errors import TableError
from tables.models import Dispute, Hand, HandEvent, Incident, Table
from tables.services.hands import hand_void


class DisputeDecided(TableError):
    """The dispute was decided already: a decision is never taken again."""

    code = "dispute_decided"


def dispute_open(*, hand: Hand, claim: str, opened_by, player: Player | None = None) -> Dispute:
    """Open a dispute on a hand (pit supervisor), in the patron's words.

    Args:
        hand: the disputed Hand (open, settled or voided); claim: what the patron claims
            (text, not empty); opened_by: the pit supervisor; player: the patron, if known.
    Returns:
        the new open Dispute.
    Raises:
        TableError: no claim (field ``claim``).
    """
    claim = (claim or "").strip()
    if not claim:
        raise TableError(_("say what the patron claims"), field="claim")
    with db.atomic():
        return Dispute.objects.create(hand=hand, claim=claim, opened_by=opened_by, player=player)


def dispute_decide(*, dispute: Dispute, outcome: str, decision: str, decided_by, void: bool = False) -> Dispute:
    """Decide an open dispute, once: upheld or rejected, with the reasons.

    Upheld with ``void``: the hand was wrong and is voided through ``hand_void`` (a
    settled hand's posting reversed in the ledger, a void entry at the table whose reason
    is the decision), in the same transaction; the dispute keeps the void entry. The
    hand is then re-entered at the console as a new hand.

    Args:
        dispute: an open Dispute; outcome: ``Dispute.Outcome`` (``upheld``, ``rejected``);
        decision: the reasons (text, not empty); decided_by: the pit supervisor;
        void: void the hand (only with ``upheld``).
    Returns:
        the decided Dispute, ``void`` set when the hand was voided.
    Raises:
        DisputeDecided: decided already. TableError: no decision (field ``decision``), an
        unknown outcome or a void of a rejected claim (field ``outcome``).
        HandNotOpen: the hand to void is voided already.
    """
    decision = (decision or "").strip()
    if outcome not in Dispute.Outcome.values:
        raise TableError(_("choose whether the claim is upheld or rejected"), field="outcome")
    if void and outcome != Dispute.Outcome.UPHELD:
        raise TableError(_("only an upheld claim voids the hand"), field="outcome")
    if not decision:
        raise TableError(_("say why the claim is upheld or rejected"), field="decision")
    with db.atomic():
        dispute = Dispute.objects.select_for_update().select_related("hand").get(pk=dispute.pk)
        if dispute.status != Dispute.Status.OPEN:
            raise DisputeDecided(_("dispute #%(id)s was decided already"), params={"id": dispute.pk})
        if void:
            hand = hand_void(hand=dispute.hand, reason=decision, voided_by=decided_by)
            dispute.void = HandEvent.objects.get(hand=hand, kind=VOID)
        dispute.status = Dispute.Status.DECIDED
        dispute.outcome = outcome
        dispute.decision = decision
        dispute.decided_by = decided_by
        dispute.decided_at = timezone.now()
        dispute.save(update_fields=["status", "outcome", "decision", "decided_by", "decided_at", "void"])
        return dispute


def incident_record(*, table: Table, kind: str, text: str, recorded_by, hand: Hand | None = None,
                    player: Player | None = None) -> Incident:
    """Record an incident at a table (pit supervisor): a card exposed, a misdeal, a
    patron's behaviour, other.

    Args:
        table: the Table; kind: ``Incident.Kind``; text: what happened (not empty);
        recorded_by: the pit supervisor; hand: a Hand of this table, if any; player: the
            patron, if any.
    Returns:
        the new Incident.
    Raises:
        TableError: no text (field ``text``), an unknown kind (``kind``), a hand of
        another table (``hand``).
    """
    text = (text or "").strip()
    if kind not in Incident.Kind.values:
        raise TableError(_("choose what kind of incident it was"), field="kind")
    if not text:
        raise TableError(_("say what happened"), field="text")
    if hand is not None and hand.table_id != table.pk:
        raise TableError(_("the hand is not one of this table's"), field="hand")
    with db.atomic():
        return Incident.objects.create(table=table, kind=kind, text=text, recorded_by=recorded_by, hand=hand,
                                       player=player)
