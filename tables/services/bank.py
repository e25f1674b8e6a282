"""The bank between hands at a table (the pit): drawn for, sold, transferred, drawn down,
rebuilt, given up; who holds the next hand's bank (a 7½ passes it), and the checks before
a hand opens on it (deposited at the cage, a limited bank not wiped out). The bank's money
is ``tables.bank`` (tenures, auctions, rebuilds); these services lock the table first, so
that the bank changes only between hands. [rules.md "The bank passes"]
"""

from decimal import Decimal

from django.db import transaction as db
from django.utils.translation import gettext as _

from casino import formatting
from ledger.errors import InsufficientChips
from ledger.models import Account, Transaction
from ledger.money import euros
from ledger.posting import refusals_recorded
from ledger.selectors import player_balance
from patrons.models import Player
from tables.bank.deposits import awaiting_deposit
from tables.bank.life import bank_floor, bank_rebuild_order, bank_withdraw
from tables.bank.tenures import (
    bank_sell,
    bank_transfer,
    check_new_holder,
    check_sale,
    tenure_close,
    tenure_open,
)
from tables.errors import BankNotReady
from tables.locking import last_hand, lock_table, open_tenure
from tables.models import BankRebuild, BankTenure, Hand, Table
from tables.services.recording import hand_state, stakes
from tables.stakes import open_hands_at_risk


@refusals_recorded
def table_bank_draw(*, table: Table, holder: Player, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank drawn for at the start of a session: the first tenure at the table. Its
    capital is deposited at the cage (``cashier_bank_deposit``) before its first hand.

    Raises:
        BankNotReady: a hand is open, or a tenure is already open (sell or transfer it).
        and the ledger's refusals (InsufficientChips, InvalidSyndicate, InvalidAmount).
    """
    with db.atomic():
        table = lock_table(table.pk)
        _bank_ready(table=table, kind="draw")
        return tenure_open(table=table, holder=holder, capital=capital, shares=shares,
                           began=BankTenure.Began.DRAW, posted_by=by, deposit=True)

@refusals_recorded
def table_bank_sell(*, table: Table, buyer: Player, price: Decimal, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank sold between hands: the buyer pays the price from his chips and opens his
    tenure, whose capital is deposited at the cage before its first hand."""
    with db.atomic():
        table = lock_table(table.pk)
        tenure = _bank_ready(table=table, kind="sell")
        return bank_sell(tenure=tenure, buyer=buyer, price=price, capital=capital, shares=shares, posted_by=by,
                         deposit=True)

@refusals_recorded
def table_bank_transfer(*, table: Table, holder: Player, capital: Decimal, shares=None, by) -> BankTenure:
    """The bank handed over between hands without a price: the bank passes at the table
    (rules.md "The bank passes"), its capital from the new holder's chips on record."""
    with db.atomic():
        table = lock_table(table.pk)
        tenure = _bank_ready(table=table, kind="transfer")
        return bank_transfer(tenure=tenure, holder=holder, capital=capital, shares=shares, posted_by=by)

#: The bank changes of the pit checked by ``check_bank_change``.
BANK_CHANGES = ("draw", "sell", "transfer", "give_up")


def check_bank_change(*, table: Table, kind: str, holder: Player | None = None) -> BankTenure | None:
    """Refuse what the pit's bank change ``kind`` at ``table`` is refused for whatever
    amounts are typed: a hand open (every change); a bank already there (a draw); no bank
    (a sale, a transfer, giving it up); the bank passed to the player who holds it
    (``holder``: a sale's buyer, a transfer's new holder; ``check_new_holder``); a sale
    while a rebuild awaits its deposits (``check_sale``). The pit's pages ask it before
    their confirmation (no lock). The change's service asks the same again when it is
    made: the table's part (``_bank_ready``) under the table's lock, then ``bank_sell``
    and ``bank_transfer`` the holder's and the sale's.

    Args:
        kind: one of ``BANK_CHANGES``; holder: the new holder, if known.
    Returns:
        the table's open tenure (None for a draw).
    Raises:
        BankNotReady, TenureError: naming what to fix.
    """
    tenure = _bank_ready(table=table, kind=kind)
    if holder is not None and kind in ("sell", "transfer"):
        check_new_holder(tenure=tenure, holder=holder)
    if kind == "sell":
        check_sale(tenure=tenure)
    return tenure


def _bank_ready(*, table: Table, kind: str) -> BankTenure | None:
    """The table's part of ``check_bank_change``: no hand open; a bank for a sale, a
    transfer or giving it up (returned), none for a draw (None)."""
    if kind not in BANK_CHANGES:
        raise ValueError(f"a bank change is one of {BANK_CHANGES}, not {kind!r}")
    no_open_hand(table)
    tenure = open_tenure(table)
    if kind == "draw":
        if tenure is not None:
            raise BankNotReady(_("%(table)s already has a bank: sell or transfer it"), params={"table": table.name})
        return None
    return require_tenure(table, tenure)

#: What the caller has not read: ``pending_bank_holder``'s ``last`` (the last hand),
#: ``require_tenure``'s ``tenure``.
_UNREAD = object()

def pending_bank_holder(table: Table, tenure: BankTenure | None = None, last: Hand | None = _UNREAD,
                        players: dict | None = None):
    """The player the next hand's bank goes to: the last hand's ``next_bank`` when it
    took the bank with 7½, else the open tenure's holder; None without a bank.
    [rules.md "The bank passes"]

    Args:
        table: the Table; tenure: its open tenure (with its holder) if already read;
        last: the table's latest hand not voided (None: the table has none), if
            already read (with ``tenure``); players: ``{code: Player}`` already read, or None.
    Returns:
        a Player, or None.
    """
    tenure = open_tenure(table) if tenure is None else tenure
    if tenure is None:
        return None
    if last is _UNREAD:
        last = last_hand(table)
    if (last is not None and last.status == Hand.Status.SETTLED and last.tenure_id == tenure.pk
            and last.next_bank and last.next_bank != tenure.holder.code):
        known = (players or {}).get(last.next_bank)
        return known if known is not None else Player.objects.get(code=last.next_bank)
    return tenure.holder

def require_tenure(table, tenure=_UNREAD):
    """The table's open tenure (``tenure``, if already read: None when it has none).

    Raises:
        BankNotReady: the table has no bank yet.
    """
    tenure = open_tenure(table) if tenure is _UNREAD else tenure
    if tenure is None:
        raise BankNotReady(_("%(table)s has no bank yet: draw for it first"), params={"table": table.name})
    return tenure

def no_open_hand(table):
    """Refuse a bank change while a hand is open at ``table``.

    Raises:
        BankNotReady: naming the open hand.
    """
    open_hand = table.hands.filter(status=Hand.Status.OPEN).first()
    if open_hand is not None:
        raise BankNotReady(_("the bank changes between hands: hand #%(number)s is open"),
                           params={"number": open_hand.number})

def take_over_if_due(*, table, tenure, by, last, players=None):
    """The open tenure for the next hand, after a 7½ takeover if one is due (``tenure``:
    the table's open tenure, or None; ``last``: the table's latest hand not voided, or
    None; ``players``: ``{code: Player}`` already read, or None).

    Raises:
        BankNotReady: no bank at the table, or its taker cannot put in its capital.
    """
    tenure = require_tenure(table, tenure)
    holder = pending_bank_holder(table, tenure, last=last, players=players)
    if holder.pk == tenure.holder_id:
        return tenure
    # A table without takeover capital needs no read of the taker's chips (three statements).
    capital = min(table.bank_capital, free_chips(holder)) if table.bank_capital > 0 else Decimal("0")
    try:
        return bank_transfer(tenure=tenure, holder=holder, capital=capital, posted_by=by,
                             cause=BankTenure.Began.NATURAL, source="console" if by else "system:import")
    except InsufficientChips as error:
        raise BankNotReady(_("%(player)s takes the bank with 7½ but cannot put in its capital: %(why)s"),
                           params={"player": holder.code, "why": str(error)}) from None

def free_chips(player):
    """What ``player`` may put into a bank: his chips less what he has at risk in open
    hands (``tables.stakes``), ``Decimal`` euros, at least zero."""
    risk = open_hands_at_risk(codes=[player.code]).get(player.code, 0)
    return max(player_balance(player=player) - euros(risk), Decimal("0"))

def refuse_bank_awaiting_deposit(table, tenure):
    """A bank opened by the pit (drawn for, auctioned, sold) plays its first hand only once
    its capital is deposited at the cage, each member for his share; a bank whose rebuild
    the pit ordered plays its next hand only once the rebuild is deposited. [Melilla
    casino rules 2014 art. 52: "the bank's money is deposited at the cage before play"]

    Raises:
        BankNotReady: naming each member who still owes, and how much.
    """
    owing = awaiting_deposit(tenure)
    if not owing:
        return
    who = "; ".join(_("%(player)s owes %(amount)s") % {"player": row["player"].code, "amount": formatting.money(row["owing"])}
                    for row in owing)
    rebuild = owing[0]["rebuild"]
    if rebuild is not None:
        raise BankNotReady(
            _("the bank of %(holder)s awaits the deposit of its rebuild at the cage (%(amount)s): %(owing)s"),
            params={"holder": tenure.holder.code, "amount": formatting.money(rebuild.amount), "owing": who})
    raise BankNotReady(
        _("the bank of %(holder)s awaits its deposit at the cage (capital %(capital)s): %(owing)s"),
        params={"holder": tenure.holder.code, "capital": formatting.money(tenure.capital), "owing": who})

def refuse_wiped_out_bank(table, tenure, holds: int | None = None):
    """A limited bank whose funds no longer cover the table's minimum bet after its hands
    (a bank opened short, as a 7½ takeover with few chips, was never covered: its stakes
    are refused bet by bet, ``tenure_check_cover``) opens no hand until it is rebuilt to at least its first amount or given up. [Melilla casino rules 2014 art. 52]

    ``holds``: cents the bank holds, if the caller keeps it (an import's batch; else read).

    Raises:
        BankNotReady: naming what the bank holds, the minimum and the least rebuild.
    """
    if holds is not None:
        balance = euros(holds)
    else:
        balance = Account.objects.filter(pk=tenure.account_id).values_list("balance", flat=True).get()
    if balance < table.min_bet and tenure.hands.filter(status=Hand.Status.SETTLED).exists():
        tenure.table = table
        raise BankNotReady(_("the bank of %(holder)s holds %(balance)s, below the table's minimum of %(low)s: the pit "
                             "orders it rebuilt to at least %(floor)s or it is given up before the next hand"),
                           params={"holder": tenure.holder.code, "balance": formatting.money(balance), "low": formatting.money(table.min_bet),
                                   "floor": formatting.money(bank_floor(tenure))})

@refusals_recorded
def table_bank_withdraw(*, table: Table, amount: Decimal, by) -> Transaction:
    """The banker withdraws part of the bank (recorded by the pit, announced on the
    console): never the stakes of the hand in play.

    Raises:
        BankNotReady: no bank; the ledger's refusals (``bank_withdraw``: the amount above
        what the bank holds beyond the stakes in play, field ``amount``).
    """
    with db.atomic():
        table = lock_table(table.pk)
        tenure = require_tenure(table)
        hand = table.hands.filter(status=Hand.Status.OPEN).first()
        in_play = euros(stakes(hand_state(hand))) if hand is not None else Decimal("0")
        return bank_withdraw(tenure=tenure, amount=amount, in_play=in_play, posted_by=by)

def table_bank_rebuild(*, table: Table, amount: Decimal, by) -> BankRebuild:
    """The pit orders the bank rebuilt to at least its first amount, between hands; its
    syndicate deposits ``amount`` at the cage, each member his share, before the next hand
    (``ledger.services.bank_life.bank_rebuild_order``).

    Returns:
        the BankRebuild recorded.
    Raises:
        BankNotReady: no bank, or a hand is open; the ledger's refusals
        (``bank_rebuild_order``: TenureError naming ``amount`` or ``tenure``).
    """
    with db.atomic():
        table = lock_table(table.pk)
        no_open_hand(table)
        return bank_rebuild_order(tenure=require_tenure(table), amount=amount, ordered_by=by)

def table_bank_give_up(*, table: Table, by):
    """The banker gives the bank up between hands: his tenure closes, its balance back to
    its syndicate; the table has no bank until it is drawn for or auctioned.

    Returns:
        the distribution Transaction or None (nothing left).
    """
    with db.atomic():
        table = lock_table(table.pk)
        tenure = _bank_ready(table=table, kind="give_up")
        return tenure_close(tenure=tenure, ended=BankTenure.Ended.CLOSED, posted_by=by)
