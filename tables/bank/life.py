"""The bank's life between its opening and its end: put up for auction (bids, the highest
wins, a tie drawn by lot and recorded), drawn down by its banker after a hand (never the
stakes in play), rebuilt when wiped out.

Every withdrawal is one posting on the tenure's account (kind ``bank_withdrawal``),
split among its syndicate's chips by shares to the cent (largest remainder,
``ledger.shares``). A rebuild is ordered by the pit (``BankRebuild``) and deposited at the
cage by the members, each his share (``bank_rebuild`` postings, one per slip). [France, arrêté of 14 May 2007 art. 61; Melilla
casino rules 2014 art. 52: "after the first hand the banker may withdraw part of the
bank, announcing it; a bank wiped out is rebuilt to at least its first amount or given up"]
"""

import secrets
from decimal import Decimal

from django.db import IntegrityError
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import formatting
from ledger import posting
from ledger.errors import TenureError
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT, KIND, refusals_recorded
from ledger.shares import split_by_shares
from patrons.models import Player
from tables.bank.tenures import tenure_open
from tables.models import BankAuction, BankBid, BankRebuild, BankTenure, BankWithdrawal

# ---------------------------------------------------------------------------------------
# Auction


def auction_open(*, table, sessions: int = 1, opened_by) -> BankAuction:
    """Put the bank of ``table`` up for auction, for ``sessions`` sessions (1 or more).

    Raises:
        TenureError: the table has a bank (field ``table``), an auction already open, or
        ``sessions`` below 1 (field ``sessions``).
    """
    if isinstance(sessions, bool) or not isinstance(sessions, int) or not 1 <= sessions <= 100:
        raise TenureError(_("an auction awards the bank for 1 to 100 sessions, not %(sessions)s"),
                          params={"sessions": sessions}, field="sessions")
    with db.atomic():
        if BankTenure.objects.filter(table=table, closed_at__isnull=True).exists():
            raise TenureError(_("%(table)s has a bank: it is auctioned only when it has none"),
                              params={"table": table.name}, field="table")
        try:
            with db.atomic():
                return BankAuction.objects.create(table=table, sessions=sessions, opened_by=opened_by)
        except IntegrityError:
            raise TenureError(_("%(table)s already has an auction open"), params={"table": table.name},
                              field="table") from None


def auction_bid(*, auction: BankAuction, player: Player, amount: Decimal, recorded_by) -> BankBid:
    """Record a player's bid: ``amount`` (Decimal euros) he offers as the bank's capital,
    at least the table's minimum bet. The winner proves it by depositing it at the cage
    before the bank's first hand (``cashier_bank_deposit``), not from his chips.

    Raises:
        InvalidAmount (field ``amount``); TenureError: the auction was awarded already,
        or the bid is below the table's minimum (field ``amount``).
    """
    amount_cents = posting.amount_cents(amount)
    with db.atomic():
        auction = BankAuction.objects.select_for_update().select_related("table").get(pk=auction.pk)
        if auction.awarded_at is not None:
            raise TenureError(_("this auction was awarded already"))
        if euros(amount_cents) < auction.table.min_bet:
            raise TenureError(_("a bid of %(amount)s is below the table's minimum bet, %(low)s"),
                              params={"amount": formatting.money(euros(amount_cents)), "low": formatting.money(auction.table.min_bet)},
                              field="amount")
        return BankBid.objects.create(auction=auction, player=player, amount=euros(amount_cents),
                                      recorded_by=recorded_by)


def auction_standing(auction: BankAuction):
    """``(highest amount or None, [players who bid it, by code])``: each player's highest
    bid counts."""
    best = {}
    for player_id, amount in auction.bids.values_list("player_id", "amount"):
        best[player_id] = max(amount, best.get(player_id, amount))
    if not best:
        return None, []
    top = max(best.values())
    players = sorted(Player.objects.filter(pk__in=[pid for pid, amount in best.items() if amount == top]),
                     key=lambda p: p.code)
    return top, players


@refusals_recorded
def auction_award(*, auction: BankAuction, awarded_by, rng=None) -> BankAuction:
    """Award the bank: the highest bid wins; a tie is settled by a draw of lots among the
    tied bidders (``rng.choice`` over them in code order; default a system random),
    recorded in ``auction.draw``. The winner's tenure opens (began ``auction``) with his
    bid as its capital, awaiting its deposit at the cage (``tenure_open(deposit=True)``):
    the console opens no hand on it until he has deposited it. It ends at the close of
    the last of the sessions awarded (``tables.services.shift_close``).

    Returns:
        the awarded BankAuction (``winner``, ``amount``, ``draw``, ``tenure``).
    Raises:
        TenureError: no bid, awarded already, the table has a bank.
    """
    rng = rng or secrets.SystemRandom()
    with db.atomic():
        auction = BankAuction.objects.select_for_update().select_related("table").get(pk=auction.pk)
        if auction.awarded_at is not None:
            raise TenureError(_("this auction was awarded already"))
        amount, tied = auction_standing(auction)
        if amount is None:
            raise TenureError(_("no bid yet: record the bids first"), field="player")
        draw = {}
        winner = tied[0]
        if len(tied) > 1:
            winner = rng.choice(tied)
            draw = {"tied": [p.code for p in tied], "drawn": winner.code, "at": timezone.now().isoformat()}
        tenure = tenure_open(table=auction.table, holder=winner, capital=amount, began=BankTenure.Began.AUCTION,
                             posted_by=awarded_by, deposit=True, source="pit")
        BankAuction.objects.filter(pk=auction.pk).update(
            awarded_at=timezone.now(), awarded_by=awarded_by, winner=winner, amount=amount, draw=draw, tenure=tenure)
        auction.refresh_from_db()
        return auction


# ---------------------------------------------------------------------------------------
# Withdrawals and rebuilds


def _members(tenure):
    shares = list(tenure.shares.select_related("player").order_by("id"))
    accounts = posting.player_accounts(share.player_id for share in shares)
    return shares, accounts


def _tenure_account(tenure):
    return tenure.account_id


@refusals_recorded
def bank_withdraw(*, tenure: BankTenure, amount: Decimal, in_play: Decimal = Decimal("0"), posted_by,
                  source: str = "") -> Transaction:
    """The banker withdraws part of the bank after a hand: the tenure's account debited,
    its syndicate's chips credited by shares. Never the stakes in play: at most the
    balance less ``in_play``.

    Args:
        tenure: the open tenure; amount: Decimal euros above zero; in_play: the stakes of
        the hand open at the table (Decimal euros, 0 between hands); posted_by: the pit
        supervisor.
    Returns:
        Transaction of kind ``bank_withdrawal``; its ``BankWithdrawal`` record written with it.
    Raises:
        InvalidAmount; TenureError: closed, no hand played yet by this bank, or the
        amount above what the bank holds beyond the stakes in play (field ``amount``).
    """
    amount_cents = posting.amount_cents(amount)
    in_play_cents = posting.amount_cents(in_play, "in_play", zero=True)
    source = posting.source_of(posted_by, source, "pit")
    with db.atomic():
        if not tenure.hands.filter(status="settled").exists():
            raise TenureError(_("the bank may be drawn down only after its first hand"), field="amount")
        shares, accounts = _members(tenure)
        bank = _tenure_account(tenure)
        locked = posting.lock([bank, *accounts.values()])
        if not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})
        free = cents(locked[bank].balance) - in_play_cents
        if amount_cents > free:
            raise TenureError(
                _("the bank holds %(balance)s and %(in_play)s are in play: at most %(free)s may be withdrawn, "
                  "not %(amount)s"),
                params={"balance": formatting.money(locked[bank].balance), "in_play": formatting.money(euros(in_play_cents)),
                        "free": formatting.money(euros(max(free, 0))), "amount": formatting.money(euros(amount_cents))}, field="amount")
        parts = split_by_shares(amount_cents, [share.percent for share in shares])
        number = BankWithdrawal.objects.filter(tenure=tenure).count() + 1
        legs = [(bank, DEBIT, amount_cents)]
        legs += [(accounts[share.player_id], CREDIT, part) for share, part in zip(shares, parts, strict=True) if part]
        transaction = posting.post(locked=locked, kind=KIND.BANK_WITHDRAWAL, legs=legs,
                     idempotency_key=f"tenure:{tenure.pk}:withdrawal:{number}",
                     reference=f"bank withdrawal {number}, tenure #{tenure.pk} at {tenure.table}",
                     posted_by=posted_by, source=source,
                     cause={"kind": "bank_withdrawal", "number": number, "tenure": tenure.pk,
                            "table": tenure.table.name},
                     detail={"in_play": str(euros(in_play_cents)),
                             "shares": [[share.player.code, str(share.percent), str(euros(part))]
                                        for share, part in zip(shares, parts, strict=True)]})
        BankWithdrawal.objects.create(tenure=tenure, number=number, amount=euros(amount_cents),
                                      in_play=euros(in_play_cents), transaction=transaction,
                                      ordered_by=posted_by, ordered_at=transaction.posted_at)
        return transaction


def bank_floor(tenure: BankTenure) -> Decimal:
    """What a rebuilt bank holds at least: its first amount (its capital), and never less
    than the table's minimum bet. Decimal euros."""
    return max(tenure.capital, tenure.table.min_bet)


def bank_wiped_out(tenure: BankTenure, balance: Decimal | None = None) -> bool:
    """A limited bank (``bank_cover``) whose funds no longer cover the table's minimum
    bet after its hands: it must be rebuilt or given up before the next hand. An open bank answers
    beyond its funds and is never wiped out."""
    if not tenure.table.bank_cover:
        return False
    if balance is None:
        balance = Account.objects.filter(pk=tenure.account_id).values_list("balance", flat=True).get()
    return balance < tenure.table.min_bet and tenure.hands.filter(status="settled").exists()


def refuse_healthy_bank(tenure: BankTenure, balance: Decimal) -> None:
    """A rebuild is for a limited bank wiped out (``bank_wiped_out``): refuse one ordered
    on any other bank, an open bank (it answers beyond its funds) or a limited bank that
    still covers the table's minimum or has played no hand yet.

    Args:
        tenure: the open tenure (with its table); balance: what its account holds now,
        Decimal euros.
    Raises:
        TenureError (field ``tenure``): naming the bank's balance and its capital.
    [Melilla casino rules 2014 art. 52: "a bank wiped out is rebuilt to at least its
    first amount or given up"]
    """
    if bank_wiped_out(tenure, balance):
        return
    params = {"holder": tenure.holder.code, "balance": formatting.money(balance),
              "capital": formatting.money(tenure.capital), "low": formatting.money(tenure.table.min_bet)}
    if not tenure.table.bank_cover:
        raise TenureError(_("the bank of %(holder)s holds %(balance)s against its capital of %(capital)s, and it is "
                            "an open bank, which answers beyond its funds: only a limited bank wiped out is rebuilt"),
                          params=params, field="tenure")
    raise TenureError(_("the bank of %(holder)s holds %(balance)s against its capital of %(capital)s: it is not "
                        "wiped out (a limited bank is, once after its hands it holds less than the table's minimum "
                        "of %(low)s), so it is not rebuilt"), params=params, field="tenure")


def bank_rebuild_order(*, tenure: BankTenure, amount: Decimal, ordered_by) -> BankRebuild:
    """The pit orders a wiped-out bank rebuilt, between hands: ``amount`` is to be
    deposited at the cage by its syndicate, each member his share to the cent by largest
    remainder (``ledger.shares``; ``ledger.services.cage.deposits_owed``, paid with
    ``cashier_bank_deposit``: a ``bank_rebuild`` posting per slip). Until the deposits
    cover it the console opens no hand (PostgreSQL refuses one too: ``cage/sql/0002_guards.sql``); the
    bank may be given up instead (``tenure_close``: what was deposited goes back to the
    syndicate's chips with the rest of its balance).

    Args:
        tenure: the open tenure; amount: Decimal euros above zero, at least the bank's
        first amount (``bank_floor``) less what it holds; ordered_by: the pit supervisor.
    Returns:
        the BankRebuild recorded (``number`` from 1 per tenure, ``held``: what the bank held).
    Raises:
        InvalidAmount (field ``amount``); TenureError: the tenure is closed, its capital or
        an earlier rebuild still awaits deposits, the bank is not a limited bank wiped
        out (``refuse_healthy_bank``; field ``tenure``), or ``amount`` leaves
        the bank below its first amount (field ``amount``, the least amount named).
    [Melilla casino rules 2014 art. 52: "a bank wiped out is rebuilt to at least
    its first amount or given up"; "the bank's money is deposited at the cage before play"]
    """
    from tables.bank.deposits import awaiting_deposit

    amount_cents = posting.amount_cents(amount)
    if ordered_by is None or not getattr(ordered_by, "is_authenticated", False):
        raise TypeError("a rebuild needs the pit supervisor's user as ordered_by")
    with db.atomic():
        tenure = BankTenure.objects.select_for_update().select_related("table").get(pk=tenure.pk)
        bank = _tenure_account(tenure)
        locked = posting.lock([bank])
        if tenure.closed_at is not None or not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk},
                              field="tenure")
        owing = awaiting_deposit(tenure)
        if owing:
            if owing[0]["rebuild"] is not None:
                raise TenureError(_("the bank's rebuild %(number)s still awaits its deposits at the cage"),
                                  params={"number": owing[0]["rebuild"].number}, field="tenure")
            raise TenureError(_("the bank still awaits its capital's deposits at the cage"), field="tenure")
        refuse_healthy_bank(tenure, locked[bank].balance)
        floor = cents(bank_floor(tenure))
        least = floor - cents(locked[bank].balance)
        if amount_cents < least:
            raise TenureError(_("the bank holds %(balance)s: it is rebuilt to at least its first amount, "
                                "%(floor)s, so at least %(least)s go in"),
                              params={"balance": formatting.money(locked[bank].balance), "floor": formatting.money(euros(floor)),
                                      "least": formatting.money(euros(least))}, field="amount")
        number = BankRebuild.objects.filter(tenure=tenure).count() + 1
        return BankRebuild.objects.create(tenure=tenure, number=number, amount=euros(amount_cents),
                                          held=locked[bank].balance, ordered_by=ordered_by,
                                          ordered_at=timezone.now())


def auction_sessions_played(tenure: BankTenure):
    """For a bank won at auction: ``(sessions played at its table since the award,
    sessions awarded)``; None for a bank that began otherwise. A session (the table's
    shift) counts once it is closed; the one open at the award is the first.
    [arrêté of 14 May 2007 art. 61: the bank awarded per session or several]"""
    auction = BankAuction.objects.filter(tenure=tenure).first()
    if auction is None:
        return None
    played = tenure.table.shifts.filter(closed_at__gte=auction.awarded_at).count()
    return played, auction.sessions


def last_bank_movement(tenure: BankTenure):
    """The tenure's latest withdrawal or rebuild (Transaction) or None: what the console
    announces."""
    return (Transaction.objects.filter(entries__account_id=tenure.account_id,
                                       kind__in=[KIND.BANK_WITHDRAWAL, KIND.BANK_REBUILD])
            .order_by("-id").first())


__all__ = ["auction_award", "auction_bid", "auction_open", "auction_standing", "bank_floor", "bank_rebuild_order",
           "bank_wiped_out", "bank_withdraw", "last_bank_movement", "refuse_healthy_bank"]
