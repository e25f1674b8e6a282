"""The bank's tenures: opened (drawn for, a 7½, a sale, a transfer) with the capital of
its syndicate, closed with its balance back to the syndicate by shares, sold or passed at
once, and the cover a limited bank (``bank_cover``) can still give.

[rules.md "The bank passes"]
"""

from collections import defaultdict
from contextlib import contextmanager
from decimal import Decimal
from typing import NamedTuple

from django.db import IntegrityError, connection
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import formatting
from ledger import posting
from ledger.errors import CoverExceeded, InsufficientChips, InvalidSyndicate, TenureError
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT, KIND, refusals_recorded
from ledger.shares import InvalidShares, check_percents, split_by_shares
from patrons.models import Player
from tables.models import BankTenure, SyndicateShare
from tables.stakes import open_hands_at_risk


def _syndicate(holder, shares):
    """``[(Player, Decimal percent)]`` checked: distinct players, percents summing to 100."""
    if shares is None:
        return [(holder, Decimal(100))]
    shares = [(player, Decimal(percent) if isinstance(percent, int) and not isinstance(percent, bool)
               else percent) for player, percent in shares]
    if len({player.pk for player, percent in shares}) != len(shares):
        raise InvalidSyndicate(_("a player appears twice in the syndicate"), field="shares")
    try:
        check_percents([percent for _player, percent in shares])
    except InvalidShares as error:
        raise InvalidSyndicate(_("invalid syndicate shares: %(reason)s"), params={"reason": str(error)},
                               field="shares") from None
    return shares


def _check_choice(value, choices, field):
    if value not in choices.values:
        raise TenureError(_("%(field)s must be one of %(choices)s, not %(value)s"),
                          params={"field": field, "choices": ", ".join(choices.values), "value": value},
                          field=field)


def _require_chips(locked, debits, players, field="amount"):
    """Refuse if any player account in ``debits`` ({account id: cents}) holds less, once
    what the player has at risk in open hands is set aside (``tables.stakes``), naming
    every player short of chips with his balance.

    ``players`` maps account id -> Player, for the message; ``field`` names the form
    field the refusal is about.
    """
    in_play = open_hands_at_risk(codes=[players[account_id].code for account_id in debits])
    short = [shortfall for account_id, needed in sorted(debits.items(), key=lambda item: players[item[0]].code)
             if (shortfall := chips_shortfall(code=players[account_id].code, balance=cents(locked[account_id].balance),
                                              risk=in_play.get(players[account_id].code, 0), needed=needed))]
    if short:
        raise InsufficientChips("; ".join(short), field=field)


def chips_shortfall(*, code: str, balance: int, risk: int, needed: int) -> str | None:
    """Whether a player's chips cover what a bank's change takes from them: None when his
    chips less what he has at risk in open hands cover ``needed``, else the words that
    say it ("ana holds 50,00 € in chips, 10,00 € of them at risk in open hands; 80,00 €
    are needed"). The one rule of every bank's change: opened, sold, transferred, and
    passed on a 7½ by the console or by an import's batch (``tables.import_ledger``).

    Args:
        code: the player's code; balance, risk, needed: cents.
    """
    if balance - risk >= needed:
        return None
    if risk:
        return _("%(player)s holds %(balance)s in chips, %(in_play)s of them at risk in open hands; "
                 "%(needed)s are needed") % {"player": code, "balance": formatting.money(euros(balance)),
                                             "in_play": formatting.money(euros(risk)),
                                             "needed": formatting.money(euros(needed))}
    return _("%(player)s holds %(balance)s in chips; %(needed)s are needed") % {
        "player": code, "balance": formatting.money(euros(balance)), "needed": formatting.money(euros(needed))}


def _open_tenure(*, table, holder, capital_cents, shares, began, posted_by, source, price_cents=None,
                 seller=None, pay_seller=True, previous=None, handover=None, deposit=False):
    """Open a tenure inside the caller's transaction (locks taken here, in id order,
    on accounts the caller has not locked, or already holds: ``handover``, a
    ``_Handover`` whose locks cover every payer, is used as it is). ``deposit``: the
    capital is deposited at the cage later (``cashier_bank_deposit``), nothing taken from
    chips."""
    # A bank passed (``previous``, closed just now under its locks) needs no look: the one open
    # tenure per table index refuses a second all the same (``_refuse_second_open_tenure``).
    # One statement fewer per bank passed: 6.5 to 6.2 a hand on benchmarks/import.py's hands.
    if previous is None and BankTenure.objects.filter(table=table, closed_at__isnull=True).exists():
        raise TenureError(_("table %(table)s already has an open bank tenure: close, sell or transfer it first"),
                          params={"table": table}, field="table")
    members = {player.pk: player for player, percent in shares}
    payers = dict(members)
    if price_cents and pay_seller:
        payers[holder.pk] = holder
        payers[seller.pk] = seller
    if handover is not None and handover.accounts.keys() >= payers.keys():
        # The handover's locks, balances kept current by its postings: two statements fewer per bank passed.
        accounts, locked = handover.accounts, handover.locked
    else:
        accounts = posting.player_accounts(payers)
        locked = posting.lock(accounts.values())
    parts = split_by_shares(capital_cents, [percent for _player, percent in shares])
    needed = defaultdict(int)
    if not deposit:
        for (player, _percent), part in zip(shares, parts, strict=True):
            needed[accounts[player.pk]] += part
    if price_cents and pay_seller:
        needed[accounts[holder.pk]] += price_cents
    _require_chips(locked, {account_id: amount for account_id, amount in needed.items() if amount},
                   {accounts[pid]: player for pid, player in payers.items()}, field="capital")
    bank = Account.objects.create(kind=Account.Kind.TENURE)
    locked[bank.id] = bank
    tenure = BankTenure.objects.create(
        table=table, holder=holder, began=began, capital=euros(capital_cents),
        price=euros(price_cents) if price_cents else None, seller=seller, previous=previous,
        deposit_required=deposit, account=bank)
    SyndicateShare.objects.bulk_create([SyndicateShare(tenure=tenure, player=player, percent=percent)
                                        for player, percent in shares])
    if price_cents and pay_seller:
        posting.post(locked=locked, kind=KIND.BANK_SALE,
              legs=[(accounts[holder.pk], DEBIT, price_cents), (accounts[seller.pk], CREDIT, price_cents)],
              idempotency_key=f"tenure:{tenure.pk}:price", reference=f"bank sale, tenure #{tenure.pk}",
              posted_by=posted_by, source=source, cause={"kind": "bank_price", "tenure": tenure.pk})
    if not capital_cents or deposit:
        return tenure  # a bank opened empty, or awaiting its deposits at the cage: nothing to post
    planned = capital_posting(tenure=tenure, bank=bank.id, capital_cents=capital_cents,
                              members=[(player, percent, accounts[player.pk]) for player, percent in shares])
    posting.post(locked=locked, posted_by=posted_by, source=source, **planned)
    return tenure


def distribution_posting(*, tenure, bank, balance, members):
    """The posting that closes ``tenure``: its balance back to its syndicate by shares, to
    the cent by largest remainder (a negative balance charged the same way); the keyword
    arguments of ``ledger.posting.post`` but ``locked``, ``posted_by`` and ``source``; None for a zero
    balance.

    Args:
        bank: the tenure's account id; balance: its balance, cents;
        members: ``[(Player, Decimal percent, chips account id)]`` in the shares' order.
    """
    if not balance:
        return None
    parts = split_by_shares(balance, [percent for _player, percent, _account in members])
    out, back = (DEBIT, CREDIT) if balance > 0 else (CREDIT, DEBIT)
    legs = [(bank, out, abs(balance))]
    legs += [(account, back, abs(part)) for (_player, percent, account), part in zip(members, parts, strict=True)
             if part]
    return {"kind": KIND.DISTRIBUTION, "legs": legs, "idempotency_key": f"tenure:{tenure.pk}:close",
            "reference": f"bank distribution, tenure #{tenure.pk} at {tenure.table}",
            "cause": {"kind": "bank_distribution", "tenure": tenure.pk, "table": tenure.table.name},
            "detail": {"shares": [[player.code, str(percent), str(euros(part))]
                                  for (player, percent, _account), part in zip(members, parts, strict=True)]}}


def capital_posting(*, tenure, bank, capital_cents, members):
    """The posting of a new tenure's capital (above zero) from its syndicate's chips, by
    shares to the cent by largest remainder; the keyword arguments of ``ledger.posting.post`` but
    ``locked``, ``posted_by`` and ``source``.

    Args:
        bank: the tenure's account id; members: ``[(Player, Decimal percent, chips
        account id)]`` in the shares' order.
    """
    parts = split_by_shares(capital_cents, [percent for _player, percent, _account in members])
    legs = [(account, DEBIT, part) for (_player, percent, account), part in zip(members, parts, strict=True)
            if part]
    legs.append((bank, CREDIT, capital_cents))
    return {"kind": KIND.CAPITAL_IN, "legs": legs, "idempotency_key": f"tenure:{tenure.pk}:capital",
            "reference": f"bank capital, tenure #{tenure.pk} at {tenure.table}",
            "cause": {"kind": "bank_capital", "tenure": tenure.pk, "table": tenure.table.name},
            "detail": {"shares": [[player.code, str(percent), str(euros(part))]
                                  for (player, percent, _account), part in zip(members, parts, strict=True)]}}


@contextmanager
def _refuse_second_open_tenure(table):
    """Turn the one-open-tenure-per-table constraint's violation (a concurrent opening at
    the same table that committed first) into ``TenureError``."""
    try:
        yield
    except IntegrityError as error:
        if "tables_one_open_tenure_per_table" in posting.constraint_of(error):
            raise TenureError(_("table %(table)s already has an open bank tenure: close, sell or transfer it "
                                "first"), params={"table": table}, field="table") from error
        raise


def _close_tenure(*, tenure, ended, posted_by, source, handover=None):
    """Close a tenure inside the caller's transaction; the distribution or None.

    ``handover``: what ``_lock_handover`` locked and read for it (else read here): four
    statements fewer per bank passed."""
    shares, accounts, locked, bank = handover or _lock_handover(tenure=tenure, players=[])
    planned = distribution_posting(tenure=tenure, bank=bank, balance=cents(locked[bank].balance),
                                   members=[(share.player, share.percent, accounts[share.player_id])
                                            for share in shares])
    distribution = None
    if planned is not None:
        distribution = posting.post(locked=locked, posted_by=posted_by, source=source, **planned)
    closed_at = timezone.now()
    # The account closed and the tenure's closing recorded in one statement (each row's trigger
    # checks its own table: ledger_account_update, tables_banktenure_update).
    with connection.cursor() as cursor:
        cursor.execute("WITH account AS (UPDATE ledger_account SET is_open = false WHERE id = %s)"
                       " UPDATE tables_banktenure SET closed_at = %s, ended = %s WHERE id = %s",
                       [bank, closed_at, ended, tenure.pk])
    tenure.closed_at, tenure.ended = closed_at, ended
    return distribution


_LOCK_HANDOVER_SQL = """
SELECT a.id, a.player_id, a.id = %(bank)s, a.balance, a.is_open
  FROM ledger_account a
 WHERE (SELECT count(*) FROM ledger_account c WHERE c.player_id = ANY(%(players)s::bigint[]))
       = cardinality(%(players)s::bigint[])
   AND a.id = ANY(ARRAY(SELECT c.id FROM ledger_account c WHERE c.player_id = ANY(%(players)s::bigint[])
                        UNION ALL SELECT %(bank)s::bigint))
 ORDER BY a.id
   FOR NO KEY UPDATE OF a"""
# _lock_handover's reads of the chips accounts, the tenure's account and their locks in one
# statement instead of three (when every account exists): fewer statements a hand for an import.


class _Handover(NamedTuple):
    """What ``_lock_handover`` locked and read, used by the steps that follow."""

    #: the old tenure's SyndicateShares (with their players), in order.
    shares: list
    #: ``{player id: chips account id}`` of its members and the new side.
    accounts: dict
    #: ``{account id: Account}`` locked (balances kept current by ``_post``).
    locked: dict
    #: the old tenure's account id.
    bank: int


def _lock_handover(*, tenure, players):
    """Before a bank changes hands (or closes): lock, in one id-ordered statement, the old
    tenure's account, its members' chips and the new side's chips (``players``), so the
    steps that follow (price, distribution, capital) never wait for a lock out of order.

    Returns:
        a ``_Handover``.
    Raises:
        TenureError: the tenure is already closed.
    """
    shares = list(tenure.shares.select_related("player").order_by("id"))
    player_ids = sorted({*(share.player_id for share in shares), *(player.pk for player in players)})
    posting.lock_chain()  # first: the ledger's chain head, then the accounts (ledger.posting.lock_chain)
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_HANDOVER_SQL, {"players": player_ids, "bank": tenure.account_id})
        rows = cursor.fetchall()
    bank = tenure.account_id
    if rows:
        # Every chips account and the tenure's found and locked in one statement, in id order.
        accounts = {player_id: account_id for account_id, player_id, _t, _b, _o in rows if player_id is not None}
        locked = {account_id: posting.LockedAccount(account_id, balance, is_open)
                  for account_id, _p, _t, balance, is_open in rows}
    else:  # a player without a chips account yet: created first, then every account locked
        accounts = posting.player_accounts(player_ids)
        locked = posting.lock([bank, *accounts.values()])
    check_tenure_open(tenure=tenure, is_open=locked[bank].is_open)
    return _Handover(shares, accounts, locked, bank)


def check_tenure_open(*, tenure: BankTenure, is_open: bool) -> None:
    """Refuse a change of a closed bank: ``is_open`` is its account's state as the caller
    read it under its lock (the console) or holds it (an import's batch).

    Raises:
        TenureError: the tenure is closed.
    """
    if not is_open:
        raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})


def check_new_holder(*, tenure: BankTenure, holder: Player) -> None:
    """Refuse a bank passed to the player who holds it, or a closed tenure (as the caller
    sees it: ``tenure.closed_at``). The rule of every sale and transfer, and of a 7½
    takeover by the console or by an import's batch. [rules.md "The bank passes"]

    Raises:
        TenureError: ``holder`` holds it already (field ``holder``); it is closed.
    """
    if holder.pk == tenure.holder_id:
        raise TenureError(_("%(player)s already holds this bank"), params={"player": holder.code}, field="holder")
    check_tenure_open(tenure=tenure, is_open=tenure.is_open)


def check_sale(*, tenure: BankTenure) -> None:
    """Refuse the sale of a bank whose rebuild, ordered by the pit, still awaits its
    deposits at the cage (``bank_sell``'s rule; the pit's page asks it before its
    confirmation).

    Raises:
        TenureError: the rebuild is outstanding (field ``tenure``).
    """
    from tables.bank.deposits import outstanding_rebuild

    if outstanding_rebuild(tenure) is not None:
        raise TenureError(_("the bank awaits the deposits of its rebuild at the cage: it is not sold before "
                            "(or it is given up)"), field="tenure")


def _new_holder_checks(*, tenure, holder, capital, shares):
    capital_cents = posting.amount_cents(capital, "capital", zero=True)
    shares = _syndicate(holder, shares)
    check_new_holder(tenure=tenure, holder=holder)
    return capital_cents, shares


@refusals_recorded
def tenure_open(*, table, holder: Player, capital: Decimal, shares: list[tuple[Player, Decimal]] | None = None,
                began: str, posted_by, price: Decimal | None = None, seller: Player | None = None,
                source: str = "", deposit: bool = False) -> BankTenure:
    """Open a bank tenure at ``table``: its capital comes from the syndicate's chips, or,
    with ``deposit``, is deposited at the cage before its first hand.

    Which openings take which: the pit's openings between hands, a draw
    (``tables.services.table_bank_draw``), an auction award (``auction_award``) and a
    sale to a new holder (``table_bank_sell``), pass ``deposit=True``: the tenure opens
    awaiting its deposits (``deposits_owed``) and the console opens no hand on it until
    they cover its capital. What the game imposes at the table during play (a 7½
    takeover, ``bank_transfer``), a transfer at the table, and the imports of recorded
    hands (``import_hands``, ``settle``, conformance) keep taking the capital from the
    chips on record: the hand is played at once, there is no moment for the cage.

    Args:
        table: the Table (no other tenure open there).
        holder: the Player who holds the bank at the table.
        capital: ``Decimal`` euros put into the bank, zero or more (an empty bank pays
            nothing from its own: its losses are charged to its syndicate at closing; with
            ``bank_cover`` it can accept no stake).
        shares: ``[(Player, Decimal percent)]`` summing to 100, or None for the holder alone
            (100 %); each member pays his share of the capital, rounded by largest remainder.
        began: ``draw``, ``natural``, ``transfer``, ``sale`` or ``auction``.
        deposit: False (default): the capital is taken from the members' chips now;
            True: nothing is taken, each member deposits his share at the cage.
        price, seller: for ``sale`` only, both required: the holder pays ``price`` euros
            from his chips to the seller's chips.
        posted_by: the staff user (None for the system).
    Returns:
        BankTenure (open; ``tenure.account`` holds the capital).
    Raises:
        TenureError: the table has an open tenure; a bad ``began``; price/seller misused.
        InvalidSyndicate, InvalidAmount, InsufficientChips (names the player and his chips).
    [rules.md "The bank passes"; seed 003: a bank owned by a team]
    """
    _check_choice(began, BankTenure.Began, "began")
    capital_cents = posting.amount_cents(capital, "capital", zero=True)
    shares = _syndicate(holder, shares)
    price_cents = None
    if began == BankTenure.Began.SALE:
        if price is None or seller is None:
            raise TenureError(_("a bank bought needs its price and its seller"), field="price")
        price_cents = posting.amount_cents(price, "price")
        if seller.pk == holder.pk:
            raise TenureError(_("the buyer and the seller are the same player"), field="seller")
    elif price is not None or seller is not None:
        raise TenureError(_("a price and a seller are only for a bank bought (began: sale)"), field="price")
    source = posting.source_of(posted_by, source, "cashier")
    with _refuse_second_open_tenure(table), db.atomic():
        return _open_tenure(table=table, holder=holder, capital_cents=capital_cents, shares=shares, began=began,
                            posted_by=posted_by, source=source, price_cents=price_cents, seller=seller,
                            deposit=deposit)


@refusals_recorded
def tenure_close(*, tenure: BankTenure, ended: str = BankTenure.Ended.CLOSED, posted_by,
                 source: str = "") -> Transaction | None:
    """Close a tenure: its whole balance goes back to its syndicate by shares, to the
    cent by largest remainder. The house's commission was already taken hand by hand.

    A negative balance (the bank paid more than it held, possible without ``bank_cover``
    or through multiplied payouts) is charged to the members' chips the same way.

    Args:
        tenure: the open BankTenure; ended: ``closed``, ``natural``, ``transfer`` or
            ``sale``; posted_by: the staff user (None for the system).
    Returns:
        the distribution Transaction, or None if the balance was exactly zero (nothing to
        distribute; the tenure is closed all the same).
    Raises:
        TenureError: already closed, or a bad ``ended``.
    [rules.md "Settlement of one bet" for the commission]
    """
    _check_choice(ended, BankTenure.Ended, "ended")
    source = posting.source_of(posted_by, source, "cashier")
    with db.atomic():
        _refund_unfinished_rebuild(tenure=tenure, posted_by=posted_by, source=source)
        return _close_tenure(tenure=tenure, ended=ended, posted_by=posted_by, source=source)


def _refund_unfinished_rebuild(*, tenure, posted_by, source):
    """A bank given up while the rebuild the pit ordered still awaits deposits: what each
    member deposited for it goes back to his own chips (not by shares: the others paid
    nothing of it), one ``bank_rebuild`` posting debiting the bank; None if nothing to
    refund. [Melilla casino rules 2014 art. 52: "rebuilt to at least its first amount or given up"]"""
    from tables.bank.deposits import outstanding_rebuild

    rebuild = outstanding_rebuild(tenure)
    if rebuild is None or not rebuild.deposited:
        return None
    paid = defaultdict(int)
    codes = {}
    for player_id, code, amount in (rebuild.deposits.filter(void__isnull=True)
                                    .values_list("player_id", "player__code", "amount")):
        paid[player_id] += cents(amount)
        codes[player_id] = code
    accounts = posting.player_accounts(paid)
    bank = tenure.account_id
    locked = posting.lock([bank, *accounts.values()])
    total = sum(paid.values())
    legs = [(bank, DEBIT, total)] + [(accounts[pid], CREDIT, amount) for pid, amount in paid.items()]
    return posting.post(locked=locked, kind=KIND.BANK_REBUILD, legs=legs,
                 idempotency_key=f"tenure:{tenure.pk}:rebuild:{rebuild.number}:refund",
                 reference=f"bank rebuilt {rebuild.number}, tenure #{tenure.pk} at {tenure.table}",
                 posted_by=posted_by, source=source,
                 cause={"kind": "bank_rebuild", "number": rebuild.number, "tenure": tenure.pk,
                        "table": tenure.table.name},
                 detail={"refund": [[codes[pid], str(euros(amount))] for pid, amount in paid.items()]})


@refusals_recorded
def bank_sell(*, tenure: BankTenure, buyer: Player, price: Decimal, capital: Decimal, posted_by,
              shares: list[tuple[Player, Decimal]] | None = None, source: str = "",
              deposit: bool = False) -> BankTenure:
    """Sell the bank: the buyer pays the price, the old tenure closes, the buyer's opens.

    The price goes into the old tenure's account just before it closes, so the sellers
    (the holder, or the syndicate by shares) receive it with the bank's balance.

    Args:
        tenure: the open BankTenure sold; buyer: the new holder (not the seller);
        price: ``Decimal`` euros above zero; capital: ``Decimal`` euros (zero or more) for
        the new tenure, from the buyer (or his syndicate ``shares``); posted_by: staff user;
        deposit: the new tenure's capital is deposited at the cage (``tenure_open``); the
        price is paid from the buyer's chips all the same.
    Returns:
        the new BankTenure (``began="sale"``, ``price``, ``seller`` = the old holder,
        ``previous`` = the old tenure).
    Raises:
        InsufficientChips (the buyer cannot pay the price or the capital), TenureError,
        InvalidAmount, InvalidSyndicate.
    [rules.md "The bank passes": sold or transferred]
    """
    capital_cents, shares = _new_holder_checks(tenure=tenure, holder=buyer, capital=capital, shares=shares)
    price_cents = posting.amount_cents(price, "price")
    check_sale(tenure=tenure)
    source = posting.source_of(posted_by, source, "cashier")
    with _refuse_second_open_tenure(tenure.table), db.atomic():
        handover = _lock_handover(tenure=tenure, players=[buyer, *(p for p, _s in shares)])
        accounts, locked, bank = handover.accounts, handover.locked, handover.bank
        payer = accounts[buyer.pk]
        _require_chips(locked, {payer: price_cents}, {payer: buyer}, field="price")
        posting.post(locked=locked, kind=KIND.BANK_SALE, legs=[(payer, DEBIT, price_cents), (bank, CREDIT, price_cents)],
              idempotency_key=f"tenure:{tenure.pk}:sale",
              reference=f"bank sale, tenure #{tenure.pk} to {buyer.code}",
              posted_by=posted_by, source=source,
              cause={"kind": "bank_sale", "tenure": tenure.pk, "buyer": buyer.code})
        _close_tenure(tenure=tenure, ended=BankTenure.Ended.SALE, posted_by=posted_by, source=source,
                      handover=handover)
        return _open_tenure(table=tenure.table, holder=buyer, capital_cents=capital_cents, shares=shares,
                            began=BankTenure.Began.SALE, posted_by=posted_by, source=source,
                            price_cents=price_cents, seller=tenure.holder, pay_seller=False, previous=tenure,
                            handover=handover, deposit=deposit)


@refusals_recorded
def bank_transfer(*, tenure: BankTenure, holder: Player, capital: Decimal, posted_by,
                  shares: list[tuple[Player, Decimal]] | None = None, cause: str = BankTenure.Began.TRANSFER,
                  source: str = "") -> BankTenure:
    """Pass the bank without a price: the old tenure closes (its balance back to its
    syndicate), the new holder's opens with his capital.

    Args:
        tenure: the open BankTenure; holder: the new holder (not the old one);
        capital: ``Decimal`` euros (zero or more) from the new holder (or his ``shares``);
        cause: ``transfer`` (given up) or ``natural`` (a seat's 7½ takes the bank,
            ``Settlement.next_bank``); posted_by: staff user (None for the system).
    Returns:
        the new BankTenure (``previous`` = the old one).
    Raises:
        TenureError, InsufficientChips, InvalidAmount, InvalidSyndicate.
    [rules.md "The bank passes"]
    """
    if cause not in (BankTenure.Began.TRANSFER, BankTenure.Began.NATURAL):
        raise TenureError(_("a bank passes by transfer or natural, not %(cause)s"), params={"cause": cause},
                          field="cause")
    capital_cents, shares = _new_holder_checks(tenure=tenure, holder=holder, capital=capital, shares=shares)
    source = posting.source_of(posted_by, source, "cashier")
    with _refuse_second_open_tenure(tenure.table), db.atomic():
        handover = _lock_handover(tenure=tenure, players=[holder, *(p for p, _s in shares)])
        _close_tenure(tenure=tenure, ended=cause, posted_by=posted_by, source=source, handover=handover)
        return _open_tenure(table=tenure.table, holder=holder, capital_cents=capital_cents, shares=shares,
                            began=cause, posted_by=posted_by, source=source, previous=tenure, handover=handover)


def tenure_check_cover(*, tenure: BankTenure, stakes: Decimal, holds: Decimal | None = None) -> Decimal | None:
    """``bank_cover`` ("banca limitada"): may a hand carry ``stakes`` at this bank?

    Call it before accepting a bet, with the hand's total stakes including that bet.
    Reads the tenure's balance (one row; no lock: the console serializes a table's hand).

    Args:
        tenure: the open BankTenure; stakes: ``Decimal`` euros, the hand's stakes so far;
        holds: ``Decimal`` euros the tenure's account holds if already read under its lock
        (an import's ``SettlementBatch``), else None: read here.
    Returns:
        ``Decimal`` euros still coverable after ``stakes``, or None when the table has no
        ``bank_cover`` (no limit).
    Raises:
        CoverExceeded: the stakes exceed what the tenure holds; the message says by how
        much (field ``amount``).
    [tables.models.Table.bank_cover]
    """
    if not tenure.table.bank_cover:
        return None
    stakes_cents = cents(stakes)
    if holds is None:
        holds = Account.objects.filter(pk=tenure.account_id).values_list("balance", flat=True).get()
    room = cents(holds) - stakes_cents
    if room < 0:
        raise CoverExceeded(
            _("the stakes of %(stakes)s exceed what the bank holds (%(holds)s) by %(excess)s"),
            params={"stakes": formatting.money(euros(stakes_cents)), "holds": formatting.money(holds), "excess": formatting.money(euros(-room))},
            field="amount")
    return euros(room)


def through_distribution(legs, closed_ids) -> tuple[list, list]:
    """A reversal's legs (``ledger.posting.reverse``'s ``closed_legs``) with those on
    closed tenure accounts (``closed_ids``) replaced by legs on their syndicates' chips, by
    shares (largest remainder, ``ledger.shares.split_by_shares``): a closed tenure's
    balance already went to its syndicate, so what the reversal owes or gives the bank is
    taken from or given to the syndicate as the distribution shared it.

    Args:
        legs: ``[(account id, "D"/"C", cents)]``; closed_ids: the closed accounts among them.
    Returns:
        ``(legs, moved)``: the new legs, and ``[{"tenure", "account", "legs": [[account id,
        side, cents]], "shares": [[code, percent, cents]]}]``, kept in the reversal's cause.
    [a hand of a closed bank tenure can still be corrected]
    """
    nets = defaultdict(int)
    kept = []
    for account_id, side, amount in legs:
        if account_id in closed_ids:
            nets[account_id] += amount if side == CREDIT else -amount
        else:
            kept.append((account_id, side, amount))
    tenures = dict(BankTenure.objects.filter(account_id__in=list(nets)).values_list("account_id", "id"))
    shares = defaultdict(list)
    for tenure_id, player_id, code, percent in (
            SyndicateShare.objects.filter(tenure_id__in=list(tenures.values())).order_by("tenure_id", "id")
            .values_list("tenure_id", "player_id", "player__code", "percent")):
        shares[tenure_id].append((player_id, code, percent))
    chips = dict(Account.objects.filter(kind=Account.Kind.PLAYER, player_id__in=[
        player_id for rows in shares.values() for player_id, _c, _p in rows]).values_list("player_id", "id"))
    moved = []
    for account_id, net in sorted(nets.items()):
        rows = shares[tenures[account_id]]
        parts = split_by_shares(net, [percent for _pid, _code, percent in rows]) if net else [0] * len(rows)
        share_legs = [(chips[player_id], CREDIT if part > 0 else DEBIT, abs(part))
                      for (player_id, _code, percent), part in zip(rows, parts, strict=True) if part]
        kept += share_legs
        moved.append({"tenure": tenures[account_id], "account": account_id,
                      "legs": [[a, str(side), amount] for a, side, amount in share_legs],
                      "shares": [[code, str(percent), part] for (_pid, code, percent), part
                                 in zip(rows, parts, strict=True)]})
    return kept, moved


def share_faults() -> list[str]:
    """The tables' part of ``ledger.selectors.ledger_faults``: every tenure's syndicate
    shares sum to 100. Returns messages (English, for operators), one per fault."""
    from django.db.models import Sum

    return [f"bank tenure #{tenure_id}: its shares sum to {percent} percent, not 100"
            for tenure_id, percent in (BankTenure.objects.annotate(total=Sum("shares__percent"))
                                       .exclude(total=100).values_list("id", "total"))]
