"""The cashier's desk: buy-ins and cash-outs, each a numbered slip and its posting.

Chips are sold for cash (the cage's cash account debited, the player's chips credited) and
bought back the other way, in one transaction each (``ledger.services``' rules).
"""

from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError
from django.db import transaction as db
from django.db.models import Max
from django.utils.translation import gettext as _

from cage.services.drawer import drawer_for_slip
from ledger.errors import AlreadyReversed, InsufficientChips, InvalidAmount, VoidRefused
from ledger.models import Account, CashierSlip, SlipVoid, Transaction
from ledger.money import cents, euros, show
from ledger.services.posting import (
    CREDIT,
    DEBIT,
    IDEMPOTENCY_CONSTRAINT,
    _amount_cents,
    _check_new_key,
    _constraint_of,
    _ensure_player_accounts,
    _lock,
    _post,
    _refuse_second_posting,
    _singleton_account,
)
from tables.models import Player
from tables.stakes import open_hands_at_risk


def slip_maximum() -> Decimal:
    """The most one slip may be for: ``settings.CAGE_SLIP_MAXIMUM``, ``Decimal`` euros
    (default 100,000.00), the same for the forms, the API and the services."""
    return Decimal(settings.CAGE_SLIP_MAXIMUM).quantize(Decimal("0.01"))


def check_slip_amount(amount: Decimal) -> int:
    """``amount`` (``Decimal`` euros) as integer cents if a slip may be for it.

    Raises:
        InvalidAmount (field ``amount``): not euros above zero with at most two decimals,
        or above the cage's maximum per slip (the message names the maximum).
    """
    amount_cents = _amount_cents(amount)
    if amount_cents > cents(slip_maximum()):
        raise InvalidAmount(_("%(amount)s is above the cage's maximum per slip, %(maximum)s"),
                            params={"amount": show(euros(amount_cents)), "maximum": show(slip_maximum())},
                            field="amount")
    return amount_cents


def _cashier(*, kind, player, amount, posted_by, idempotency_key):
    amount_cents = check_slip_amount(amount)
    if posted_by is None or not getattr(posted_by, "is_authenticated", False):
        raise TypeError("a cashier slip needs the cashier's user as posted_by")
    if not isinstance(player, Player) or player.pk is None:
        raise TypeError(f"player must be a saved Player, not {player!r}")
    with _refuse_second_posting(idempotency_key or ""), db.atomic():
        if idempotency_key:
            _check_new_key(idempotency_key)
        chips = _ensure_player_accounts([player.pk])[player.pk]
        cage = _singleton_account(Account.Kind.CAGE)
        drawer = drawer_for_slip(cashier=posted_by)  # no slip without an open drawer (locked FOR SHARE)
        locked = _lock([chips, cage])  # the cage's lock also serializes the slip numbers
        if kind == CashierSlip.Kind.CASH_OUT:
            in_play = open_hands_at_risk(codes=[player.code]).get(player.code, 0)
            if cents(locked[chips].balance) - in_play < amount_cents:
                raise InsufficientChips(
                    _("the cash-out of %(amount)s is above %(player)s's balance of %(balance)s, less "
                      "%(in_play)s at risk in open hands"),
                    params={"amount": show(euros(amount_cents)), "player": player.code,
                            "balance": show(locked[chips].balance), "in_play": show(euros(in_play))},
                    field="amount")
        number = (CashierSlip.objects.aggregate(last=Max("number"))["last"] or 0) + 1
        reference = f"slip {number:06d}"
        if kind == CashierSlip.Kind.BUY_IN:
            legs = [(cage, DEBIT, amount_cents), (chips, CREDIT, amount_cents)]
        else:
            legs = [(chips, DEBIT, amount_cents), (cage, CREDIT, amount_cents)]
        txn = _post(locked=locked, kind=kind, legs=legs, idempotency_key=idempotency_key or reference,
                    reference=reference, posted_by=posted_by, source="cashier",
                    cause={"kind": "slip", "number": number})
        return CashierSlip.objects.create(number=number, kind=kind, player=player, amount=euros(amount_cents),
                                          balance_after=locked[chips].balance, transaction=txn,
                                          issued_at=txn.posted_at, issued_by=posted_by, drawer=drawer)


def cashier_buy_in(*, player: Player, amount: Decimal, posted_by, idempotency_key: str = "") -> CashierSlip:
    """Sell chips for cash: the cage's cash account is debited, the player's chips
    credited, and a numbered slip issued.

    Args:
        player: the Player; amount: ``Decimal`` euros above zero (two decimals at most);
        posted_by: the cashier's user; idempotency_key: optional (a form's token), so a
        form sent twice posts once.
    Returns:
        CashierSlip of kind ``buy_in``; its ``transaction`` is the posting.
    Raises:
        InvalidAmount (not above zero, more than two decimals, or above
        ``slip_maximum()``), AlreadyPosted (the key was used).
        cage.errors.DrawerError: the cashier has no open drawer (the slip is booked
        against it, ``cage.services.drawer``).
        cage.errors.AmlRefused: the player's gaming day would reach the AML threshold
        without his identity on file.
    """
    return _cashier(kind=CashierSlip.Kind.BUY_IN, player=player, amount=amount, posted_by=posted_by,
                    idempotency_key=idempotency_key)


def cashier_cash_out(*, player: Player, amount: Decimal, posted_by, idempotency_key: str = "") -> CashierSlip:
    """Buy chips back for cash: the player's chips debited, the cage credited, a slip issued.

    Args: as ``cashier_buy_in``.
    Returns:
        CashierSlip of kind ``cash_out``.
    Raises:
        InsufficientChips: ``amount`` is above the player's balance less what he has at
        risk in open hands (``tables.stakes``; the message says both; checked under the
        account's row lock, which a bet's check takes too).
        InvalidAmount, AlreadyPosted, DrawerError, AmlRefused.
    """
    return _cashier(kind=CashierSlip.Kind.CASH_OUT, player=player, amount=amount, posted_by=posted_by,
                    idempotency_key=idempotency_key)


def cashier_slip_void(*, slip: CashierSlip, reason: str, voided_by) -> SlipVoid:
    """Void a cashier slip: a cage supervisor (never the cashier who issued it) reverses
    its posting, with a reason, in one transaction.

    The reversal is the slip's transaction mirrored (a buy-in's chips go back to the
    cage, a cash-out's chips back to the player), of kind ``reversal`` linked to it; the
    slip itself is unchanged and shows VOID through its ``SlipVoid``.

    Args:
        slip: the CashierSlip; reason: why, in words (required); voided_by: the cage
        supervisor's user.
    Returns:
        SlipVoid (``reversal`` is the reversing Transaction).
    Raises:
        VoidRefused (field ``reason`` when it is empty): not a cage supervisor, or the
        slip's own cashier. AlreadyReversed: the slip was voided already.
        InsufficientChips: a buy-in whose chips the player no longer holds (checked
        under the account's row lock; the message says his balance).
    [A cage's separation of duties: who books a slip does not void it (Orden EHA/2528/2011
    on casino internal control; Nevada MICS, Cage 10)]
    """
    from casino.roles import CAGE_SUPERVISOR, has_role

    reason = (reason or "").strip()
    if voided_by is None or not has_role(voided_by, CAGE_SUPERVISOR):
        raise VoidRefused(_("only a cage supervisor voids a slip"))
    if voided_by.pk == slip.issued_by_id:
        raise VoidRefused(_("slip %(number)s was issued by you: another cage supervisor voids it"),
                          params={"number": str(slip)})
    if not reason:
        raise VoidRefused(_("a void needs its reason"), field="reason")
    key = f"reversal:{slip.transaction_id}"
    try:
        with db.atomic():
            if SlipVoid.objects.filter(slip=slip).exists():
                raise AlreadyReversed(_("slip %(number)s was already voided"), params={"number": str(slip)})
            original = Transaction.objects.get(pk=slip.transaction_id)
            legs = [(account_id, CREDIT if side == DEBIT else DEBIT, cents(amount))
                    for account_id, side, amount in original.entries.order_by("id")
                    .values_list("account_id", "side", "amount")]
            locked = _lock(account_id for account_id, _s, _a in legs)
            chips = Account.objects.filter(player_id=slip.player_id).values_list("id", flat=True).get()
            if slip.kind == CashierSlip.Kind.BUY_IN and locked[chips].balance < slip.amount:
                raise InsufficientChips(
                    _("slip %(number)s's %(amount)s of chips are no longer %(player)s's: his balance is "
                      "%(balance)s"), params={"number": str(slip), "amount": show(slip.amount),
                                              "player": slip.player.code, "balance": show(locked[chips].balance)})
            reversal = _post(locked=locked, kind=Transaction.Kind.REVERSAL, legs=legs, idempotency_key=key,
                             reference=f"void of {slip.reference}", posted_by=voided_by, source="cage",
                             memo=reason, reverses=original,
                             cause={"kind": "reversal", "of": original.pk, "original": original.cause or
                                    {"kind": "slip", "number": slip.number}})
            return SlipVoid.objects.create(slip=slip, reason=reason, voided_by=voided_by,
                                           voided_at=reversal.posted_at, reversal=reversal)
    except IntegrityError as error:
        constraint = _constraint_of(error)
        if IDEMPOTENCY_CONSTRAINT in constraint or "reverses" in constraint or "slip" in constraint:
            raise AlreadyReversed(_("slip %(number)s was already voided"), params={"number": str(slip)}) from error
        raise
