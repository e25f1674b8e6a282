"""The cashier's desk: buy-ins and cash-outs, each a numbered slip and its posting.

Chips are sold for cash (the cage's cash account debited, the player's chips credited) and
bought back the other way, in one transaction each (``ledger.services``' rules).
"""

from decimal import Decimal

from django.db import transaction as db
from django.db.models import Max
from django.utils.translation import gettext as _

from cage.services.drawer import drawer_for_slip
from ledger.errors import InsufficientChips
from ledger.models import Account, CashierSlip
from ledger.money import cents, euros, show
from ledger.services.posting import (
    CREDIT,
    DEBIT,
    _amount_cents,
    _check_new_key,
    _ensure_player_accounts,
    _lock,
    _post,
    _refuse_second_posting,
    _singleton_account,
)
from tables.models import Player


def _cashier(*, kind, player, amount, posted_by, idempotency_key):
    amount_cents = _amount_cents(amount)
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
        if kind == CashierSlip.Kind.CASH_OUT and cents(locked[chips].balance) < amount_cents:
            raise InsufficientChips(
                _("the cash-out of %(amount)s is above %(player)s's balance of %(balance)s"),
                params={"amount": show(euros(amount_cents)), "player": player.code,
                        "balance": show(locked[chips].balance)}, field="amount")
        number = (CashierSlip.objects.aggregate(last=Max("number"))["last"] or 0) + 1
        reference = f"slip {number:06d}"
        if kind == CashierSlip.Kind.BUY_IN:
            legs = [(cage, DEBIT, amount_cents), (chips, CREDIT, amount_cents)]
        else:
            legs = [(chips, DEBIT, amount_cents), (cage, CREDIT, amount_cents)]
        txn = _post(locked=locked, kind=kind, legs=legs, idempotency_key=idempotency_key or reference,
                    reference=reference, posted_by=posted_by, source="cashier")
        return CashierSlip.objects.create(number=number, kind=kind, player=player, amount=euros(amount_cents),
                                          transaction=txn, issued_at=txn.posted_at, issued_by=posted_by,
                                          drawer=drawer)


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
        InvalidAmount, AlreadyPosted (the key was used).
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
        InsufficientChips: ``amount`` is above the player's balance (the message says the
        balance; checked under the account's row lock).
        InvalidAmount, AlreadyPosted, DrawerError, AmlRefused.
    """
    return _cashier(kind=CashierSlip.Kind.CASH_OUT, player=player, amount=amount, posted_by=posted_by,
                    idempotency_key=idempotency_key)
