"""The dealers' shifts at the tables (the pit): opened, a dealer relieved within one
(``dealer_relieve``), closed (its report is queued once the close commits:
``shift_closed``), and whose shift a user deals."""

from django.db import transaction as db
from django.dispatch import Signal
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.roles import DEALER, has_role
from ledger import posting
from patrons.admission import admission_check
from patrons.models import AdmissionRefusal
from tables.bank.life import auction_sessions_played
from tables.bank.tenures import tenure_close
from tables.errors import HandNotOpen, NoShift
from tables.locking import lock_table, open_tenure
from tables.models import BankTenure, DealerRelief, Hand, Shift, Table

#: Sent on commit when a shift closes (the reports queue the shift's report).
shift_closed = Signal()


@posting.refusals_recorded
def shift_open(*, table: Table, dealer, opened_by) -> Shift:
    """Open a dealer's shift at a table (pit supervisor). The bank's holder seated at the
    table (its open tenure's, and each member of its syndicate) is admitted again as the
    session opens (``patrons.admission.admission_check``, ``session_open``): one on the
    exclusion register since, or without identity, refuses the opening, the refusal
    recorded (``AdmissionRefusal``) for the compliance officer.

    Raises:
        NoShift: the table already has an open shift. AdmissionRefused (field ``player``):
        the bank's holder or a member may not be admitted; nothing is written but the
        refusal.
    """
    with db.atomic():
        table = lock_table(table.pk)
        current = table.shifts.filter(closed_at__isnull=True).first()
        if current is not None:
            raise NoShift(_("%(table)s already has an open shift (dealer %(dealer)s): close it first"),
                          params={"table": table.name, "dealer": current.dealer.get_username()})
        tenure = open_tenure(table)
        if tenure is not None:
            members = [tenure.holder, *(share.player for share in tenure.shares.select_related("player")
                                        if share.player_id != tenure.holder_id)]
            for player in members:
                admission_check(player=player, where=AdmissionRefusal.Where.SESSION_OPEN, by=opened_by,
                                place=table.name)
        return Shift.objects.create(table=table, dealer=dealer, opened_by=opened_by)

def shift_close(*, shift: Shift, closed_by) -> Shift:
    """Close a shift (pit supervisor); its report is queued once this commits.

    Raises:
        NoShift: already closed. HandNotOpen: a hand is still open at the table.
    """
    with db.atomic():
        table = lock_table(shift.table_id)
        shift = Shift.objects.select_for_update().get(pk=shift.pk)
        if not shift.is_open:
            raise NoShift(_("this shift is already closed"))
        open_hand = table.hands.filter(status=Hand.Status.OPEN).first()
        if open_hand is not None:
            raise HandNotOpen(_("hand #%(number)s is still open: finish or void it before closing the shift"),
                              params={"number": open_hand.number})
        shift.closed_at = timezone.now()
        shift.closed_by = closed_by
        shift.save(update_fields=["closed_at", "closed_by"])
        _end_awarded_term(table, closed_by)
        db.on_commit(lambda: shift_closed.send(sender=Shift, shift_id=shift.pk))
        return shift

def _end_awarded_term(table, closed_by):
    """At the close of a table session: a bank won at auction for N sessions whose N-th
    session this was ends with it (``ended="term"``, its balance back to its syndicate by
    shares); the table has no bank until the pit draws for it or auctions it again.

    The session counted is the table's shift (opened and closed by the pit); the session
    during which the bank was awarded is its first. [France, arrêté of 14 May 2007 art.
    61: the bank is awarded "per taille or per session"; Melilla casino rules 2014 art.
    52: without a banker the bank is auctioned]
    """
    tenure = open_tenure(table)
    if tenure is None or tenure.began != BankTenure.Began.AUCTION:
        return None
    played = auction_sessions_played(tenure)
    if played is None or played[0] < played[1]:
        return None
    return tenure_close(tenure=tenure, ended=BankTenure.Ended.TERM, posted_by=closed_by, source="pit")

def dealer_relieve(*, shift: Shift, dealer, relieved_by) -> DealerRelief:
    """Relieve the shift's current dealer with ``dealer`` (pit supervisor), between hands:
    from now ``dealer`` deals at the table (the shift's ``current_dealer``, the console is
    his) and the dealer relieved loses the console at once. The session goes on: its boxes,
    its report and its bank are the shift's, untouched.

    Args:
        shift: the table's open Shift; dealer: the relieving user (dealer role);
        relieved_by: the pit supervisor.
    Returns:
        the DealerRelief written (``relieved``: the dealer until now).
    Raises:
        NoShift: the shift is closed; ``dealer`` has no dealer role, is the current
        dealer already, or deals at another table's open shift now.
        HandNotOpen: a hand is open at the table (a relief is made between hands).
    """
    with db.atomic():
        table = lock_table(shift.table_id)
        shift = Shift.objects.select_for_update().select_related("current_dealer").get(pk=shift.pk)
        if not shift.is_open:
            raise NoShift(_("this shift is already closed: open a new one for the dealer"))
        if not has_role(dealer, DEALER):
            raise NoShift(_("%(user)s does not have the dealer role"), params={"user": dealer.get_username()})
        if dealer.pk == shift.current_dealer_id:
            raise NoShift(_("%(user)s is already dealing at %(table)s"),
                          params={"user": dealer.get_username(), "table": table.name})
        elsewhere = (Shift.objects.filter(closed_at__isnull=True, current_dealer=dealer)
                     .exclude(pk=shift.pk).select_related("table").first())
        if elsewhere is not None:
            raise NoShift(_("%(user)s is dealing at %(table)s: relieve him there first"),
                          params={"user": dealer.get_username(), "table": elsewhere.table.name})
        open_hand = table.hands.filter(status=Hand.Status.OPEN).first()
        if open_hand is not None:
            raise HandNotOpen(_("hand #%(number)s is open at %(table)s: relieve the dealer once it is settled "
                                "or voided"), params={"number": open_hand.number, "table": table.name})
        relief = DealerRelief.objects.create(shift=shift, relieved=shift.current_dealer, relieving=dealer,
                                             relieved_by=relieved_by)
        # The relief's insert moved the shift's current dealer (PostgreSQL's trigger).
        shift.refresh_from_db(fields=["current_dealer"])
        return relief


def dealer_shift(*, table: Table, user):
    """The open shift at ``table`` whose current dealer is ``user``, or None."""
    return table.shifts.filter(closed_at__isnull=True, current_dealer=user).first()


def relieved_from(*, table: Table, user):
    """The relief that took ``user`` off ``table``'s open shift while he is no longer its
    current dealer (his latest there), or None: the console says so instead of refusing
    him plainly."""
    return (DealerRelief.objects.filter(shift__table=table, shift__closed_at__isnull=True, relieved=user)
            .exclude(shift__current_dealer=user).select_related("relieving").order_by("-at", "-id").first())
