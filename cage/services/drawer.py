"""A cashier's drawer: opened with a float counted by denomination, slips booked against
it, closed with a count by denomination and two signatures. One transaction each.

Locks: a slip takes its drawer's row ``FOR SHARE`` (``drawer_for_slip``, before the
ledger's account locks); a close takes it ``FOR UPDATE``, so a close waits for the slips
being booked and a slip never lands in a drawer closed under it.
"""

from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError
from django.db import transaction as db
from django.db.models import Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from cage.denominations import InvalidCount, clean_count, count_total
from cage.errors import DrawerError
from cage.models import Drawer
from casino import formatting
from casino.roles import CAGE_SUPERVISOR, CASHIER, has_role
from ledger import posting
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT

ZERO = Decimal("0.00")


def tolerance() -> Decimal:
    """``CAGE_DRAWER_TOLERANCE`` as ``Decimal`` euros (default 5.00)."""
    return Decimal(str(settings.CAGE_DRAWER_TOLERANCE)).quantize(Decimal("0.01"))


def _count(count, field):
    try:
        return clean_count(count)
    except InvalidCount as error:
        raise DrawerError(_("the count is not valid: %(reason)s"), params={"reason": str(error)},
                          field=field) from None


def open_drawer_of(cashier):
    """The cashier's open Drawer, or None (no lock)."""
    return Drawer.objects.filter(cashier=cashier, closed_at__isnull=True).first()


def drawer_open(*, cashier, count: dict[str, int]) -> Drawer:
    """Open a drawer for ``cashier`` with the float he counted.

    Args:
        cashier: the user (cashier role) who will book slips against it.
        count: ``{denomination: pieces}`` (``cage.denominations``; missing ones are zero).
    Returns:
        the open Drawer (``float_amount`` Decimal euros, the count's total), its float
        posted: the cage debited, the cage floats account credited (``_post_float``).
    Raises:
        DrawerError: not a cashier; he has an open drawer already; an invalid count
        (field ``count``).
    """
    if not has_role(cashier, CASHIER):
        raise DrawerError(_("only a cashier opens a drawer"), field="cashier")
    count = _count(count, "count")
    try:
        with db.atomic():
            drawer = Drawer.objects.create(cashier=cashier, float_count=count, float_amount=count_total(count),
                                           opened_at=timezone.now())
            drawer.float_transaction = _post_float(drawer, cashier)
            if drawer.float_transaction is not None:
                Drawer.objects.filter(pk=drawer.pk).update(float_transaction=drawer.float_transaction)
            return drawer
    except IntegrityError as error:
        if "cage_one_open_drawer_per_cashier" in str(error):
            raise DrawerError(_("%(cashier)s has a drawer open already: close it first"),
                              params={"cashier": cashier.get_username()}) from None
        raise


def _post_float(drawer, cashier):
    """The float lent to the open drawer: the cage debited (its cash is in the cage, counted
    with the drawer's), the cage floats account credited (what the house lent the open
    drawers). Nothing for a drawer opened without a float."""
    amount = cents(drawer.float_amount)
    if not amount:
        return None
    cage, floats = posting.singleton_account(Account.Kind.CAGE), posting.singleton_account(Account.Kind.FLOATS)
    locked = posting.lock([cage, floats])
    return posting.post(locked=locked, kind=Transaction.Kind.DRAWER_FLOAT, legs=[(cage, DEBIT, amount),
                                                                               (floats, CREDIT, amount)],
                        idempotency_key=f"drawer:{drawer.pk}:float", reference=f"float of drawer #{drawer.pk}",
                        posted_by=cashier, source="cage", cause={"kind": "drawer_float", "drawer": drawer.pk},
                        detail={"float": str(drawer.float_amount)})


def _post_close(drawer, supervisor):
    """At the close, the float back to the cage floats account (the cage credited), and
    the variance (counted − expected) to the count variances account: the cage debited
    what was found over, credited what was found short (``ledger.models.Account``'s one
    sign convention). Only the float the drawer's opening posted (its ``float_transaction``) goes back. Returns the
    Transaction or None (nothing to post)."""
    cage, floats = posting.singleton_account(Account.Kind.CAGE), posting.singleton_account(Account.Kind.FLOATS)
    lent = cents(drawer.float_amount) if drawer.float_transaction_id else 0
    variance = cents(drawer.variance)
    # Credits positive. The cage's leg is its net: the float going back (credited), the
    # cash found over (debited: cash in) or short (credited).
    effect = {cage: lent - variance, floats: -lent}
    if variance:
        effect[posting.singleton_account(Account.Kind.VARIANCE)] = variance
    legs = [(account, CREDIT if amount > 0 else DEBIT, abs(amount)) for account, amount in sorted(effect.items())
            if amount]
    if not legs:
        return None
    locked = posting.lock([account for account, _side, _amount in legs])
    return posting.post(locked=locked, kind=Transaction.Kind.DRAWER_CLOSE, legs=legs,
                        idempotency_key=f"drawer:{drawer.pk}:close", reference=f"close of drawer #{drawer.pk}",
                        posted_by=supervisor, source="cage", cause={"kind": "drawer_close", "drawer": drawer.pk},
                        detail={"float": str(euros(lent)), "variance": str(drawer.variance)})


def drawer_for_slip(*, cashier) -> Drawer:
    """The cashier's open drawer, its row locked ``FOR SHARE`` until the caller's
    transaction ends (call it inside the slip's transaction, before the account locks).

    Raises:
        DrawerError: he has no open drawer (the message says to open one).
    """
    drawer = _share_lock(cashier)
    if drawer is None:
        raise DrawerError(_("%(cashier)s has no open drawer: open one with its float before booking a slip"),
                          params={"cashier": cashier.get_username()})
    return drawer


def _share_lock(cashier):
    """``SELECT ... FOR SHARE`` of the cashier's open drawer (Django's ``select_for_update``
    has no FOR SHARE): several slips at once, but no close under them."""
    found = list(Drawer.objects.raw(
        "SELECT * FROM cage_drawer WHERE cashier_id = %s AND closed_at IS NULL FOR SHARE", [cashier.pk]))
    return found[0] if found else None


def drawer_lines(drawer) -> dict[str, Decimal]:
    """The drawer's cash by kind, each its own line, Decimal euros (zero when none):
    ``buy_in``, ``bank_deposit`` (cash in), ``cash_out`` (cash out), its slips', voided
    or not; ``void_in`` (the cash of voided cash-outs coming back) and ``void_out`` (the
    cash of voided buy-ins and bank deposits paid back), the voids booked into this
    drawer (``drawer_for_void``), whichever drawer their slips were in. A slip voided
    while its drawer was open is voided into it: the two lines cancel out. A slip whose
    posting was reversed without a void counts for nothing; a void of before the voids
    named their drawer counts in its slip's drawer."""
    from cage.models import CashierSlip, SlipVoid

    kinds = CashierSlip.Kind.values
    booked = drawer.slips.filter(Q(transaction__reversal__isnull=True) | Q(void__isnull=False))
    sums = booked.aggregate(**{kind: Sum("amount", filter=Q(kind=kind)) for kind in kinds})
    voids = SlipVoid.objects.filter(Q(drawer=drawer) | Q(drawer__isnull=True, slip__drawer=drawer)).aggregate(
        void_in=Sum("slip__amount", filter=Q(slip__kind=CashierSlip.Kind.CASH_OUT)),
        void_out=Sum("slip__amount", filter=~Q(slip__kind=CashierSlip.Kind.CASH_OUT)))
    return {name: value or ZERO for name, value in (*sums.items(), *voids.items())}


def drawer_cash(drawer) -> tuple[Decimal, Decimal]:
    """``(cash in, cash out)`` of the drawer, Decimal euros (``drawer_lines``: buy-ins,
    bank deposits and voided cash-outs in; cash-outs and voided buy-ins and deposits
    out)."""
    lines = drawer_lines(drawer)
    return _cash_in(lines), _cash_out(lines)


def _cash_in(lines):
    return lines["buy_in"] + lines["bank_deposit"] + lines["void_in"]


def _cash_out(lines):
    return lines["cash_out"] + lines["void_out"]


def drawer_voids(drawer):
    """The voids booked into ``drawer`` (``drawer_for_void``; a void of before the voids
    named their drawer: its slip's drawer), oldest first, with their slips and players: a
    QuerySet of SlipVoid."""
    from cage.models import SlipVoid

    return (SlipVoid.objects.filter(Q(drawer=drawer) | Q(drawer__isnull=True, slip__drawer=drawer))
            .select_related("slip__player", "voided_by").order_by("voided_at", "id"))


def drawer_for_void(*, slip, voided_by) -> Drawer:
    """The open drawer a slip's void moves its cash through, its row locked ``FOR SHARE``
    until the caller's transaction ends (so that no close counts it under the void): the
    slip's own drawer while it is open; else the voiding supervisor's open drawer; else
    the open drawer the slip's cashier has now. A closed drawer is never one: its figures
    were counted and signed.

    Args:
        slip: the CashierSlip voided; voided_by: the cage supervisor's user.
    Returns:
        the open Drawer.
    Raises:
        DrawerError: none of them is open (naming the slip's drawer and both people).
    """
    candidates = [slip.drawer_id] if slip.drawer_id else []
    for user_id in (voided_by.pk, slip.issued_by_id):
        found = Drawer.objects.filter(cashier_id=user_id, closed_at__isnull=True).values_list("pk", flat=True).first()
        if found is not None:
            candidates.append(found)
    for pk in candidates:
        locked = list(Drawer.objects.raw("SELECT * FROM cage_drawer WHERE id = %s AND closed_at IS NULL FOR SHARE",
                                         [pk]))
        if locked:
            return locked[0]
    raise DrawerError(_("slip %(number)s's drawer #%(drawer)s is closed and neither %(supervisor)s nor %(cashier)s "
                        "has a drawer open: the void's cash goes through an open drawer, so one of them opens one "
                        "first"),
                      params={"number": str(slip), "drawer": slip.drawer_id or "—",
                              "supervisor": voided_by.get_username(), "cashier": slip.issued_by.get_username()})


def drawer_preview(*, drawer, count: dict[str, int]) -> dict:
    """What closing with ``count`` would record, writing nothing (the close's confirmation).

    Returns:
        ``{"count", "counted", "lines", "cash_in", "cash_out", "expected", "variance",
        "tolerance", "beyond"}`` (Decimal euros; ``lines``: ``drawer_lines``; ``beyond``:
        the variance exceeds the tolerance).
    Raises:
        DrawerError: an invalid count.
    """
    count = _count(count, "count")
    lines = drawer_lines(drawer)
    cash_in, cash_out = _cash_in(lines), _cash_out(lines)
    expected = drawer.float_amount + cash_in - cash_out
    counted = count_total(count)
    limit = tolerance()
    return {"count": count, "counted": counted, "lines": lines, "cash_in": cash_in, "cash_out": cash_out,
            "expected": expected, "variance": counted - expected, "tolerance": limit,
            "beyond": abs(counted - expected) > limit}


def drawer_close(*, drawer: Drawer, cashier, supervisor, count: dict[str, int], note: str = "") -> Drawer:
    """Close a drawer with the cashier's count and a cage supervisor's signature.

    The expected amount is the float + cash in − cash out of its slips (``drawer_cash``);
    the variance is counted − expected (negative: short), stored with the tolerance then
    in force (``CAGE_DRAWER_TOLERANCE``); beyond it, the auditors' reports show it. The
    close posts the float back to the cage floats account and the variance to the count
    variances account (credited over, debited short), so every euro counted is in the
    ledger (``_post_close``).

    Args:
        drawer: the open Drawer; cashier: its cashier (his signature); supervisor: a user
            with the cage supervisor role, not the cashier (his signature, checked by the
            caller's password prompt); count: ``{denomination: pieces}``; note: optional.
    Returns:
        the closed Drawer.
    Raises:
        DrawerError: the drawer is closed or not the cashier's; the supervisor is missing,
        not a cage supervisor, or the cashier himself (field ``supervisor``); an invalid
        count.
    """
    if drawer.cashier_id != getattr(cashier, "pk", None):
        raise DrawerError(_("drawer #%(drawer)s is %(owner)s's: only its cashier closes it"),
                          params={"drawer": drawer.pk, "owner": drawer.cashier.get_username()})
    if supervisor is None or not has_role(supervisor, CAGE_SUPERVISOR):
        raise DrawerError(_("a cage supervisor must sign the close"), field="supervisor")
    if supervisor.pk == cashier.pk:
        raise DrawerError(_("the supervisor who signs is not the cashier: two people sign a drawer's close"),
                          field="supervisor")
    count = _count(count, "count")
    with db.atomic():
        locked = Drawer.objects.select_for_update().filter(pk=drawer.pk).first()
        if locked is None or not locked.is_open:
            raise DrawerError(_("drawer #%(drawer)s is closed already"), params={"drawer": drawer.pk})
        figures = drawer_preview(drawer=locked, count=count)
        values = {"closed_at": timezone.now(), "closing_count": figures["count"], "counted": figures["counted"],
                  "cash_in": figures["cash_in"], "cash_out": figures["cash_out"], "expected": figures["expected"],
                  "variance": figures["variance"], "tolerance": figures["tolerance"], "supervisor": supervisor,
                  "note": note.strip()}
        for name, value in values.items():
            setattr(locked, name, value)
        # Posted first, so that the one update that closes the drawer names its posting too
        # (a closed drawer never changes: cage/sql/0002_guards.sql).
        values["close_transaction"] = locked.close_transaction = _post_close(locked, supervisor)
        Drawer.objects.filter(pk=locked.pk).update(**values)
        return locked


def variance_text(variance) -> str:
    """``"−12,50 € (short)"``, ``"+3,00 € (over)"`` or ``"0,00 €"``, in the reader's language."""
    if variance < 0:
        return _("%(amount)s short") % {"amount": formatting.money(-variance)}
    if variance > 0:
        return _("%(amount)s over") % {"amount": formatting.money(variance)}
    return formatting.money(variance)
