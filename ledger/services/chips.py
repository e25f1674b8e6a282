"""Chips that change hands away from the cage and the tables: a migration's opening chips,
and a transfer between two players recorded by the pit.

Both follow ``ledger.services``' rules (one transaction, accounts locked in id order,
refusals before any write). [issue 14 "Chips"]
"""

from decimal import Decimal

from django.db import transaction as db
from django.utils.translation import gettext as _

from ledger.errors import InsufficientChips, InvalidAmount
from ledger.models import Account, Transaction
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
    _source,
)
from tables.models import Player
from tables.stakes import open_hands_at_risk


def chips_opening(*, player: Player, amount: Decimal, posted_by=None, source: str = "") -> Transaction:
    """Book a player's opening chips when a migration (``import_hands --opening-chips``)
    creates him: what he held before the records begin, sold by the cage like a buy-in but
    marked as such (kind ``opening``, no cashier slip, ``detail {"opening": true}``).
    Once per player ever (idempotency key ``opening:<player id>``).

    Args:
        player: a saved Player; amount: ``Decimal`` euros above zero; posted_by: the user
        running the import, or None (the system: ``source`` ``system:import``).
    Returns:
        Transaction of kind ``opening``.
    Raises:
        InvalidAmount, AlreadyPosted (he has his opening chips already).
    """
    amount_cents = _amount_cents(amount)
    source = _source(posted_by, source, "import")
    key = f"opening:{player.pk}"
    with _refuse_second_posting(key), db.atomic():
        _check_new_key(key)
        chips = _ensure_player_accounts([player.pk])[player.pk]
        cage = _singleton_account(Account.Kind.CAGE)
        locked = _lock([chips, cage])
        return _post(locked=locked, kind=Transaction.Kind.OPENING,
                     legs=[(cage, DEBIT, amount_cents), (chips, CREDIT, amount_cents)],
                     idempotency_key=key, reference=f"opening chips {player.code}", posted_by=posted_by,
                     source=source, detail={"opening": True, "player": player.code})
