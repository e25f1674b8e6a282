"""Writes of the table's boxes, one database transaction each; reads of what the session's
records say each box should hold.

- ``table_buy_in``: the dealer exchanges a player's cash for chips at the table; the cash
  goes into the table's drop box (its account debited, the player's chips credited).
- ``box_count``: a box of a closed session counted by two people (neither its dealer, not
  the same person twice) by denomination, compared with ``expected_amount``.
- ``table_tip``: a tip at the table entered by the dealer: a player's chips into the
  session's tips box (refused beyond what he holds), or cash dropped straight in the box.
- ``box_recount``: a box counted again by two people, superseding the earlier count.
- ``variance_explain``: a supervisor's attributed explanation of a count's variance.

A count posts what it found (``_count_effect``): the drop box's cash moves from the
table's drop box account to the cage, its variance to the count variances account
(credited over, debited short), so the drop account holds nothing of the session once
counted; the tips box's chips and cash go to the tronc (the chips recorded leave the tips
box account, the rest of the count is cash the cage takes in; chips recorded but not
found are credited to the outstanding chips account: no account on record holds them);
the cagnotte's count leaves the house account holding what was found (the difference
from the commission recorded against the outstanding chips). A recount posts the
difference.

Amounts are ``Decimal`` euros with two places. A dealer records a table buy-in at the console.
"""

from decimal import Decimal, InvalidOperation

from django.conf import settings
from django.db import IntegrityError
from django.db import transaction as db
from django.db.models import Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from boxes.errors import BoxError
from boxes.models import BoxCount, DropBox, TableBuyIn, TableTip, TipsBox, VarianceNote
from casino import formatting
from ledger import posting
from ledger.errors import AlreadyPosted, InsufficientChips, InvalidAmount
from ledger.models import Account, Entry, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT
from patrons.admission import admission_check
from patrons.models import AdmissionRefusal, Player
from tables.models import Hand, Shift
from tables.stakes import open_hands_at_risk

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
    ``settings.CAGE_SLIP_MAXIMUM``, default 100,000.00 €."""
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


@posting.refusals_recorded
def table_buy_in(*, shift: Shift, player: Player, amount: Decimal, recorded_by, idempotency_key: str = ""
                 ) -> TableBuyIn:
    """Exchange a player's cash for chips at the table: the cash goes into the table's drop
    box. Posts ``table_buy_in``: the drop box account debited, the player's chips credited.
    The cash is a movement of the patron's gaming day for the AML rules, as a buy-in at the
    cage is (``cage.services.aml``, the ledger's posting check): at the threshold without his
    identity on file it is refused and the attempt recorded.

    Args:
        shift: the table's open session (``tables.Shift``); player: the ``Player``;
        amount: ``Decimal`` euros above zero, two decimals at most, at most
        ``buy_in_limit()``; recorded_by: the session's dealer (or a pit supervisor);
        idempotency_key: optional (the form's token), so a form sent twice posts once.
    Returns:
        TableBuyIn (its ``transaction`` the posting).
    Raises:
        InvalidAmount (field ``amount``); BoxError: the session is closed (field None);
        AlreadyPosted: the key was used; a posting check's refusal (``PostingRefused``:
        the AML rules' ``AmlRefused``, field ``player``), nothing posted;
        patrons.errors.AdmissionRefused (field ``player``): he is on the exclusion
        register, under age, or without identity on file (``patrons.admission``), the
        refusal recorded, nothing else.
    """
    amount_cents = posting.amount_cents(amount)
    if euros(amount_cents) > buy_in_limit():
        raise InvalidAmount(_("the amount is above the most a buy-in may be, %(limit)s"),
                            params={"limit": formatting.money(buy_in_limit())}, field="amount")
    if not isinstance(player, Player) or player.pk is None:
        raise TypeError(f"player must be a saved Player, not {player!r}")
    # Before his chips account is made: a patron refused leaves nothing but the refusal.
    admission_check(player=player, where=AdmissionRefusal.Where.TABLE_BUY_IN, by=recorded_by, place=shift.table.name)
    chips = posting.player_accounts([player.pk])[player.pk]
    with posting.refuse_second_posting(idempotency_key or ""), db.atomic():
        shift = Shift.objects.select_for_update().select_related("table").get(pk=shift.pk)
        if not shift.is_open:
            raise BoxError(_("the session at %(table)s is closed: a table buy-in goes into an open session"),
                           params={"table": shift.table.name})
        drop = _drop_account(shift.table)
        number = TableBuyIn.objects.filter(shift__table=shift.table).count() + 1
        reference = f"table buy-in {shift.table.name} #{number}"
        key = idempotency_key or f"table_buy_in:{shift.table_id}:{number}"
        locked = posting.lock([chips, drop])
        txn = posting.post(locked=locked, kind=Transaction.Kind.TABLE_BUY_IN,
                    legs=[(drop, DEBIT, amount_cents), (chips, CREDIT, amount_cents)],
                    idempotency_key=key, reference=reference, posted_by=recorded_by, source="console",
                    detail={"table": shift.table_id, "shift": shift.pk, "player": player.code},
                    cause={"kind": "table_buy_in", "table": shift.table.name, "number": number})
        return TableBuyIn.objects.create(shift=shift, player=player, amount=euros(amount_cents), transaction=txn,
                                         recorded_by=recorded_by, recorded_at=txn.posted_at)


# ---------------------------------------------------------------------------------------
# Tips at the table


def _tips_box_account(shift):
    """The id of the session's tips box account, created (with its ``TipsBox``) on first
    use under the session's row lock (held by the caller)."""
    box = TipsBox.objects.filter(shift=shift).values_list("account_id", flat=True).first()
    if box is None:
        account = Account.objects.create(kind=Account.Kind.TIPS_BOX)
        TipsBox.objects.create(shift=shift, account=account)
        box = account.pk
    return box


def table_tip(*, shift: Shift, amount: Decimal, recorded_by, player: Player | None = None,
              idempotency_key: str = "") -> TableTip:
    """Record a tip at the table, entered by the dealer at the console.

    With ``player``: he tips in chips: posts ``tip``, his chips debited, the session's tips
    box account credited. Without: cash put straight into the tips box, recorded by the
    dealer with no posting (the cash enters the ledger when the box is counted into the
    cage). Either way the tip is part of what the tips box is expected to hold.

    Args:
        shift: the table's open session; amount: ``Decimal`` euros above zero, two
        decimals at most; recorded_by: the session's dealer (or a pit supervisor);
        player: the tipping ``Player`` or None (cash); idempotency_key: optional (the
        form's token, the API's key), so a tip sent twice is recorded once.
    Returns:
        TableTip (``transaction`` its posting, None for cash).
    Raises:
        InvalidAmount (field ``amount``); InsufficientChips (field ``amount``): the tip is
        above the player's chips less what he has at risk in open hands (the message
        names him and his holding); BoxError: the session is closed; AlreadyPosted: the
        key was used.
    [Madrid, Decreto 58/2006 art. 19.6]
    """
    amount_cents = posting.amount_cents(amount)
    key = idempotency_key or ""
    if player is not None and (not isinstance(player, Player) or player.pk is None):
        raise TypeError(f"player must be a saved Player or None, not {player!r}")
    if key:
        earlier = TableTip.objects.filter(key=key).first()
        if earlier is not None:
            raise AlreadyPosted(_("already recorded: tip #%(id)s has the key %(key)s"),
                                params={"id": earlier.pk, "key": key}, idempotency_key=key,
                                transaction_id=earlier.transaction_id)
    chips = posting.player_accounts([player.pk])[player.pk] if player is not None else None
    with posting.refuse_second_posting(f"tip:{key}" if key else ""), db.atomic():
        shift = Shift.objects.select_for_update().select_related("table").get(pk=shift.pk)
        if not shift.is_open:
            raise BoxError(_("the session at %(table)s is closed: a tip is recorded in an open session"),
                           params={"table": shift.table.name})
        txn = None
        if player is not None:
            box = _tips_box_account(shift)
            locked = posting.lock([chips, box])
            holding = cents(locked[chips].balance)
            in_play = open_hands_at_risk(codes=[player.code]).get(player.code, 0)
            if holding - in_play < amount_cents:
                raise InsufficientChips(
                    _("%(player)s holds %(holding)s in chips, %(in_play)s of them at risk in open hands: he "
                      "cannot tip %(amount)s"),
                    params={"player": player.code, "holding": formatting.money(euros(holding)),
                            "in_play": formatting.money(euros(in_play)), "amount": formatting.money(euros(amount_cents))}, field="amount")
            number = TableTip.objects.filter(shift=shift).count() + 1
            txn = posting.post(locked=locked, kind=Transaction.Kind.TIP,
                        legs=[(chips, DEBIT, amount_cents), (box, CREDIT, amount_cents)],
                        idempotency_key=f"tip:{key}" if key else f"tip:{shift.pk}:{number}",
                        reference=f"tip {shift.table.name} session #{shift.pk} #{number}",
                        posted_by=recorded_by, source="console",
                        detail={"table": shift.table_id, "shift": shift.pk, "player": player.code},
                        cause={"kind": "tip", "table": shift.table.name, "shift": shift.pk, "number": number,
                               "player": player.code})
        try:
            with db.atomic():
                return TableTip.objects.create(
                    shift=shift, kind=TableTip.Kind.CHIPS if player is not None else TableTip.Kind.CASH,
                    player=player, amount=euros(amount_cents), transaction=txn, recorded_by=recorded_by,
                    recorded_at=txn.posted_at if txn else timezone.now(), key=key)
        except IntegrityError:
            raise AlreadyPosted(_("already recorded: a tip has the key %(key)s"), params={"key": key},
                                idempotency_key=key) from None


def session_tips(shift: Shift, kind: str | None = None) -> Decimal:
    """The tips recorded at the console in the session (``kind`` ``chips`` or ``cash``,
    or both), Decimal euros."""
    tips = TableTip.objects.filter(shift=shift)
    if kind:
        tips = tips.filter(kind=kind)
    return (tips.aggregate(total=Sum("amount"))["total"] or Decimal("0.00")).quantize(CENT)


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
    its hands' commission; the tips, the tips recorded at the console (chips and cash: a
    cash tip nobody recorded cannot be expected, it shows as the count's surplus)."""
    if box == BoxCount.Box.DROP:
        return session_buy_ins(shift)
    if box == BoxCount.Box.CAGNOTTE:
        return session_commission(shift)
    return session_tips(shift)


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
                           params={"value": formatting.money(face), "count": count}, field="denominations")
        if count:
            shaped[str(face)] = shaped.get(str(face), 0) + count
    return shaped


def _count_effect(shift: Shift, box: str, total_cents: int) -> dict:
    """What the ledger should hold from a count of ``total_cents`` of ``box``:
    ``{account id: signed cents}`` (credits positive), summing to zero.

    - drop: the table's drop box account credited the session's buy-ins (back to zero for
      the session), the cage debited the cash counted, the difference (counted − buy-ins)
      credited to the count variances account (a shortfall is a debit);
    - tips: the session's tips box account debited its chips, the tronc credited the
      count, the cage debited what is beyond the chips (cash); chips recorded but not in
      the box are credited to the outstanding chips account (still in someone's hands);
    - cagnotte: the commission is the house's at each hand's settlement (the house
      account credited the session's commission); the count leaves the house holding
      what it found: the house credited what it found beyond the commission recorded
      (the outstanding chips debited), debited what it found short of it (the
      outstanding chips credited: chips levied that are not in the box).

    One sign convention (``ledger.models.Account``): a count that found more than the
    records credits the account of what it found, less debits it; the count variances
    account is the cash boxes' (credited over, debited short: ``BoxCount.variance``'s
    sign), the outstanding chips account the chip boxes' counterpart.
    """
    effect = {}
    if box == BoxCount.Box.DROP:
        recorded = cents(session_buy_ins(shift))
        if not recorded and not total_cents:
            return {}
        if recorded:
            effect[_drop_account(shift.table)] = recorded
        cage, variance = posting.singleton_account(Account.Kind.CAGE), posting.singleton_account(Account.Kind.VARIANCE)
        effect[cage] = effect.get(cage, 0) - total_cents
        effect[variance] = effect.get(variance, 0) + total_cents - recorded
    elif box == BoxCount.Box.TIPS:
        chips = cents(session_tips(shift, TableTip.Kind.CHIPS))
        if not chips and not total_cents:
            return {}
        if chips:
            effect[_tips_box_account(shift)] = -chips
        from boxes.tronc import tronc_account

        cage, tronc = posting.singleton_account(Account.Kind.CAGE), tronc_account()
        effect[tronc] = total_cents
        if total_cents > chips:
            effect[cage] = -(total_cents - chips)
        elif chips > total_cents:
            effect[posting.singleton_account(Account.Kind.CHIPS_OUT)] = chips - total_cents
    elif box == BoxCount.Box.CAGNOTTE:
        difference = total_cents - cents(session_commission(shift))
        if difference:
            effect[posting.singleton_account(Account.Kind.HOUSE)] = difference
            effect[posting.singleton_account(Account.Kind.CHIPS_OUT)] = -difference
    return {account: amount for account, amount in effect.items() if amount}


def _posted_effect(count: BoxCount) -> dict:
    """What the counts of ``count``'s chain (it and the counts it superseded) posted:
    ``{account id: signed cents}``."""
    ids, keys, link = [], [], count
    while link is not None:
        if link.transaction_id:
            ids.append(link.transaction_id)
        keys.append(f"tips:{link.pk}")  # a tips count posted before its posting was linked
        link = link.supersedes
    effect = {}
    for account, side, amount in (Entry.objects.filter(transaction__in=Transaction.objects.filter(
            pk__in=ids) | Transaction.objects.filter(idempotency_key__in=keys))
            .values_list("account_id", "side", "amount")):
        effect[account] = effect.get(account, 0) + (cents(amount) if side == CREDIT else -cents(amount))
    return effect


def _post_count(*, shift, box, total, earlier, recorded_by, number):
    """Post the difference between what a count of ``total`` should leave in the ledger
    and what the earlier counts of the box posted. Returns the Transaction or None."""
    target = _count_effect(shift, box, cents(total))
    before = _posted_effect(earlier) if earlier is not None else {}
    delta = {account: target.get(account, 0) - before.get(account, 0) for account in set(target) | set(before)}
    legs = [(account, CREDIT if amount > 0 else DEBIT, abs(amount)) for account, amount in sorted(delta.items())
            if amount]
    if not legs:
        return None
    locked = posting.lock([account for account, _s, _a in legs])
    kind = Transaction.Kind.TIPS if box == BoxCount.Box.TIPS else Transaction.Kind.BOX_COUNT
    what = "recount" if earlier is not None else "count"
    return posting.post(locked=locked, kind=kind, legs=legs, idempotency_key=f"box_count:{shift.pk}:{box}:{number}",
                 reference=f"{box} {what}, {shift.table.name} session #{shift.pk}", posted_by=recorded_by,
                 source="pit", detail={"shift": shift.pk, "box": box, "total": str(total), "count": number},
                 cause={"kind": "box_count", "box": box, "table": shift.table.name, "shift": shift.pk,
                        "recount": earlier is not None})


def session_dealers(shift: Shift) -> set[int]:
    """The ids of the users who dealt ``shift``'s session: its first dealer and every
    dealer who relieved one there. None of them counts its boxes (``box_count``,
    ``box_recount``); the count's form does not offer them."""
    return {shift.dealer_id, *shift.reliefs.values_list("relieving_id", flat=True)}


def _check_counters(shift, first_counter, second_counter):
    if first_counter is None or second_counter is None:
        raise BoxError(_("a box is counted by two people: name both"), field="second_counter")
    if first_counter.pk == second_counter.pk:
        raise BoxError(_("%(user)s cannot count twice: a box is counted by two different people"),
                       params={"user": first_counter.get_username()}, field="second_counter")
    dealers = session_dealers(shift)
    for field, user in (("first_counter", first_counter), ("second_counter", second_counter)):
        if user.pk in dealers:
            raise BoxError(_("%(user)s dealt this session: the dealer does not count its boxes"),
                           params={"user": user.get_username()}, field=field)


def _record_count(*, shift, box, shaped, first_counter, second_counter, recorded_by, earlier=None, reason=""):
    number = BoxCount.objects.filter(shift=shift, box=box).count() + 1
    total = sum((Decimal(value) * count for value, count in shaped.items()), Decimal("0.00")).quantize(CENT)
    expected = expected_amount(shift, box)
    txn = _post_count(shift=shift, box=box, total=total, earlier=earlier, recorded_by=recorded_by, number=number)
    try:
        with db.atomic():
            return BoxCount.objects.create(
                shift=shift, box=box, denominations=shaped, total=total, expected=expected,
                variance=None if expected is None else total - expected, first_counter=first_counter,
                second_counter=second_counter, recorded_by=recorded_by, supersedes=earlier, reason=reason,
                transaction=txn, counted_at=txn.posted_at if txn else timezone.now())
    except IntegrityError:
        if earlier is not None:
            raise BoxError(_("this count was recounted already: recount the latest"), field="count") from None
        raise BoxError(_("the %(box)s of this session was counted already"),
                       params={"box": BoxCount.Box(box).label}, field="box") from None


def box_count(*, shift: Shift, box: str, pieces: dict, first_counter, second_counter, recorded_by) -> BoxCount:
    """Record the count of one box of a closed session, by denomination.

    Args:
        shift: the closed session; box: ``"drop"``, ``"cagnotte"`` or ``"tips"``;
        pieces: ``{face value (str or Decimal): pieces (int)}``; first_counter,
        second_counter: the two users who counted (two people, neither the session's
        dealer); recorded_by: the supervisor who records it.
    Returns:
        BoxCount, with ``expected`` and ``variance`` (``total − expected``) kept and its
        posting (``transaction``, see ``_count_effect``: the drop into the cage, the tips
        into the tronc).
    Raises:
        BoxError naming the field: an unknown box; the session still open; the box counted
        already (recount it: ``box_recount``); one person twice; the dealer counting; a
        bad denomination or count.
    A box is counted by two people (neither the table's dealer), by denomination.
    """
    if box not in BoxCount.Box.values:
        raise BoxError(_("%(box)s is not a box of the table"), params={"box": box}, field="box")
    shaped = parse_pieces(pieces)
    if first_counter is None or second_counter is None:
        raise BoxError(_("a box is counted by two people: name both"), field="second_counter")
    with db.atomic():
        shift = Shift.objects.select_for_update().select_related("table", "dealer").get(pk=shift.pk)
        if shift.is_open:
            raise BoxError(_("the session is still open: its boxes are counted once it is closed"))
        _check_counters(shift, first_counter, second_counter)
        if BoxCount.objects.filter(shift=shift, box=box).exists():
            raise BoxError(_("the %(box)s of this session was counted already"),
                           params={"box": BoxCount.Box(box).label}, field="box")
        return _record_count(shift=shift, box=box, shaped=shaped, first_counter=first_counter,
                             second_counter=second_counter, recorded_by=recorded_by)


def box_recount(*, count: BoxCount, pieces: dict, first_counter, second_counter, reason: str, recorded_by
                ) -> BoxCount:
    """Count a box again: a new count superseding ``count`` (which stays on record), by
    two people (different, neither the session's dealer: PostgreSQL checks it too), with
    the reason. Its variance is recomputed against the records as they are now; the
    ledger gets the difference from what the earlier count posted.

    Args:
        count: the latest count of the box; pieces: as ``box_count``; first_counter,
        second_counter: the two who counted again; reason: why (required);
        recorded_by: the supervisor who records it.
    Returns:
        the new BoxCount (``supersedes`` the earlier one).
    Raises:
        BoxError naming the field: no reason (``reason``); ``count`` already recounted
        (``count``); a tips count shared out in a tronc distribution (``count``); the
        counters as ``box_count``; a bad denomination or count (``denominations``).
    Nothing is edited: a mistake is a new, attributed count.
    """
    reason = (reason or "").strip()
    if not reason:
        raise BoxError(_("say why the box is counted again"), field="reason")
    shaped = parse_pieces(pieces)
    if first_counter is None or second_counter is None:
        raise BoxError(_("a box is counted by two people: name both"), field="second_counter")
    with db.atomic():
        shift = Shift.objects.select_for_update().select_related("table", "dealer").get(pk=count.shift_id)
        earlier = BoxCount.objects.select_related("supersedes").get(pk=count.pk)
        if not earlier.is_latest:
            raise BoxError(_("this count was recounted already: recount the latest"), field="count")
        if earlier.box == BoxCount.Box.TIPS and earlier.tronc_distributions.exists():
            raise BoxError(_("these tips were shared out in a tronc distribution already: they cannot be "
                             "counted again"), field="count")
        _check_counters(shift, first_counter, second_counter)
        return _record_count(shift=shift, box=earlier.box, shaped=shaped, first_counter=first_counter,
                             second_counter=second_counter, recorded_by=recorded_by, earlier=earlier,
                             reason=reason)


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
        if not count.is_latest:
            raise BoxError(_("this count was recounted: explain the latest count's variance"))
        if VarianceNote.objects.filter(count=count).exists():
            raise BoxError(_("this variance was explained already"))
        return VarianceNote.objects.create(count=count, text=text, explained_by=explained_by)


def open_variances(shift: Shift):
    """The session's counts with a variance and no explanation (the open exceptions)."""
    return (BoxCount.objects.latest_counts().filter(shift=shift, note__isnull=True).exclude(variance=0)
            .exclude(variance__isnull=True).order_by("box"))
