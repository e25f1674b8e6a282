"""Writes to the ledger: every public service here posts in ONE database transaction.

Each service validates its arguments before writing, creates any missing chips account
(before taking any lock), takes the row locks of every account it will post to in one
``SELECT ... FOR NO KEY UPDATE`` ordered by account id (a fixed order: two services never
wait on each other in a cycle; the mode an UPDATE takes, which does not block the
foreign-key checks of entries pointing at the account), re-checks what the locks protect
(balances, an open tenure), then inserts the transaction, its entries and the new
balances. Refusals raise a ``ledger.errors.LedgerError`` and write nothing.

References are stored as written here (untranslated: they are data, like "slip 000123");
refusal messages are translated.

Units: the public arguments are ``Decimal`` euros with at most two decimals (never a
float); the engine's ``Settlement`` is integer cents. Balances are credits − debits (what
the owner holds; see ``ledger.models``).
"""

import json
from collections import defaultdict
from contextlib import contextmanager
from decimal import Decimal

from django.db import IntegrityError, connection
from django.db import transaction as db
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _

from ledger.errors import (
    AlreadyPosted,
    AlreadyReversed,
    CoverExceeded,
    InsufficientChips,
    InvalidAmount,
    InvalidSyndicate,
    NotReversible,
    TenureError,
    UnknownPlayer,
)
from ledger.models import Account, BankTenure, CashierSlip, Entry, SyndicateShare, Transaction
from ledger.money import cents, euros, show
from ledger.shares import InvalidShares, check_percents, split_by_shares
from tables.models import Player

DEBIT, CREDIT = Entry.Side.DEBIT, Entry.Side.CREDIT
KIND = Transaction.Kind
MAX_CENTS = 10**14 - 1  # DecimalField(max_digits=14, decimal_places=2)
IDEMPOTENCY_CONSTRAINT = "ledger_transaction_idempotency_key"


# ---------------------------------------------------------------------------------------
# Validation helpers (no writes)


def _amount_cents(amount, field="amount", zero=False):
    """Integer cents of a positive (or, with ``zero``, non-negative) ``Decimal`` amount of
    euros, or ``InvalidAmount``."""
    try:
        value = cents(amount)
    except (TypeError, ValueError):
        raise InvalidAmount(_("%(field)s must be an amount of euros with at most two decimals, not %(value)s"),
                            params={"field": field, "value": amount}, field=field) from None
    if value < 0 and zero:
        raise InvalidAmount(_("%(field)s must not be negative, not %(value)s"),
                            params={"field": field, "value": amount}, field=field)
    if value <= 0 and not zero:
        raise InvalidAmount(_("%(field)s must be above zero, not %(value)s"),
                            params={"field": field, "value": amount}, field=field)
    if value > MAX_CENTS:
        raise InvalidAmount(_("%(field)s is too large: %(value)s"), params={"field": field, "value": amount},
                            field=field)
    return value


def _source(posted_by, source, default):
    """Who posts: a staff user (``source`` names the channel) or the system."""
    if posted_by is None:
        return source if source and source.startswith("system") else f"system:{default}"
    if not getattr(posted_by, "is_authenticated", False):
        raise TypeError(f"posted_by must be a user, not {posted_by!r}")
    return source or default


def _syndicate(holder, shares):
    """``[(Player, Decimal percent)]`` checked: distinct players, percents summing to 100."""
    if shares is None:
        return [(holder, Decimal(100))]
    shares = [(player, Decimal(percent) if isinstance(percent, int) and not isinstance(percent, bool)
               else percent) for player, percent in shares]
    if len({player.pk for player, _percent in shares}) != len(shares):
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


# ---------------------------------------------------------------------------------------
# Accounts, locks and the posting core


def _ensure_player_accounts(player_ids):
    """``{player id: account id}``, creating missing chip accounts.

    Creation is ``INSERT ... ON CONFLICT DO NOTHING`` in player-id order, before any row
    lock is taken, so concurrent creators wait on each other in one order only.
    """
    player_ids = sorted(set(player_ids))
    found = dict(Account.objects.filter(player_id__in=player_ids).values_list("player_id", "id"))
    missing = [pid for pid in player_ids if pid not in found]
    if missing:
        Account.objects.bulk_create([Account(kind=Account.Kind.PLAYER, player_id=pid) for pid in missing],
                                    ignore_conflicts=True)
        found = dict(Account.objects.filter(player_id__in=player_ids).values_list("player_id", "id"))
    return found


def _singleton_account(kind):
    """The id of the house (commission) or cage (cash) account, created on first use."""
    account_id = Account.objects.filter(kind=kind).values_list("id", flat=True).first()
    if account_id is None:
        Account.objects.bulk_create([Account(kind=kind)], ignore_conflicts=True)
        account_id = Account.objects.filter(kind=kind).values_list("id", flat=True).get()
    return account_id


def _lock(account_ids):
    """Row-lock the accounts, in account-id order, and return ``{id: Account}`` read
    after the locks were granted (balances and ``is_open`` are current)."""
    ids = sorted(set(account_ids))
    locked = {account.id: account
              for account in Account.objects.select_for_update(no_key=True).filter(id__in=ids).order_by("id")}
    if len(locked) != len(ids):
        raise RuntimeError(f"ledger accounts {sorted(set(ids) - set(locked))} do not exist")
    return locked


def _require_chips(locked, debits, players, field="amount"):
    """Refuse if any player account in ``debits`` ({account id: cents}) holds less,
    naming every player short of chips with his balance.

    ``players`` maps account id -> Player, for the message; ``field`` names the form
    field the refusal is about.
    """
    short = [_("%(player)s holds %(balance)s in chips; %(needed)s are needed") % {
                 "player": players[account_id].code, "balance": show(locked[account_id].balance),
                 "needed": show(euros(needed))}
             for account_id, needed in sorted(debits.items(), key=lambda item: players[item[0]].code)
             if cents(locked[account_id].balance) < needed]
    if short:
        raise InsufficientChips("; ".join(short), field=field)


def _post(*, locked, kind, legs, idempotency_key, reference, posted_by, source, memo="",
          reverses=None, tenure=None, detail=None):
    """Insert one balanced transaction and apply it to the balances.

    Expects the row locks of every account in ``legs`` held (``locked`` from ``_lock``).
    Args:
        legs: ``[(account id, "D" or "C", cents > 0)]``, debits summing to credits.
    Returns:
        Transaction. The ``locked`` accounts' ``balance`` attributes are updated too.
    Raises:
        ValueError: legs that do not balance, or a leg not above zero (a programming error:
        PostgreSQL would refuse them at COMMIT anyway).
    """
    debit_total = sum(amount for _a, side, amount in legs if side == DEBIT)
    credit_total = sum(amount for _a, side, amount in legs if side == CREDIT)
    if debit_total != credit_total or len(legs) < 2 or any(amount <= 0 for _a, _s, amount in legs):
        raise ValueError(f"unbalanced or empty legs: {legs}")
    txn = Transaction(kind=kind, reference=reference[:200], idempotency_key=idempotency_key, posted_by=posted_by,
                      source=source, memo=memo, reverses=reverses, tenure=tenure, detail=detail or {},
                      posted_at=timezone.now())
    deltas = defaultdict(int)
    for account_id, side, amount in legs:
        deltas[account_id] += amount if side == CREDIT else -amount
    deltas = {account_id: delta for account_id, delta in deltas.items() if delta}
    _write(txn, legs, deltas)
    for account_id, delta in deltas.items():
        locked[account_id].balance += euros(delta)
    return txn


_WRITE_SQL = """
WITH txn AS (
    INSERT INTO ledger_transaction (kind, reference, idempotency_key, posted_by_id, source, posted_at,
                                    reverses_id, memo, tenure_id, detail)
    VALUES (%(kind)s, %(reference)s, %(key)s, %(posted_by)s, %(source)s, %(posted_at)s,
            %(reverses)s, %(memo)s, %(tenure)s, %(detail)s::jsonb)
    RETURNING id),
entries AS (
    INSERT INTO ledger_entry (transaction_id, account_id, side, amount)
    SELECT txn.id, leg.account_id, leg.side, leg.amount
      FROM txn, unnest(%(accounts)s::bigint[], %(sides)s::varchar[], %(amounts)s::numeric[])
           WITH ORDINALITY AS leg(account_id, side, amount, n)
     ORDER BY leg.n),
balances AS (
    UPDATE ledger_account a SET balance = a.balance + d.delta
      FROM unnest(%(delta_accounts)s::bigint[], %(deltas)s::numeric[]) AS d(id, delta)
     WHERE a.id = d.id)
SELECT id FROM txn"""


def _write(txn, legs, deltas):
    """Insert the transaction, its entries and the balance changes in one statement (one
    round trip; ``_WRITE_SQL``); sets ``txn.id``.

    With ``_LOCK_SETTLEMENT_SQL``, a hand's posting is two statements of its own: measured
    against the ORM's locks, inserts and updates that they replaced (the quick start's
    path until 2026-11-24), 142–173 postings/s against 43–51, one by one, 1,000 hands
    each in alternation, on a machine under load."""
    with connection.cursor() as cursor:
        cursor.execute(_WRITE_SQL, {
            "kind": txn.kind, "reference": txn.reference, "key": txn.idempotency_key,
            "posted_by": txn.posted_by_id, "source": txn.source, "posted_at": txn.posted_at,
            "reverses": txn.reverses_id, "memo": txn.memo, "tenure": txn.tenure_id,
            "detail": json.dumps(txn.detail, ensure_ascii=False),
            "accounts": [account_id for account_id, _s, _a in legs], "sides": [str(side) for _i, side, _a in legs],
            "amounts": [euros(amount) for _i, _s, amount in legs],
            "delta_accounts": list(deltas), "deltas": [euros(delta) for delta in deltas.values()]})
        (txn.id,) = cursor.fetchone()
    txn._state.adding = False
    txn._state.db = connection.alias


def _constraint_of(error):
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    return getattr(diag, "constraint_name", None) or str(cause or error)


@contextmanager
def _refuse_second_posting(idempotency_key):
    """Turn the unique idempotency key's violation (a concurrent twin that committed
    first) into ``AlreadyPosted``."""
    try:
        yield
    except IntegrityError as error:
        if IDEMPOTENCY_CONSTRAINT in _constraint_of(error):
            raise _already_posted(idempotency_key) from error
        raise


def _already_posted(idempotency_key, transaction_id=None):
    if transaction_id is None:
        transaction_id = (Transaction.objects.filter(idempotency_key=idempotency_key)
                          .values_list("id", flat=True).first())
    return AlreadyPosted(_("already posted: transaction #%(id)s has the key %(key)s"),
                         params={"id": transaction_id, "key": idempotency_key},
                         idempotency_key=idempotency_key, transaction_id=transaction_id)


def _check_new_key(idempotency_key):
    existing = Transaction.objects.filter(idempotency_key=idempotency_key).values_list("id", flat=True).first()
    if existing is not None:
        raise _already_posted(idempotency_key, existing)


# ---------------------------------------------------------------------------------------
# Hand settlement


def ledger_post_settlement(*, tenure: BankTenure, settlement, idempotency_key: str, reference: str,
                           posted_by=None, source: str = "") -> Transaction:
    """Post one finished hand's settlement: exactly one transaction per hand.

    Each player (seat, side bettor, loca bettor) gets a credit of what he won and a debit
    of what he lost on his chips; the tenure's account the mirror (a credit of what the
    bank collected, a debit of what it paid); the commission is a debit of the tenure and
    a credit of the house. A hand whose nets cancel out (a split won and lost) is still
    recorded, with its gross entries.

    Args:
        tenure: the open ``BankTenure`` whose holder is ``settlement.bank_player``.
        settlement: ``tables.engine.payouts.Settlement`` (integer cents).
        idempotency_key: unique per hand, e.g. ``"hand:Mesa 1:12"``; a second posting with
            it is refused.
        reference: what a statement shows, e.g. ``"hand Mesa 1 #12"``.
        posted_by: the dealer's user, or None for a system posting (``source`` then starts
            with ``system``).
    Returns:
        Transaction of kind ``hand`` (its ``detail`` is ``settlement.as_dict()``).
    Raises:
        AlreadyPosted: the key was posted already (also when a concurrent twin won).
        UnknownPlayer: a player code has no ``Player``.
        TenureError: the tenure is closed, or its holder is not the settlement's bank.
        ValueError: a settlement that does not balance (players + bank + commission ≠ 0).
    [rules.md "Settlement of one bet": the house takes its commission hand by hand]
    """
    if not idempotency_key or not reference:
        raise ValueError("a settlement posting needs an idempotency_key and a reference")
    source = _source(posted_by, source, "console" if posted_by is not None else "settlement")
    won, lost = defaultdict(int), defaultdict(int)
    for bet in settlement.bets:
        if bet.net > 0:
            won[bet.player] += bet.net
        elif bet.net < 0:
            lost[bet.player] -= bet.net
    nets = {player: won.get(player, 0) - lost.get(player, 0) for player in set(won) | set(lost)}
    if ({player: net for player, net in nets.items() if net}
            != {player: net for player, net in settlement.players.items() if net}
            or sum(settlement.players.values()) + settlement.bank_net + settlement.commission != 0
            or settlement.commission < 0):
        raise ValueError("the settlement does not balance: players + bank + commission must be zero")
    betting = sorted(set(won) | set(lost))
    need_house = settlement.commission > 0
    with _refuse_second_posting(idempotency_key), db.atomic():
        posted, holder, by_code, bank, house, locked = _lock_settlement_accounts(
            codes=betting, tenure_id=tenure.pk, holder_id=tenure.holder_id, house=need_house,
            idempotency_key=idempotency_key)
        if posted is not None:
            raise _already_posted(idempotency_key, posted)
        if len(by_code) < len(betting) or bank is None or (need_house and house is None):
            # First hand of a player (no chips account yet): create, then lock.
            codes = sorted({*betting, settlement.bank_player})
            players = dict(Player.objects.filter(code__in=codes).values_list("code", "id"))
            unknown = [code for code in codes if code not in players]
            if unknown:
                raise UnknownPlayer(_("no player with the id %(codes)s: create the player before posting the "
                                      "hand"), params={"codes": ", ".join(unknown)}, field="player")
            holder = settlement.bank_player if players[settlement.bank_player] == tenure.holder_id else None
            accounts = _ensure_player_accounts(players[code] for code in betting)
            by_code = {code: accounts[players[code]] for code in betting}
            bank = Account.objects.filter(tenure_id=tenure.pk).values_list("id", flat=True).first()
            if bank is None:
                raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
            house = _singleton_account(Account.Kind.HOUSE) if need_house else None
            locked = _lock([*by_code.values(), bank, *([house] if house else [])])
        if holder != settlement.bank_player:
            raise TenureError(_("the hand's bank is %(bank)s, but bank tenure #%(tenure)s is held by another "
                                "player"), params={"bank": settlement.bank_player, "tenure": tenure.pk})
        if not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is closed: post the hand to the open tenure"),
                              params={"tenure": tenure.pk})
        legs = [(by_code[code], CREDIT, won[code]) for code in betting if code in won]
        legs += [(by_code[code], DEBIT, lost[code]) for code in betting if code in lost]
        collected, paid = sum(lost.values()), sum(won.values())
        if collected:
            legs.append((bank, CREDIT, collected))
        if paid:
            legs.append((bank, DEBIT, paid))
        if need_house:
            legs.append((bank, DEBIT, settlement.commission))
            legs.append((house, CREDIT, settlement.commission))
        return _post(locked=locked, kind=KIND.HAND, legs=legs, idempotency_key=idempotency_key,
                     reference=reference, posted_by=posted_by, source=source, tenure=tenure,
                     detail=settlement.as_dict())


class LockedAccount:
    """An account row as read under its lock: ``id``, ``balance`` (Decimal euros),
    ``is_open``; lighter than a model instance on the hot path."""

    __slots__ = ("id", "balance", "is_open")

    def __init__(self, account_id, balance, is_open):
        self.id, self.balance, self.is_open = account_id, balance, is_open


_LOCK_SETTLEMENT_SQL = """
WITH wanted AS (
    SELECT q.id, c.id AS account_id
      FROM tables_player q LEFT JOIN ledger_account c ON c.player_id = q.id
     WHERE q.code = ANY(%(codes)s::text[])),
ready AS (
    SELECT (SELECT count(*) FROM wanted) = cardinality(%(codes)s::text[])
           AND NOT EXISTS (SELECT 1 FROM wanted WHERE account_id IS NULL)
           AND (NOT %(house)s OR EXISTS (SELECT 1 FROM ledger_account h WHERE h.kind = 'house')) AS ok)
SELECT a.id, a.kind, p.code, a.balance, a.is_open,
       (SELECT t.id FROM ledger_transaction t WHERE t.idempotency_key = %(key)s),
       (SELECT h.code FROM tables_player h WHERE h.id = %(holder)s)
  FROM ledger_account a LEFT JOIN tables_player p ON p.id = a.player_id
 WHERE (SELECT ok FROM ready)
   AND a.id = ANY(ARRAY(SELECT account_id FROM wanted
                        UNION ALL SELECT t.id FROM ledger_account t WHERE t.tenure_id = %(tenure)s
                        UNION ALL SELECT h.id FROM ledger_account h WHERE %(house)s AND h.kind = 'house'))
 ORDER BY a.id
   FOR NO KEY UPDATE OF a"""
# The accounts are found by their indexes (player, tenure, house), then read by id: an
# OR of the three conditions read every account (one more per bank tenure ever opened),
# 117 pages per posting after 10,000 hands at one table; 36 this way, whatever the count.


def _lock_settlement_accounts(*, codes, tenure_id, holder_id, house, idempotency_key):
    """One statement: find and row-lock (in account-id order) the chips of
    ``codes``, the tenure's account and the house's, and read whether the key was posted
    and the holder's code.

    If a player is unknown or has no account yet (or the house account is needed and
    missing), it locks nothing and returns no accounts: the caller creates the accounts
    first and only then takes the locks, so that no transaction ever inserts an account
    while holding a row lock (which could close a cycle of waits with a concurrent
    creator of the same account).

    Returns:
        (posted transaction id or None, holder's code or None, {code: account id},
        tenure account id or None, house account id or None, {account id: Account}).
    """
    with connection.cursor() as cursor:
        cursor.execute(_LOCK_SETTLEMENT_SQL, {"key": idempotency_key, "holder": holder_id, "codes": list(codes),
                                              "tenure": tenure_id, "house": house})
        rows = cursor.fetchall()
        if not rows:
            cursor.execute("SELECT (SELECT t.id FROM ledger_transaction t WHERE t.idempotency_key = %s),"
                           " (SELECT h.code FROM tables_player h WHERE h.id = %s)", [idempotency_key, holder_id])
            posted, holder = cursor.fetchone()
            return posted, holder, {}, None, None, {}
    posted, holder = rows[0][5], rows[0][6]
    by_code, bank, house_id, locked = {}, None, None, {}
    for account_id, kind, code, balance, is_open, _posted, _holder in rows:
        locked[account_id] = LockedAccount(account_id, balance, is_open)
        if kind == Account.Kind.PLAYER:
            by_code[code] = account_id
        elif kind == Account.Kind.TENURE:
            bank = account_id
        else:
            house_id = account_id
    return posted, holder, by_code, bank, house_id, locked


# ---------------------------------------------------------------------------------------
# Reversal


def ledger_reverse(*, transaction: Transaction, reason: str, posted_by, source: str = "") -> Transaction:
    """Correct a mistake: post the mirror of ``transaction`` (every debit a credit and
    back), linked both ways (``reversal.reverses == transaction``,
    ``transaction.reversal == reversal``).

    Args:
        transaction: the posted Transaction to reverse.
        reason: why, in words (kept as the reversal's memo); required.
        posted_by: the staff user (or None for the system).
    Returns:
        Transaction of kind ``reversal``.
    Raises:
        AlreadyReversed: it was reversed already (once only, also backed by a unique key).
        NotReversible: it is itself a reversal, or it touches a closed tenure (whose
        balance was already distributed).
        ValueError: an empty reason.
    [TigerBeetle's rule: a posted transfer is never changed; a correction is a new one]
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("a reversal needs a reason")
    source = _source(posted_by, source, "reversal")
    key = f"reversal:{transaction.pk}"
    try:
        with db.atomic():
            original = Transaction.objects.get(pk=transaction.pk)
            if original.kind == KIND.REVERSAL:
                raise NotReversible(_("transaction #%(id)s is a reversal: post the correction anew instead"),
                                    params={"id": original.pk})
            existing = Transaction.objects.filter(reverses=original).values_list("id", flat=True).first()
            if existing is not None:
                raise AlreadyReversed(_("transaction #%(id)s was already reversed by #%(reversal)s"),
                                      params={"id": original.pk, "reversal": existing}, reversal_id=existing)
            legs = [(account_id, CREDIT if side == DEBIT else DEBIT, cents(amount))
                    for account_id, side, amount in original.entries.order_by("id")
                    .values_list("account_id", "side", "amount")]
            locked = _lock(account_id for account_id, _s, _a in legs)
            closed = [account for account in locked.values() if not account.is_open]
            if closed:
                raise NotReversible(_("transaction #%(id)s touches a closed bank tenure: its balance was "
                                      "already distributed"), params={"id": original.pk})
            return _post(locked=locked, kind=KIND.REVERSAL, legs=legs, idempotency_key=key,
                         reference=f"reversal of #{original.pk}: {original.reference}",
                         posted_by=posted_by, source=source, memo=reason, reverses=original,
                         tenure=original.tenure)
    except IntegrityError as error:
        constraint = _constraint_of(error)
        if IDEMPOTENCY_CONSTRAINT in constraint or "reverses" in constraint:
            raise AlreadyReversed(_("transaction #%(id)s was already reversed"),
                                  params={"id": transaction.pk}) from error
        raise


# ---------------------------------------------------------------------------------------
# Cashier


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
                                          transaction=txn, issued_at=txn.posted_at, issued_by=posted_by)


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
        InvalidAmount, AlreadyPosted.
    """
    return _cashier(kind=CashierSlip.Kind.CASH_OUT, player=player, amount=amount, posted_by=posted_by,
                    idempotency_key=idempotency_key)


# ---------------------------------------------------------------------------------------
# Bank tenures


def _open_tenure(*, table, holder, capital_cents, shares, began, posted_by, source, price_cents=None,
                 seller=None, pay_seller=True, previous=None):
    """Open a tenure inside the caller's transaction (locks taken here, in id order,
    on accounts the caller has not locked, or already holds)."""
    if BankTenure.objects.filter(table=table, closed_at__isnull=True).exists():
        raise TenureError(_("table %(table)s already has an open bank tenure: close, sell or transfer it first"),
                          params={"table": table}, field="table")
    members = {player.pk: player for player, _percent in shares}
    payers = dict(members)
    if price_cents and pay_seller:
        payers[holder.pk] = holder
        payers[seller.pk] = seller
    accounts = _ensure_player_accounts(payers)
    locked = _lock(accounts.values())
    parts = split_by_shares(capital_cents, [percent for _player, percent in shares])
    needed = defaultdict(int)
    for (player, _percent), part in zip(shares, parts, strict=True):
        needed[accounts[player.pk]] += part
    if price_cents and pay_seller:
        needed[accounts[holder.pk]] += price_cents
    _require_chips(locked, {account_id: amount for account_id, amount in needed.items() if amount},
                   {accounts[pid]: player for pid, player in payers.items()}, field="capital")
    tenure = BankTenure.objects.create(
        table=table, holder=holder, began=began, capital=euros(capital_cents),
        price=euros(price_cents) if price_cents else None, seller=seller, previous=previous)
    SyndicateShare.objects.bulk_create([SyndicateShare(tenure=tenure, player=player, percent=percent)
                                        for player, percent in shares])
    bank = Account.objects.create(kind=Account.Kind.TENURE, tenure=tenure)
    locked[bank.id] = bank
    if price_cents and pay_seller:
        _post(locked=locked, kind=KIND.BANK_SALE,
              legs=[(accounts[holder.pk], DEBIT, price_cents), (accounts[seller.pk], CREDIT, price_cents)],
              idempotency_key=f"tenure:{tenure.pk}:price", reference=f"bank sale, tenure #{tenure.pk}",
              posted_by=posted_by, source=source, tenure=tenure)
    if not capital_cents:
        return tenure  # a bank opened empty: nothing to post
    legs = [(accounts[player.pk], DEBIT, part) for (player, _percent), part in zip(shares, parts, strict=True)
            if part]
    legs.append((bank.id, CREDIT, capital_cents))
    _post(locked=locked, kind=KIND.CAPITAL_IN, legs=legs, idempotency_key=f"tenure:{tenure.pk}:capital",
          reference=f"bank capital, tenure #{tenure.pk} at {table}",
          posted_by=posted_by, source=source, tenure=tenure,
          detail={"shares": [[player.code, str(percent), str(euros(part))]
                             for (player, percent), part in zip(shares, parts, strict=True)]})
    return tenure


@contextmanager
def _refuse_second_open_tenure(table):
    """Turn the one-open-tenure-per-table constraint's violation (a concurrent opening at
    the same table that committed first) into ``TenureError``."""
    try:
        yield
    except IntegrityError as error:
        if "ledger_one_open_tenure_per_table" in _constraint_of(error):
            raise TenureError(_("table %(table)s already has an open bank tenure: close, sell or transfer it "
                                "first"), params={"table": table}, field="table") from error
        raise


def _close_tenure(*, tenure, ended, posted_by, source):
    """Close a tenure inside the caller's transaction; the distribution or None."""
    shares = list(tenure.shares.select_related("player").order_by("id"))
    accounts = _ensure_player_accounts(share.player_id for share in shares)
    bank = Account.objects.filter(tenure_id=tenure.pk).values_list("id", flat=True).get()
    locked = _lock([bank, *accounts.values()])
    if not locked[bank].is_open:
        raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})
    balance = cents(locked[bank].balance)
    parts = split_by_shares(balance, [share.percent for share in shares])
    distribution = None
    if balance:
        out = DEBIT if balance > 0 else CREDIT
        back = CREDIT if balance > 0 else DEBIT
        legs = [(bank, out, abs(balance))]
        legs += [(accounts[share.player_id], back, abs(part)) for share, part in zip(shares, parts, strict=True)
                 if part]
        distribution = _post(
            locked=locked, kind=KIND.DISTRIBUTION, legs=legs, idempotency_key=f"tenure:{tenure.pk}:close",
            reference=f"bank distribution, tenure #{tenure.pk} at {tenure.table}",
            posted_by=posted_by, source=source, tenure=tenure,
            detail={"shares": [[share.player.code, str(share.percent), str(euros(part))]
                               for share, part in zip(shares, parts, strict=True)]})
    Account.objects.filter(pk=bank).update(is_open=False)
    closed_at = timezone.now()
    BankTenure.objects.filter(pk=tenure.pk).update(closed_at=closed_at, ended=ended)
    tenure.closed_at, tenure.ended = closed_at, ended
    return distribution


def _lock_handover(*, tenure, players):
    """Before a bank changes hands: lock, in one id-ordered statement, the old tenure's
    account, its members' chips and the new side's chips (``players``), so the steps
    that follow (price, distribution, capital) never wait for a lock out of order.

    Returns:
        (``{player id: account id}``, ``{account id: Account}`` locked, old bank's id).
    """
    old_members = list(tenure.shares.values_list("player_id", flat=True))
    accounts = _ensure_player_accounts([*old_members, *(player.pk for player in players)])
    bank = Account.objects.filter(tenure_id=tenure.pk).values_list("id", flat=True).get()
    locked = _lock([bank, *accounts.values()])
    if not locked[bank].is_open:
        raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})
    return accounts, locked, bank


def _new_holder_checks(*, tenure, holder, capital, shares):
    capital_cents = _amount_cents(capital, "capital", zero=True)
    shares = _syndicate(holder, shares)
    if holder.pk == tenure.holder_id:
        raise TenureError(_("%(player)s already holds this bank"), params={"player": holder.code}, field="holder")
    if not tenure.is_open:
        raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})
    return capital_cents, shares


def tenure_open(*, table, holder: Player, capital: Decimal, shares: list[tuple[Player, Decimal]] | None = None,
                began: str, posted_by, price: Decimal | None = None, seller: Player | None = None,
                source: str = "") -> BankTenure:
    """Open a bank tenure at ``table``: its capital comes from the syndicate's chips.

    Args:
        table: the Table (no other tenure open there).
        holder: the Player who holds the bank at the table.
        capital: ``Decimal`` euros put into the bank, zero or more (an empty bank pays
            nothing from its own: its losses are charged to its syndicate at closing; with
            ``bank_cover`` it can accept no stake).
        shares: ``[(Player, Decimal percent)]`` summing to 100, or None for the holder alone
            (100 %); each member pays his share of the capital, rounded by largest remainder.
        began: ``draw``, ``natural``, ``transfer`` or ``sale``.
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
    capital_cents = _amount_cents(capital, "capital", zero=True)
    shares = _syndicate(holder, shares)
    price_cents = None
    if began == BankTenure.Began.SALE:
        if price is None or seller is None:
            raise TenureError(_("a bank bought needs its price and its seller"), field="price")
        price_cents = _amount_cents(price, "price")
        if seller.pk == holder.pk:
            raise TenureError(_("the buyer and the seller are the same player"), field="seller")
    elif price is not None or seller is not None:
        raise TenureError(_("a price and a seller are only for a bank bought (began: sale)"), field="price")
    source = _source(posted_by, source, "cashier")
    with _refuse_second_open_tenure(table), db.atomic():
        return _open_tenure(table=table, holder=holder, capital_cents=capital_cents, shares=shares, began=began,
                            posted_by=posted_by, source=source, price_cents=price_cents, seller=seller)


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
    [issue 3 "Bank tenure"; rules.md "Settlement of one bet" for the commission]
    """
    _check_choice(ended, BankTenure.Ended, "ended")
    source = _source(posted_by, source, "cashier")
    with db.atomic():
        return _close_tenure(tenure=tenure, ended=ended, posted_by=posted_by, source=source)


def bank_sell(*, tenure: BankTenure, buyer: Player, price: Decimal, capital: Decimal, posted_by,
              shares: list[tuple[Player, Decimal]] | None = None, source: str = "") -> BankTenure:
    """Sell the bank: the buyer pays the price, the old tenure closes, the buyer's opens.

    The price goes into the old tenure's account just before it closes, so the sellers
    (the holder, or the syndicate by shares) receive it with the bank's balance.

    Args:
        tenure: the open BankTenure sold; buyer: the new holder (not the seller);
        price: ``Decimal`` euros above zero; capital: ``Decimal`` euros (zero or more) for
        the new tenure, from the buyer (or his syndicate ``shares``); posted_by: staff user.
    Returns:
        the new BankTenure (``began="sale"``, ``price``, ``seller`` = the old holder,
        ``previous`` = the old tenure).
    Raises:
        InsufficientChips (the buyer cannot pay the price or the capital), TenureError,
        InvalidAmount, InvalidSyndicate.
    [rules.md "The bank passes": sold or transferred]
    """
    capital_cents, shares = _new_holder_checks(tenure=tenure, holder=buyer, capital=capital, shares=shares)
    price_cents = _amount_cents(price, "price")
    source = _source(posted_by, source, "cashier")
    with _refuse_second_open_tenure(tenure.table), db.atomic():
        accounts, locked, bank = _lock_handover(tenure=tenure, players=[buyer, *(p for p, _s in shares)])
        payer = accounts[buyer.pk]
        _require_chips(locked, {payer: price_cents}, {payer: buyer}, field="price")
        _post(locked=locked, kind=KIND.BANK_SALE, legs=[(payer, DEBIT, price_cents), (bank, CREDIT, price_cents)],
              idempotency_key=f"tenure:{tenure.pk}:sale",
              reference=f"bank sale, tenure #{tenure.pk} to {buyer.code}",
              posted_by=posted_by, source=source, tenure=tenure)
        _close_tenure(tenure=tenure, ended=BankTenure.Ended.SALE, posted_by=posted_by, source=source)
        return _open_tenure(table=tenure.table, holder=buyer, capital_cents=capital_cents, shares=shares,
                            began=BankTenure.Began.SALE, posted_by=posted_by, source=source,
                            price_cents=price_cents, seller=tenure.holder, pay_seller=False, previous=tenure)


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
    source = _source(posted_by, source, "cashier")
    with _refuse_second_open_tenure(tenure.table), db.atomic():
        _lock_handover(tenure=tenure, players=[holder, *(p for p, _s in shares)])
        _close_tenure(tenure=tenure, ended=cause, posted_by=posted_by, source=source)
        return _open_tenure(table=tenure.table, holder=holder, capital_cents=capital_cents, shares=shares,
                            began=cause, posted_by=posted_by, source=source, previous=tenure)


def tenure_check_cover(*, tenure: BankTenure, stakes: Decimal) -> Decimal | None:
    """``bank_cover`` ("banca limitada"): may a hand carry ``stakes`` at this bank?

    Call it before accepting a bet, with the hand's total stakes including that bet.
    Reads the tenure's balance (one row; no lock: the console serializes a table's hand).

    Args:
        tenure: the open BankTenure; stakes: ``Decimal`` euros, the hand's stakes so far.
    Returns:
        ``Decimal`` euros still coverable after ``stakes``, or None when the table has no
        ``bank_cover`` (no limit).
    Raises:
        CoverExceeded: the stakes exceed what the tenure holds; the message says by how
        much (field ``amount``).
    [issue 3 "Option bank_cover"; tables.models.Table.bank_cover]
    """
    if not tenure.table.bank_cover:
        return None
    stakes_cents = cents(stakes)
    holds = Account.objects.filter(tenure_id=tenure.pk).values_list("balance", flat=True).get()
    room = cents(holds) - stakes_cents
    if room < 0:
        raise CoverExceeded(
            _("the stakes of %(stakes)s exceed what the bank holds (%(holds)s) by %(excess)s"),
            params={"stakes": show(euros(stakes_cents)), "holds": show(holds), "excess": show(euros(-room))},
            field="amount")
    return euros(room)
