"""Chips that change hands away from the cage and the tables: a migration's opening chips
(``chips_opening``), and a transfer between two players recorded by the pit
(``chips_transfer``).

Both follow ``ledger.posting``'s rules (one transaction, accounts locked in id order,
refusals before any write).
"""

import uuid
from decimal import Decimal

from django.db import transaction as db
from django.utils.translation import gettext as _

from casino import formatting
from ledger import posting
from ledger.errors import InsufficientChips, InvalidTransfer
from ledger.models import Account, ChipTransfer, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT
from ledger.selectors import player_balance
from patrons.models import Player


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
    amount_cents = posting.amount_cents(amount)
    source = posting.source_of(posted_by, source, "import")
    key = f"opening:{player.pk}"
    with posting.refuse_second_posting(key), db.atomic():
        posting.check_new_key(key)
        chips = posting.player_accounts([player.pk])[player.pk]
        cage = posting.singleton_account(Account.Kind.CAGE)
        locked = posting.lock([chips, cage])
        return posting.post(locked=locked, kind=Transaction.Kind.OPENING,
                     legs=[(cage, DEBIT, amount_cents), (chips, CREDIT, amount_cents)],
                     idempotency_key=key, reference=f"opening chips {player.code}", posted_by=posted_by,
                     source=source, detail={"opening": True, "player": player.code},
                     cause={"kind": "opening", "player": player.code})


def check_chips_to_give(*, giver: Player, amount: Decimal, holding: Decimal | None = None) -> None:
    """Refuse a transfer of ``amount`` that ``giver`` cannot give: above his chips less
    what he has at risk in open hands (``ledger.posting.chips_at_risk``). The rule of
    ``chips_transfer``, which calls it under the giver's account lock; the pit's form
    calls it before its confirmation (no lock: the service checks again).

    Args:
        giver: a saved Player; amount: ``Decimal`` euros; holding: his chips (``Decimal``
        euros) as the caller read them under his account's lock, else None: read here.
    Raises:
        InsufficientChips: naming his chips, those at risk and the amount (field ``amount``).
    """
    if holding is None:
        holding = player_balance(player=giver)
    holding_cents, amount_cents = cents(holding), cents(amount)
    in_play = posting.chips_at_risk([giver.code]).get(giver.code, 0)
    if holding_cents - in_play < amount_cents:
        raise InsufficientChips(
            _("%(player)s holds %(holding)s in chips, %(in_play)s of them at risk in open hands: he cannot "
              "give %(amount)s"),
            params={"player": giver.code, "holding": formatting.money(euros(holding_cents)),
                    "in_play": formatting.money(euros(in_play)), "amount": formatting.money(euros(amount_cents))},
            field="amount")


def chips_transfer(*, giver: Player, receiver: Player, amount: Decimal, reason: str, posted_by,
                   idempotency_key: str = "") -> Transaction:
    """Record chips handed from one player to another at the pit's sight (a gift, a
    debt paid at the table, a stake shared): the giver's chips debited, the receiver's
    credited, with the pit supervisor and the reason on the posting.

    Args:
        giver, receiver: two different saved Players; amount: ``Decimal`` euros above zero;
        reason: why, in words (the transaction's memo; required); posted_by: the pit
        supervisor's user; idempotency_key: optional (a form's token or the API's key),
        so a form sent twice posts once.
    Returns:
        Transaction of kind ``transfer``, reference ``giver → receiver``, ``detail``
        ``{"giver", "receiver", "amount"}``; its ``ChipTransfer`` record written with it.
    Raises:
        InsufficientChips: ``amount`` is above the giver's chips less what he has at risk
        in open hands (``ledger.posting.chips_at_risk``; the message names both; checked under his
        account's row lock, which a bet's check takes too).
        InvalidTransfer: the same player twice (field ``receiver``), no reason (``reason``).
        InvalidAmount, AlreadyPosted.
    """
    amount_cents = posting.amount_cents(amount)
    reason = (reason or "").strip()
    if posted_by is None or not getattr(posted_by, "is_authenticated", False):
        raise TypeError("a chip transfer needs the pit supervisor's user as posted_by")
    for player in (giver, receiver):
        if not isinstance(player, Player) or player.pk is None:
            raise TypeError(f"a transfer's players are saved Players, not {player!r}")
    if giver.pk == receiver.pk:
        raise InvalidTransfer(_("%(player)s cannot transfer chips to himself: name another player"),
                              params={"player": giver.code}, field="receiver")
    if not reason:
        raise InvalidTransfer(_("say why the chips change hands"), field="reason")
    key = idempotency_key or ""
    with posting.refuse_second_posting(key), db.atomic():
        if key:
            posting.check_new_key(key)
        accounts = posting.player_accounts([giver.pk, receiver.pk])
        locked = posting.lock(accounts.values())
        source_account = accounts[giver.pk]
        check_chips_to_give(giver=giver, amount=euros(amount_cents), holding=locked[source_account].balance)
        reference = f"{giver.code} → {receiver.code}"
        transaction = posting.post(locked=locked, kind=Transaction.Kind.TRANSFER,
                     legs=[(source_account, DEBIT, amount_cents), (accounts[receiver.pk], CREDIT, amount_cents)],
                     idempotency_key=key or f"transfer:{uuid.uuid4().hex}", reference=reference,
                     posted_by=posted_by, source="pit", memo=reason,
                     detail={"giver": giver.code, "receiver": receiver.code, "amount": str(euros(amount_cents))},
                     cause={"kind": "transfer", "giver": giver.code, "receiver": receiver.code})
        ChipTransfer.objects.create(transaction=transaction, giver=giver, receiver=receiver,
                                    amount=euros(amount_cents), reason=reason, recorded_by=posted_by,
                                    recorded_at=transaction.posted_at)
        return transaction
