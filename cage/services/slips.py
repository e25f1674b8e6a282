"""The cashier's desk: buy-ins, cash-outs and bank deposits, each a numbered slip and its
posting.

Chips are sold for cash (the cage's cash account debited, the player's chips credited) and
bought back the other way, in one transaction each (``ledger.services``' rules). A bank's
capital is deposited in cash (the cage's cash account debited, the tenure's bank
credited, a ``capital_in`` posting): cash in at the drawer and in the AML totals, as a
buy-in. What a bank pays back (a withdrawal, its final distribution) goes to its
members' chips on record, which they cash out at the cage with a cash-out slip.
A bank's capital is deposited before its first hand: one slip from the banker, or one from
each syndicate member for his share. [Melilla casino rules 2014 art. 52]
"""

from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError
from django.db import transaction as db
from django.db.models import Max, Q
from django.utils.translation import gettext as _

from cage.models import CashierSlip, SlipVoid
from cage.services.drawer import drawer_for_slip, drawer_for_void
from casino import formatting
from ledger import posting
from ledger.errors import (
    AlreadyReversed,
    InsufficientChips,
    InvalidAmount,
    TenureError,
    VoidRefused,
)
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT, refusals_recorded
from ledger.shares import split_by_shares
from patrons.admission import admission_check
from patrons.models import AdmissionRefusal, Player
from tables.models import BankTenure
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
    amount_cents = posting.amount_cents(amount)
    if amount_cents > cents(slip_maximum()):
        raise InvalidAmount(_("%(amount)s is above the cage's maximum per slip, %(maximum)s"),
                            params={"amount": formatting.money(euros(amount_cents)), "maximum": formatting.money(slip_maximum())},
                            field="amount")
    return amount_cents


def _cashier(*, kind, player, amount, posted_by, idempotency_key):
    amount_cents = check_slip_amount(amount)
    if posted_by is None or not getattr(posted_by, "is_authenticated", False):
        raise TypeError("a cashier slip needs the cashier's user as posted_by")
    if not isinstance(player, Player) or player.pk is None:
        raise TypeError(f"player must be a saved Player, not {player!r}")
    with posting.refuse_second_posting(idempotency_key or ""), db.atomic():
        if idempotency_key:
            posting.check_new_key(idempotency_key)
        if kind == CashierSlip.Kind.BUY_IN:  # a cash-out pays back chips whoever holds them
            admission_check(player=player, where=AdmissionRefusal.Where.CAGE_BUY_IN, by=posted_by)
        chips = posting.player_accounts([player.pk])[player.pk]
        cage = posting.singleton_account(Account.Kind.CAGE)
        drawer = drawer_for_slip(cashier=posted_by)  # no slip without an open drawer (locked FOR SHARE)
        locked = posting.lock([chips, cage])  # the cage's lock also serializes the slip numbers
        if kind == CashierSlip.Kind.CASH_OUT:
            in_play = open_hands_at_risk(codes=[player.code]).get(player.code, 0)
            if cents(locked[chips].balance) - in_play < amount_cents:
                raise InsufficientChips(
                    _("the cash-out of %(amount)s is above %(player)s's balance of %(balance)s, less "
                      "%(in_play)s at risk in open hands"),
                    params={"amount": formatting.money(euros(amount_cents)), "player": player.code,
                            "balance": formatting.money(locked[chips].balance), "in_play": formatting.money(euros(in_play))},
                    field="amount")
        number = (CashierSlip.objects.aggregate(last=Max("number"))["last"] or 0) + 1
        reference = f"slip {number:06d}"
        if kind == CashierSlip.Kind.BUY_IN:
            legs = [(cage, DEBIT, amount_cents), (chips, CREDIT, amount_cents)]
        else:
            legs = [(chips, DEBIT, amount_cents), (cage, CREDIT, amount_cents)]
        txn = posting.post(locked=locked, kind=kind, legs=legs, idempotency_key=idempotency_key or reference,
                    reference=reference, posted_by=posted_by, source="cashier",
                    cause={"kind": "slip", "number": number})
        return CashierSlip.objects.create(number=number, kind=kind, player=player, amount=euros(amount_cents),
                                          balance_after=locked[chips].balance, transaction=txn,
                                          issued_at=txn.posted_at, issued_by=posted_by, drawer=drawer)


@refusals_recorded
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
        patrons.errors.AdmissionRefused (field ``player``): he is on the exclusion
        register, under age, or without identity on file (unless the casino allows it:
        ``patrons.admission``); the refusal is recorded, nothing else.
    """
    return _cashier(kind=CashierSlip.Kind.BUY_IN, player=player, amount=amount, posted_by=posted_by,
                    idempotency_key=idempotency_key)


@refusals_recorded
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


def outstanding_rebuild(tenure: BankTenure):
    """The tenure's latest rebuild (``BankRebuild``) if its live deposits (voids excepted)
    do not yet cover its amount, else None. Its ``deposited`` is set (Decimal euros)."""
    from django.db.models import Q, Sum
    from django.db.models.functions import Coalesce

    from tables.models import BankRebuild

    rebuild = (BankRebuild.objects.filter(tenure_id=tenure.pk).order_by("-number")
               .annotate(deposited=Coalesce(Sum("deposits__amount", filter=Q(deposits__void__isnull=True)),
                                            Decimal("0")))
               .first())
    if rebuild is None or rebuild.deposited >= rebuild.amount:
        return None
    return rebuild


def deposits_owed(tenure: BankTenure) -> list[dict]:
    """What each member of a tenure awaiting deposits at the cage owes: for the rebuild the
    pit ordered if one awaits its deposits (``outstanding_rebuild``), else for the bank's
    capital.

    Returns:
        ``[{"player": Player, "percent": Decimal, "due": Decimal, "deposited": Decimal,
        "owing": Decimal, "rebuild": BankRebuild | None}]`` in the syndicate's order (euros;
        ``due`` his share of the capital, or of the rebuild's amount, to the cent by
        largest remainder, ``ledger.shares``; ``deposited`` his live deposit slips for it,
        voids excepted); empty for a tenure whose capital came from chips
        (``deposit_required`` false) and that awaits no rebuild.
    """
    rebuild = outstanding_rebuild(tenure)
    if rebuild is not None:
        amount = rebuild.amount
        slips = CashierSlip.objects.filter(rebuild=rebuild)
    elif tenure.deposit_required:
        amount = tenure.capital
        slips = CashierSlip.objects.filter(tenure=tenure, rebuild__isnull=True)
    else:
        return []
    shares = list(tenure.shares.select_related("player").order_by("id"))
    parts = split_by_shares(cents(amount), [share.percent for share in shares])
    paid = {}
    for player_id, paid_amount in (slips.filter(kind=CashierSlip.Kind.BANK_DEPOSIT, void__isnull=True)
                                   .values_list("player_id", "amount")):
        paid[player_id] = paid.get(player_id, 0) + cents(paid_amount)
    return [{"player": share.player, "percent": share.percent, "due": euros(part),
             "deposited": euros(paid.get(share.player_id, 0)),
             "owing": euros(max(part - paid.get(share.player_id, 0), 0)), "rebuild": rebuild}
            for share, part in zip(shares, parts, strict=True)]


def awaiting_deposit(tenure: BankTenure) -> list[dict]:
    """The members of ``tenure`` who still owe part of their deposit (``deposits_owed``'s
    rows with ``owing`` above zero); empty when the bank may play."""
    return [row for row in deposits_owed(tenure) if row["owing"] > 0]


def banks_taking_deposits():
    """The open banks that take deposits at the cage: their capital is deposited there
    (``deposit_required``), or the pit ordered a rebuild. A ``BankTenure`` queryset with
    its table and holder, by table (one open bank per table)."""
    return (BankTenure.objects.filter(Q(deposit_required=True) | Q(rebuilds__isnull=False), closed_at__isnull=True)
            .distinct().select_related("table", "holder").order_by("table__name", "id"))


def banks_awaiting_deposits() -> list[tuple[BankTenure, list[dict]]]:
    """The open banks with something still owed at the cage (their capital, or a rebuild
    the pit ordered), each with every member's ``deposits_owed`` row (those paid up
    included): ``[(BankTenure, [row])]``, by table."""
    banks = []
    for tenure in banks_taking_deposits():
        members = deposits_owed(tenure)
        if any(row["owing"] > 0 for row in members):
            banks.append((tenure, members))
    return banks


@refusals_recorded
def cashier_bank_deposit(*, tenure: BankTenure, player: Player, amount: Decimal, posted_by,
                         idempotency_key: str = "") -> CashierSlip:
    """A syndicate member deposits cash at the cage for his share of a bank's capital, or
    of the rebuild the pit ordered (``ledger.services.bank_life.bank_rebuild_order``): the
    cage's cash account debited, the tenure's bank credited (a ``capital_in`` posting, a
    ``bank_rebuild`` one for a rebuild), a numbered slip of kind ``bank_deposit`` issued
    against the cashier's open drawer.

    Args:
        tenure: an open BankTenure awaiting deposits (its capital, ``deposit_required``, or
        a rebuild: ``deposits_owed``); player: a member of its syndicate (the banker
        alone: the holder); amount: ``Decimal`` euros above zero, at most what he still
        owes (in one slip or several); posted_by: the cashier's user; idempotency_key: as
        ``cashier_buy_in``.
    Returns:
        CashierSlip of kind ``bank_deposit`` (``tenure`` set, ``rebuild`` for a rebuild's;
        ``balance_after``: the player's chips, which it does not change).
    Raises:
        TenureError: the tenure is closed, awaits no deposit, the player is not of its
        syndicate (field ``player``), or the amount is above what he owes (field
        ``amount``, the amount owed named).
        InvalidAmount, AlreadyPosted, DrawerError, AmlRefused, AdmissionRefused (cash in,
        as a buy-in).
    [Melilla casino rules 2014 art. 52: "the bank's money is deposited at the
    cage before play"; "a bank wiped out is rebuilt to at least its first amount"]
    """
    amount_cents = check_slip_amount(amount)
    if posted_by is None or not getattr(posted_by, "is_authenticated", False):
        raise TypeError("a cashier slip needs the cashier's user as posted_by")
    with posting.refuse_second_posting(idempotency_key or ""), db.atomic():
        if idempotency_key:
            posting.check_new_key(idempotency_key)
        admission_check(player=player, where=AdmissionRefusal.Where.BANK_DEPOSIT, by=posted_by)
        chips = posting.player_accounts([player.pk])[player.pk]
        cage = posting.singleton_account(Account.Kind.CAGE)
        drawer = drawer_for_slip(cashier=posted_by)
        tenure = BankTenure.objects.select_for_update().select_related("table").get(pk=tenure.pk)
        bank = tenure.account_id
        locked = posting.lock([chips, cage, bank])
        if tenure.closed_at is not None or not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is closed: it takes no deposit"),
                              params={"tenure": tenure.pk}, field="tenure")
        rows = deposits_owed(tenure)
        if not rows:
            raise TenureError(_("bank tenure #%(tenure)s took its capital from chips: it takes no deposit"),
                              params={"tenure": tenure.pk}, field="tenure")
        row = next((row for row in rows if row["player"].pk == player.pk), None)
        if row is None:
            raise TenureError(_("%(player)s is not of the syndicate of bank tenure #%(tenure)s"),
                              params={"player": player.code, "tenure": tenure.pk}, field="player")
        rebuild = row["rebuild"]
        if cents(row["owing"]) == 0:
            if rebuild is not None:
                raise TenureError(_("%(player)s has deposited all his share of the bank's rebuild: he owes nothing"),
                                  params={"player": player.code}, field="player")
            raise TenureError(_("%(player)s has deposited all his share of the bank's capital: he owes nothing"),
                              params={"player": player.code}, field="player")
        if amount_cents > cents(row["owing"]):
            if rebuild is not None:
                raise TenureError(_("%(player)s owes %(owing)s of his share of the bank's rebuild, not %(amount)s"),
                                  params={"player": player.code, "owing": formatting.money(row["owing"]),
                                          "amount": formatting.money(euros(amount_cents))}, field="amount")
            raise TenureError(_("%(player)s owes %(owing)s of his share of the bank's capital, not %(amount)s"),
                              params={"player": player.code, "owing": formatting.money(row["owing"]),
                                      "amount": formatting.money(euros(amount_cents))}, field="amount")
        number = (CashierSlip.objects.aggregate(last=Max("number"))["last"] or 0) + 1
        reference = f"slip {number:06d}"
        detail = {"deposit": [player.code, str(euros(amount_cents))]}
        if rebuild is not None:
            detail["rebuild"] = rebuild.number
        txn = posting.post(locked=locked,
                    kind=Transaction.Kind.CAPITAL_IN if rebuild is None else Transaction.Kind.BANK_REBUILD,
                    legs=[(cage, DEBIT, amount_cents), (bank, CREDIT, amount_cents)],
                    idempotency_key=idempotency_key or reference, reference=reference, posted_by=posted_by,
                    source="cashier", patron=(player, amount_cents),
                    cause={"kind": "slip", "number": number, "tenure": tenure.pk}, detail=detail)
        return CashierSlip.objects.create(number=number, kind=CashierSlip.Kind.BANK_DEPOSIT, player=player,
                                          amount=euros(amount_cents), balance_after=locked[chips].balance,
                                          transaction=txn, issued_at=txn.posted_at, issued_by=posted_by,
                                          drawer=drawer, tenure=tenure, rebuild=rebuild)


def _bank_played_since(slip):
    """A deposit slip's bank has played since what it paid for: its first hand for the
    capital's, the next hand after the rebuild was ordered for a rebuild's."""
    hands = slip.tenure.hands.all()
    if slip.rebuild_id is not None:
        hands = hands.filter(opened_at__gte=slip.rebuild.ordered_at)
    return hands.exists()


def cashier_slip_void(*, slip: CashierSlip, reason: str, voided_by) -> SlipVoid:
    """Void a cashier slip: a cage supervisor (never the cashier who issued it) reverses
    its posting, with a reason, in one transaction.

    The reversal is the slip's transaction mirrored (a buy-in's chips go back to the
    cage, a cash-out's chips back to the player), of kind ``reversal`` linked to it; the
    slip itself is unchanged and shows VOID through its ``SlipVoid``. The void's cash
    goes through an open drawer (``drawer_for_void``: the slip's own while open, else
    the supervisor's or the cashier's current one), never a closed one, whose counted
    and signed figures stay as they were.

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
        cage.errors.DrawerError: no open drawer takes the void's cash.
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
            if slip.kind == CashierSlip.Kind.BANK_DEPOSIT and _bank_played_since(slip):
                raise VoidRefused(_("slip %(number)s is a deposit of a bank that has played: it is not voided "
                                    "(a withdrawal or the bank's distribution pays it back)"),
                                  params={"number": str(slip)})
            drawer = drawer_for_void(slip=slip, voided_by=voided_by)
            original = Transaction.objects.get(pk=slip.transaction_id)
            legs = [(account_id, CREDIT if side == DEBIT else DEBIT, cents(amount))
                    for account_id, side, amount in original.entries.order_by("id")
                    .values_list("account_id", "side", "amount")]
            locked = posting.lock(account_id for account_id, _s, _a in legs)
            chips = Account.objects.filter(player_id=slip.player_id).values_list("id", flat=True).get()
            if slip.kind == CashierSlip.Kind.BUY_IN and locked[chips].balance < slip.amount:
                raise InsufficientChips(
                    _("slip %(number)s's %(amount)s of chips are no longer %(player)s's: his balance is "
                      "%(balance)s"), params={"number": str(slip), "amount": formatting.money(slip.amount),
                                              "player": slip.player.code, "balance": formatting.money(locked[chips].balance)})
            reversal = posting.post(locked=locked, kind=Transaction.Kind.REVERSAL, legs=legs, idempotency_key=key,
                             reference=f"void of {slip.reference}", posted_by=voided_by, source="cage",
                             memo=reason, reverses=original,
                             cause={"kind": "reversal", "of": original.pk, "original": original.cause or
                                    {"kind": "slip", "number": slip.number}})
            return SlipVoid.objects.create(slip=slip, reason=reason, voided_by=voided_by,
                                           voided_at=reversal.posted_at, reversal=reversal, drawer=drawer)
    except IntegrityError as error:
        constraint = posting.constraint_of(error)
        if "no open drawer takes its cash" in constraint:  # cage_void_needs_open_drawer: a guard, not a twin
            raise
        if posting.IDEMPOTENCY_CONSTRAINT in constraint or "reverses" in constraint or "slip" in constraint:
            raise AlreadyReversed(_("slip %(number)s was already voided"), params={"number": str(slip)}) from error
        raise
