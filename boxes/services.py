"""Writes of the table's boxes, one database transaction each; reads of what the session's
records say each box should hold.

- ``table_buy_in``: the dealer exchanges a player's cash for chips at the table; the cash
  goes into the table's drop box (its account debited, the player's chips credited).
- ``box_count``: a box of a closed session counted by two people (neither its dealer, not
  the same person twice) by denomination, compared with ``expected_amount``.
- ``variance_explain``: a supervisor's attributed explanation of a count's variance.

Amounts are ``Decimal`` euros with two places. [issue 16 "Table sessions"; issue 14 "Chips":
a dealer records a table buy-in in the console]
"""

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import IntegrityError
from django.db import transaction as db
from django.db.models import Sum
from django.utils.translation import gettext as _

from boxes.errors import BoxError
from boxes.models import BoxCount, DropBox, TableBuyIn, VarianceNote
from ledger.errors import InvalidAmount
from ledger.models import Account, Transaction
from ledger.money import euros, show
from ledger.services.posting import (
    CREDIT,
    DEBIT,
    _amount_cents,
    _ensure_player_accounts,
    _lock,
    _post,
    _refuse_second_posting,
)
from tables.models import Hand, Player, Shift

#: The face values a box is counted in (euros): notes, coins and the usual chips.
DEFAULT_DENOMINATIONS = ("1000.00", "500.00", "200.00", "100.00", "50.00", "25.00", "20.00", "10.00", "5.00",
                         "2.00", "1.00", "0.50", "0.20", "0.10", "0.05", "0.02", "0.01")
CENT = Decimal("0.01")


def denominations():
    """The face values a count is entered in: ``settings.BOX_DENOMINATIONS`` (strings of
    euros) or ``DEFAULT_DENOMINATIONS``, highest first, as ``Decimal``."""
    values = getattr(settings, "BOX_DENOMINATIONS", DEFAULT_DENOMINATIONS)
    return sorted((Decimal(value).quantize(CENT) for value in values), reverse=True)


def buy_in_limit():
    """The most one table buy-in may be: the cage's maximum per slip,
    ``settings.CAGE_SLIP_MAXIMUM`` (issue 14), default 100,000.00 €."""
    return Decimal(str(getattr(settings, "CAGE_SLIP_MAXIMUM", "100000.00")))


# ---------------------------------------------------------------------------------------
# Table buy-in


def _drop_account(table):
    """The id of the table's drop box account, created (with its ``DropBox``) on first use
    under the table's row lock (held by the caller)."""
    box = DropBox.objects.filter(table=table).values_list("account_id", flat=True).first()
    if box is None:
        account = Account.objects.create(kind=Account.Kind.DROP)
        DropBox.objects.create(table=table, account=account)
        box = account.pk
    return box


def table_buy_in(*, shift: Shift, player: Player, amount: Decimal, recorded_by, idempotency_key: str = ""
                 ) -> TableBuyIn:
    """Exchange a player's cash for chips at the table: the cash goes into the table's drop
    box. Posts ``table_buy_in``: the drop box account debited, the player's chips credited.

    Args:
        shift: the table's open session (``tables.Shift``); player: the ``Player``;
        amount: ``Decimal`` euros above zero, two decimals at most, at most
        ``buy_in_limit()``; recorded_by: the session's dealer (or a pit supervisor);
        idempotency_key: optional (the form's token), so a form sent twice posts once.
    Returns:
        TableBuyIn (its ``transaction`` the posting).
    Raises:
        InvalidAmount (field ``amount``); BoxError: the session is closed (field None);
        AlreadyPosted: the key was used.
    [issue 14 "Chips"; issue 16 "the counted drop with the table buy-ins"]
    """
    amount_cents = _amount_cents(amount)
    if euros(amount_cents) > buy_in_limit():
        raise InvalidAmount(_("the amount is above the most a buy-in may be, %(limit)s"),
                            params={"limit": show(buy_in_limit())}, field="amount")
    if not isinstance(player, Player) or player.pk is None:
        raise TypeError(f"player must be a saved Player, not {player!r}")
    chips = _ensure_player_accounts([player.pk])[player.pk]
    with _refuse_second_posting(idempotency_key or ""), db.atomic():
        shift = Shift.objects.select_for_update().select_related("table").get(pk=shift.pk)
        if not shift.is_open:
            raise BoxError(_("the session at %(table)s is closed: a table buy-in goes into an open session"),
                           params={"table": shift.table.name})
        drop = _drop_account(shift.table)
        number = TableBuyIn.objects.filter(shift__table=shift.table).count() + 1
        reference = f"table buy-in {shift.table.name} #{number}"
        key = idempotency_key or f"table_buy_in:{shift.table_id}:{number}"
        locked = _lock([chips, drop])
        txn = _post(locked=locked, kind=Transaction.Kind.TABLE_BUY_IN,
                    legs=[(drop, DEBIT, amount_cents), (chips, CREDIT, amount_cents)],
                    idempotency_key=key, reference=reference, posted_by=recorded_by, source="console",
                    detail={"table": shift.table_id, "shift": shift.pk, "player": player.code},
                    cause={"kind": "table_buy_in", "table": shift.table.name, "number": number})
        return TableBuyIn.objects.create(shift=shift, player=player, amount=euros(amount_cents), transaction=txn,
                                         recorded_by=recorded_by, recorded_at=txn.posted_at)


# ---------------------------------------------------------------------------------------
# What the records say a box holds


def session_commission(shift: Shift) -> Decimal:
    """The commission (cagnotte) the session's settled hands computed, Decimal euros."""
    total = Decimal("0.00")
    for settlement in (Hand.objects.filter(shift=shift, status=Hand.Status.SETTLED)
                       .values_list("settlement", flat=True)):
        total += Decimal(settlement.get("commission") or "0")
    return total.quantize(CENT)


def session_buy_ins(shift: Shift) -> Decimal:
    """The table buy-ins recorded in the session, Decimal euros."""
    return (TableBuyIn.objects.filter(shift=shift).aggregate(total=Sum("amount"))["total"]
            or Decimal("0.00")).quantize(CENT)


def expected_amount(shift: Shift, box: str) -> Decimal | None:
    """What the session's records say ``box`` holds: the drop, its buy-ins; the cagnotte,
    its hands' commission; the tips, None (nothing records them)."""
    if box == BoxCount.Box.DROP:
        return session_buy_ins(shift)
    if box == BoxCount.Box.CAGNOTTE:
        return session_commission(shift)
    return None


# ---------------------------------------------------------------------------------------
# Counts


def parse_pieces(pieces) -> dict:
    """``{face value: pieces}`` checked: each value one of ``denominations()``, each count
    a whole number 0 or more. Returns ``{"50.00": 3}`` (zero counts left out).

    Raises:
        BoxError (field ``denominations``) naming the value at fault.
    """
    allowed = set(denominations())
    shaped = {}
    for value, count in dict(pieces).items():
        try:
            face = Decimal(str(value)).quantize(CENT)
        except (InvalidOperation, ValueError):
            face = None
        if face is None or face not in allowed:
            raise BoxError(_("%(value)s is not a denomination the boxes are counted in"),
                           params={"value": value}, field="denominations")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0 or count > 10**6:
            raise BoxError(_("the pieces of %(value)s € must be a whole number from 0 to 1,000,000, not %(count)s"),
                           params={"value": show(face), "count": count}, field="denominations")
        if count:
            shaped[str(face)] = shaped.get(str(face), 0) + count
    return shaped


def box_count(*, shift: Shift, box: str, pieces: dict, first_counter, second_counter, recorded_by) -> BoxCount:
    """Record the count of one box of a closed session, by denomination.

    Args:
        shift: the closed session; box: ``"drop"``, ``"cagnotte"`` or ``"tips"``;
        pieces: ``{face value (str or Decimal): pieces (int)}``; first_counter,
        second_counter: the two users who counted (two people, neither the session's
        dealer); recorded_by: the supervisor who records it.
    Returns:
        BoxCount, with ``expected`` and ``variance`` (``total − expected``) kept. A tips
        box's count is posted to the tronc at once (``boxes.tronc.post_tips``).
    Raises:
        BoxError naming the field: an unknown box; the session still open; the box counted
        already; one person twice; the dealer counting; a bad denomination or count.
    [issue 16: "counted by two people (neither the table's dealer), by denomination"]
    """
    if box not in BoxCount.Box.values:
        raise BoxError(_("%(box)s is not a box of the table"), params={"box": box}, field="box")
    shaped = parse_pieces(pieces)
    if first_counter is None or second_counter is None:
        raise BoxError(_("a box is counted by two people: name both"), field="second_counter")
    if first_counter.pk == second_counter.pk:
        raise BoxError(_("%(user)s cannot count twice: a box is counted by two different people"),
                       params={"user": first_counter.get_username()}, field="second_counter")
    with db.atomic():
        shift = Shift.objects.select_for_update().select_related("table", "dealer").get(pk=shift.pk)
        if shift.is_open:
            raise BoxError(_("the session is still open: its boxes are counted once it is closed"))
        for field, user in (("first_counter", first_counter), ("second_counter", second_counter)):
            if user.pk == shift.dealer_id:
                raise BoxError(_("%(user)s dealt this session: the dealer does not count its boxes"),
                               params={"user": user.get_username()}, field=field)
        if BoxCount.objects.filter(shift=shift, box=box).exists():
            raise BoxError(_("the %(box)s of this session was counted already"),
                           params={"box": BoxCount.Box(box).label}, field="box")
        total = sum((Decimal(value) * count for value, count in shaped.items()), Decimal("0.00")).quantize(CENT)
        expected = expected_amount(shift, box)
        try:
            with db.atomic():
                count = BoxCount.objects.create(
                    shift=shift, box=box, denominations=shaped, total=total, expected=expected,
                    variance=None if expected is None else total - expected, first_counter=first_counter,
                    second_counter=second_counter, recorded_by=recorded_by)
        except IntegrityError:
            raise BoxError(_("the %(box)s of this session was counted already"),
                           params={"box": BoxCount.Box(box).label}, field="box") from None
        if box == BoxCount.Box.TIPS:
            from boxes.tronc import post_tips

            post_tips(count, recorded_by)
        return count


def variance_explain(*, count: BoxCount, text: str, explained_by) -> VarianceNote:
    """A supervisor explains a count's variance (who, when, why); it is then no longer an
    open exception.

    Raises:
        BoxError: no variance to explain, explained already, or an empty explanation
        (field ``text``).
    """
    text = (text or "").strip()
    if not text:
        raise BoxError(_("say why the count differs"), field="text")
    with db.atomic():
        count = BoxCount.objects.select_for_update().get(pk=count.pk)
        if not count.variance:
            raise BoxError(_("this count has no variance to explain"))
        if VarianceNote.objects.filter(count=count).exists():
            raise BoxError(_("this variance was explained already"))
        return VarianceNote.objects.create(count=count, text=text, explained_by=explained_by)


def open_variances(shift: Shift):
    """The session's counts with a variance and no explanation (the open exceptions)."""
    return (BoxCount.objects.filter(shift=shift, note__isnull=True).exclude(variance=0)
            .exclude(variance__isnull=True).order_by("box"))
