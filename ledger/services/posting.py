"""The ledger's posting core, and the postings of no desk: a hand's settlement, a reversal.

The core, shared by ``cage`` and ``tenures``: amounts checked (``_amount_cents``), who
posts (``_source``), chips accounts created before any lock (``_ensure_player_accounts``),
row locks in account-id order (``_lock``), one balanced transaction written in one
statement (``_post``), and a second posting with the same idempotency key refused
(``AlreadyPosted``). The rules every service keeps are in the package's docstring
(``ledger.services``).
"""

import json
from collections import defaultdict
from contextlib import contextmanager
from decimal import Decimal

from django.db import IntegrityError, connection
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from cage.services import aml
from casino.bulk import IdPool, Statement, instances_copy, rows_copy, send_all, take_ids_each
from ledger.errors import (
    AlreadyPosted,
    AlreadyReversed,
    InsufficientChips,
    InvalidAmount,
    NotReversible,
    TenureError,
    UnknownPlayer,
)
from ledger.models import Account, BankTenure, Entry, SyndicateShare, Transaction
from ledger.money import cents, euros, show
from tables.models import Player
from tables.stakes import open_hands_at_risk

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


def _post(*, locked, kind, legs, idempotency_key, reference, posted_by, source, memo="",
          reverses=None, tenure=None, detail=None, cause=None, patron=None):
    """Insert one balanced transaction and apply it to the balances.

    Expects the row locks of every account in ``legs`` held (``locked`` from ``_lock``).
    Args:
        legs: ``[(account id, "D" or "C", cents > 0)]``, debits summing to credits.
        patron: ``(Player, cents)`` the patron whose cash this is when no leg is his chips
            (a bank deposit at the cage: cash into a tenure), for the AML rules.
    Returns:
        Transaction. The ``locked`` accounts' ``balance`` attributes are updated too.
    Raises:
        ValueError: legs that do not balance, or a leg not above zero (a programming error:
        PostgreSQL would refuse them at COMMIT anyway).
        cage.errors.AmlRefused: a patron's gaming day would reach the anti-money-laundering
        threshold without his identity on file (``cage.services.aml``).
    """
    _check_legs(legs)
    posted_at = timezone.now()
    # Anti-money-laundering: a patron's movement of the cage or a bank, checked against his
    # gaming day before anything is written (cage.services.aml; may refuse), recorded after.
    movements = aml.aml_check(kind=kind, legs=legs, posted_by=posted_by, at=posted_at, source=source,
                              patron=patron)
    txn = Transaction(kind=kind, reference=reference[:200], idempotency_key=idempotency_key, posted_by=posted_by,
                      source=source, memo=memo, reverses=reverses, tenure=tenure, detail=detail or {},
                      cause=cause or {}, posted_at=posted_at)
    deltas = _deltas(legs)
    _write(txn, legs, deltas)
    for account_id, delta in deltas.items():
        locked[account_id].balance += euros(delta)
    if movements:
        aml.aml_record(movements, transaction=txn, posted_by=posted_by)
    return txn


_WRITE_SQL = """
WITH txn AS (
    INSERT INTO ledger_transaction (kind, reference, idempotency_key, posted_by_id, source, posted_at,
                                    reverses_id, memo, tenure_id, detail, cause)
    VALUES (%(kind)s, %(reference)s, %(key)s, %(posted_by)s, %(source)s, %(posted_at)s,
            %(reverses)s, %(memo)s, %(tenure)s, %(detail)s::jsonb, %(cause)s::jsonb)
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
            "detail": json.dumps(txn.detail, ensure_ascii=False), "cause": json.dumps(txn.cause, ensure_ascii=False),
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
                           posted_by=None, source: str = "", cause: dict | None = None) -> Transaction:
    """Post one finished hand's settlement: exactly one transaction per hand.

    Each player (seat, side bettor, loca bettor) gets a credit of what he won and a debit
    of what he lost on his chips; the tenure's account the mirror (a credit of what the
    bank collected, a debit of what it paid); the commission is a debit of the tenure and
    a credit of the house. A hand whose nets cancel out (a split won and lost) is still
    recorded, with its gross entries.

    Args:
        tenure: the open ``BankTenure`` whose holder is ``settlement.bank_player``.
        settlement: ``game.payouts.Settlement`` (integer cents).
        idempotency_key: unique per hand, e.g. ``"hand:Mesa 1:12"``; a second posting with
            it is refused.
        reference: the posting's plain key, e.g. ``"hand Mesa 1 #12"``; cause: what a
            statement shows, as data (``ledger.references``: ``{"kind": "hand", ...}``).
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
    won, lost = _settlement_nets(settlement)
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
            holder, by_code, bank, house = _create_settlement_accounts(
                codes=betting, tenure=tenure, bank_player=settlement.bank_player, house=need_house)
            locked = _lock([*by_code.values(), bank, *([house] if house else [])])
        if holder != settlement.bank_player:
            raise TenureError(_("the hand's bank is %(bank)s, but bank tenure #%(tenure)s is held by another "
                                "player"), params={"bank": settlement.bank_player, "tenure": tenure.pk})
        if not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is closed: post the hand to the open tenure"),
                              params={"tenure": tenure.pk})
        legs = _settlement_legs(settlement, won, lost, by_code, bank, house)
        return _post(locked=locked, kind=KIND.HAND, legs=legs, idempotency_key=idempotency_key,
                     reference=reference, posted_by=posted_by, source=source, tenure=tenure,
                     detail=settlement.as_dict(), cause=cause)


def _settlement_nets(settlement):
    """``(won, lost)``: ``{player code: cents}`` each player won and lost on the hand's
    bets, checked against the settlement's totals.

    Raises:
        ValueError: a settlement that does not balance (players + bank + commission ≠ 0).
    """
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
    return won, lost


def _settlement_legs(settlement, won, lost, by_code, bank, house):
    """The legs of a hand's posting: each player's credit of what he won and debit of what
    he lost, the bank's mirror, the commission from the bank to the house."""
    betting = sorted(set(won) | set(lost))
    legs = [(by_code[code], CREDIT, won[code]) for code in betting if code in won]
    legs += [(by_code[code], DEBIT, lost[code]) for code in betting if code in lost]
    collected, paid = sum(lost.values()), sum(won.values())
    if collected:
        legs.append((bank, CREDIT, collected))
    if paid:
        legs.append((bank, DEBIT, paid))
    if settlement.commission > 0:
        legs.append((bank, DEBIT, settlement.commission))
        legs.append((house, CREDIT, settlement.commission))
    return legs


def _create_settlement_accounts(*, codes, tenure, bank_player, house):
    """The accounts of a hand's posting, the players' chips created if missing (before any
    lock is taken): ``(holder's code or None, {code: account id}, tenure account id, house
    account id or None)``.

    Raises:
        UnknownPlayer: a code has no ``Player``. TenureError: the tenure has no account.
    """
    every = sorted({*codes, bank_player})
    players = dict(Player.objects.filter(code__in=every).values_list("code", "id"))
    unknown = [code for code in every if code not in players]
    if unknown:
        raise UnknownPlayer(_("no player with the id %(codes)s: create the player before posting the "
                              "hand"), params={"codes": ", ".join(unknown)}, field="player")
    holder = bank_player if players[bank_player] == tenure.holder_id else None
    accounts = _ensure_player_accounts(players[code] for code in codes)
    by_code = {code: accounts[players[code]] for code in codes}
    bank = Account.objects.filter(tenure_id=tenure.pk).values_list("id", flat=True).first()
    if bank is None:
        raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
    house_id = _singleton_account(Account.Kind.HOUSE) if house else None
    return holder, by_code, bank, house_id


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
# Hand settlements posted in bulk (an import)

_READ_BATCH_SQL = """
SELECT a.id, a.kind, p.code, a.tenure_id, a.balance, a.is_open
  FROM ledger_account a LEFT JOIN tables_player p ON p.id = a.player_id
 WHERE a.id = ANY(ARRAY(SELECT c.id FROM ledger_account c JOIN tables_player q ON q.id = c.player_id
                         WHERE q.code = ANY(%(codes)s::text[])
                        UNION ALL SELECT t.id FROM ledger_account t WHERE t.tenure_id = %(tenure)s
                        UNION ALL SELECT h.id FROM ledger_account h WHERE %(house)s AND h.kind = 'house'))
 ORDER BY a.id
   FOR NO KEY UPDATE OF a"""

_MOVE_BALANCES_SQL = """
WITH tenures AS (
    UPDATE ledger_banktenure t SET closed_at = c.closed_at, ended = c.ended
      FROM unnest(%(tenures)s::bigint[], %(closed_at)s::timestamptz[], %(ended)s::varchar[])
           AS c(id, closed_at, ended)
     WHERE t.id = c.id)
UPDATE ledger_account a SET balance = a.balance + d.delta, is_open = a.is_open AND NOT d.closing
  FROM unnest(%(ids)s::bigint[], %(deltas)s::numeric[], %(closing)s::boolean[]) AS d(id, delta, closing)
 WHERE a.id = d.id"""
# A batch's balances moved and the accounts of the tenures it closed closed in one statement, with
# the closing of those tenures written before it (each row's trigger checks its own table:
# ledger_account_update, ledger_banktenure_update).


class SettlementBatch:
    """The settlements of an import's hands, posted in bulk: each hand's transaction is
    checked and its legs made as ``ledger_post_settlement`` makes them, kept in memory,
    and written with the batch's others by ``flush`` (the transactions in one statement,
    their entries in one, every balance moved once by its total).

    The accounts are row-locked (``FOR NO KEY UPDATE``) and read once, when first needed,
    and held until the caller's transaction ends; their balances are then kept in memory
    (what was read plus what the pending postings move), so that an import's cover checks
    (a player's chips, a limited bank's funds) read nothing more. Anything else that posts
    (a bank drawn for, opening chips, a bank passed that ``pass_bank`` cannot pass) reads
    the balances from the database: the caller ``flush``-es before it and ``forget``-s
    after it.

    A 7½ takeover is passed in memory too (``pass_bank``): the old tenure closed and its
    distribution kept with the batch's postings, the taker's tenure, share and account
    made as rows (their ids taken ahead) written by ``flush``; the patrons' gaming days
    for the AML rules kept in memory (``cage.services.aml.AmlBatch``).

    Measured in-process on ``benchmarks/import.py``'s first 1,000 chained hands, every
    statement counted (2026-11-24): with the cover checks on the balances it holds, the
    import went from 15.3 to 12.2 statements a hand (a hand's own posting: two
    statements, ``ledger_post_settlement``, against three per flush, one flush every
    four hands or so, before each bank passed by a 7½).
    """

    def __init__(self):
        self.accounts = {}  # player code -> his chips account's id, None while he has none
        self.tenures = {}  # tenure id -> (its account's id)
        self.balances = {}  # account id -> cents: as read under its lock, plus the pending postings
        self.open = {}  # account id -> is_open, as read
        self.house = None  # the house account's id (None: none yet)
        self.house_read = False  # its balance read since the last forget
        self.stale = set()  # codes whose balances were forgotten: read again with the next read
        self.pending = []  # [(Transaction unsaved, legs)]
        # The transactions' ids, taken from their sequence at each flush, as many as it writes (taken
        # ahead for the whole batch, the ids left unused would be gaps: the import would not number
        # its transactions as the console's services do, which tests/tables/test_import_batches.py checks).
        self.ids = IdPool(Transaction)
        self.players = {}  # code -> Player: the batch's (the caller's), whose AML days are read together
        self.members = {}  # tenure id -> [(Player, Decimal percent)]: its syndicate, in the shares' order
        self.aml = aml.AmlBatch()  # the AML movements of the postings kept (pass_bank's)
        # Made by pass_bank, written by flush: new tenures (ids taken), their shares, their accounts
        # (ids taken), and the tenures closed [(BankTenure, its account's id)].
        self.new_tenures, self.new_shares, self.new_accounts, self.closings = [], [], [], []
        # [(tenure id, account id)] taken ahead for pass_bank, as many as the caller expects it to pass
        # (expect_passes) in one statement: one a batch instead of one a bank passed (246 statements fewer
        # for 1,000 chained hands of benchmarks/import.py). A refused record's are gaps.
        self.pass_ids, self.passes_due = [], 1

    def _read(self, codes=(), tenure_id=None):
        """Lock and read, in one statement in account-id order, the chips of ``codes``, the
        account of tenure ``tenure_id`` and the house's, those not read yet."""
        codes = sorted((set(codes) | self.stale) - self.accounts.keys())
        self.stale.clear()
        if tenure_id in self.tenures:
            tenure_id = None
        house = not self.house_read
        if not codes and tenure_id is None and not house:
            return
        with connection.cursor() as cursor:
            cursor.execute(_READ_BATCH_SQL, {"codes": codes, "tenure": tenure_id, "house": house})
            rows = cursor.fetchall()
        self.accounts.update(dict.fromkeys(codes))
        self.house_read = True
        for account_id, kind, code, tenure, balance, is_open in rows:
            self.balances[account_id], self.open[account_id] = cents(balance), is_open
            if kind == Account.Kind.PLAYER:
                self.accounts[code] = account_id
            elif kind == Account.Kind.TENURE:
                self.tenures[tenure] = account_id
            else:
                self.house = account_id

    def chips(self, codes, tenure=None) -> dict:
        """``{code: cents}``: each player's chips on record (a player without an account is
        absent: he holds nothing), his account locked; ``tenure``'s account read with them
        (for the hand's posting), if given."""
        self._read(codes=codes, tenure_id=None if tenure is None else tenure.pk)
        return {code: self.balances[self.accounts[code]] for code in codes if self.accounts[code] is not None}

    def bank_holds(self, tenure) -> int:
        """Cents the tenure's account holds, locked.

        Raises:
            TenureError: the tenure has no account."""
        self._read(tenure_id=tenure.pk)
        if tenure.pk not in self.tenures:
            raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
        return self.balances[self.tenures[tenure.pk]]

    def post_settlement(self, *, tenure: BankTenure, settlement, idempotency_key: str, reference: str,
                        posted_by=None, source: str = "", cause: dict | None = None) -> Transaction:
        """``ledger_post_settlement``'s posting, kept for ``flush``: the same checks, the same
        legs, the same transaction (unsaved until ``flush``; its balances moved in memory).

        A key posted already is refused by its unique constraint when ``flush`` writes it
        (an import's keys are its hands' numbers, each the table's next: none can be).

        Raises:
            UnknownPlayer, TenureError, ValueError: as ``ledger_post_settlement``.
        """
        if not idempotency_key or not reference:
            raise ValueError("a settlement posting needs an idempotency_key and a reference")
        source = _source(posted_by, source, "console" if posted_by is not None else "settlement")
        won, lost = _settlement_nets(settlement)
        betting = sorted(set(won) | set(lost))
        self._read(codes=betting, tenure_id=tenure.pk)
        if tenure.holder.code != settlement.bank_player:
            raise TenureError(_("the hand's bank is %(bank)s, but bank tenure #%(tenure)s is held by another "
                                "player"), params={"bank": settlement.bank_player, "tenure": tenure.pk})
        bank = self.tenures.get(tenure.pk)
        if bank is None:
            raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
        if not self.open[bank]:
            raise TenureError(_("bank tenure #%(tenure)s is closed: post the hand to the open tenure"),
                              params={"tenure": tenure.pk})
        missing = [code for code in betting if self.accounts[code] is None]
        need_house = settlement.commission > 0 and self.house is None
        if missing or need_house:
            # A player's first hand (or the house's first commission): the accounts created (the last
            # refusal, an unknown player, comes before), then locked.
            _holder, _by_code, _bank, house = _create_settlement_accounts(
                codes=missing, tenure=tenure, bank_player=settlement.bank_player, house=need_house)
            for code in missing:
                del self.accounts[code]
            if need_house:
                self.house, self.house_read = house, False
            self._read(codes=missing)
        legs = _settlement_legs(settlement, won, lost, {code: self.accounts[code] for code in betting}, bank,
                                self.house)
        txn = Transaction(kind=KIND.HAND, reference=reference[:200], idempotency_key=idempotency_key,
                          posted_by=posted_by, source=source, tenure=tenure, detail=settlement.as_dict(),
                          cause=cause or {}, posted_at=timezone.now())
        for account_id, delta in _deltas(legs).items():
            self.balances[account_id] += delta
        self.pending.append((txn, legs))
        return txn

    def syndicate(self, tenure) -> list:
        """``[(Player, Decimal percent)]``: ``tenure``'s syndicate in the shares' order (read
        once per batch; a tenure ``pass_bank`` opened is known without a read)."""
        if tenure.pk not in self.members:
            self.members[tenure.pk] = [(share.player, share.percent) for share
                                       in tenure.shares.select_related("player").order_by("id")]
        return self.members[tenure.pk]

    def can_pass(self, tenure, holder) -> bool:
        """May ``pass_bank`` pass ``tenure`` to ``holder`` in memory: the tenure's account
        and every chips account it moves (its syndicate's, the taker's) exist (read and
        locked here if not yet). Otherwise the bank passes through ``bank_transfer``
        (``flush`` first)."""
        codes = [holder.code, *(player.code for player, _percent in self.syndicate(tenure))]
        self._read(codes=codes, tenure_id=tenure.pk)
        return tenure.pk in self.tenures and all(self.accounts.get(code) is not None for code in codes)

    def expect_passes(self, count: int):
        """How many banks the caller expects ``pass_bank`` to pass from now on (its
        estimate, at least 1: the next ``pass_bank`` that finds no ids taken takes that
        many pairs at once; too many leaves gaps, too few costs another statement)."""
        self.passes_due = max(1, count)

    def pass_bank(self, *, tenure: BankTenure, holder: Player, capital: int, risk: int = 0, posted_by=None,
                  source: str = "") -> BankTenure:
        """A 7½ takeover in memory: ``bank_transfer(cause="natural")`` of the batch (the same
        postings, rows and AML movements, written by ``flush``). [rules.md "The bank passes"]

        The old tenure closes (``ended`` natural): its balance, as this batch holds it, goes
        back to its syndicate by shares (``tenures._distribution_posting``); the taker's
        tenure (``began`` natural, ``previous`` the old one), his 100 % share and the
        tenure's account are made with ids taken from their sequences (``casino.bulk
        .take_ids_each``: ahead, for as many banks as ``expect_passes`` said, in one
        statement), and his capital posted from his chips
        (``tenures._capital_posting``). ``can_pass`` must have said yes.

        Args:
            tenure: the open BankTenure; holder: the Player taking it (not its holder);
            capital: cents (zero or more) from his chips; risk: cents he has at risk in
            open hands (his chips less them must cover the capital); posted_by: the staff
            user, None for the system; source: as ``bank_transfer``.
        Returns:
            the new BankTenure (its id set; written by ``flush``).
        Raises:
            TenureError: ``holder`` holds it already, or it is closed. InsufficientChips:
            his chips less his risk do not cover the capital (nothing kept). AmlRefused:
            as ``_post`` for a refusable source (then the batch must be undone: ``undo``).
        """
        from ledger.services.tenures import _capital_posting, _distribution_posting

        source = _source(posted_by, source, "cashier")
        if holder.pk == tenure.holder_id:
            raise TenureError(_("%(player)s already holds this bank"), params={"player": holder.code},
                              field="holder")
        members = self.syndicate(tenure)
        bank = self.tenures[tenure.pk]
        if not self.open[bank]:
            raise TenureError(_("bank tenure #%(tenure)s is already closed"), params={"tenure": tenure.pk})
        taker = self.accounts[holder.code]
        if self.balances[taker] - risk < capital:
            raise InsufficientChips(_("%(player)s holds %(balance)s in chips, %(in_play)s of them at risk in open "
                                      "hands; %(needed)s are needed") % {
                "player": holder.code, "balance": show(euros(self.balances[taker])), "in_play": show(euros(risk)),
                "needed": show(euros(capital))}, field="capital")
        posting = _distribution_posting(tenure=tenure, bank=bank, balance=self.balances[bank], members=[
            (player, percent, self.accounts[player.code]) for player, percent in members])
        if posting is not None:
            self._keep(posted_by=posted_by, source=source, patrons=[player for player, _p in members], **posting)
        tenure.closed_at, tenure.ended = timezone.now(), BankTenure.Ended.NATURAL
        self.open[bank] = False
        self.closings.append((tenure, bank))

        if not self.pass_ids:
            self.pass_ids = take_ids_each(BankTenure, Account, count=self.passes_due)
        tenure_id, account_id = self.pass_ids.pop(0)
        new = BankTenure(id=tenure_id, table=tenure.table, holder=holder, began=BankTenure.Began.NATURAL,
                         capital=euros(capital), previous=tenure)
        self.new_tenures.append(new)
        self.new_shares.append(SyndicateShare(tenure=new, player=holder, percent=Decimal(100)))
        self.new_accounts.append(Account(id=account_id, kind=Account.Kind.TENURE, tenure=new))
        self.members[new.pk] = [(holder, Decimal("100.00"))]  # as read back from its column (two places)
        self.tenures[new.pk], self.balances[account_id], self.open[account_id] = account_id, 0, True
        if capital:
            self._keep(posted_by=posted_by, source=source, patrons=[holder], **_capital_posting(
                tenure=new, bank=account_id, capital_cents=capital, members=[(holder, Decimal(100), taker)]))
        return new

    def _keep(self, *, kind, legs, idempotency_key, reference, posted_by, source, tenure, cause, detail, patrons):
        """``_post`` in memory: the transaction kept for ``flush``, the balances moved, the
        AML movements of ``patrons`` (Players whose chips the legs move) kept by ``aml``."""
        _check_legs(legs)
        txn = Transaction(kind=kind, reference=reference[:200], idempotency_key=idempotency_key, posted_by=posted_by,
                          source=source, tenure=tenure, detail=detail, cause=cause, posted_at=timezone.now())
        self.aml.check(kind=kind, legs=legs, players={self.accounts[player.code]: player for player in patrons},
                       posted_by=posted_by, at=txn.posted_at, source=source, transaction=txn,
                       expect=self.players.values())
        for account_id, delta in _deltas(legs).items():
            self.balances[account_id] += delta
        self.pending.append((txn, legs))

    def mark(self):
        """What ``undo`` goes back to: what the batch holds now (a record about to be entered)."""
        return (len(self.pending), len(self.new_tenures), len(self.new_shares), len(self.new_accounts),
                len(self.closings), dict(self.balances), dict(self.open), dict(self.tenures), self.aml.mark())

    def undo(self, mark):
        """Forget what was kept since ``mark`` (a record refused: its postings, its bank
        passed, its AML movements); a tenure it closed is open again."""
        (pending, tenures, shares, accounts, closings, self.balances, self.open, self.tenures, aml_mark) = mark
        for tenure, _account in self.closings[closings:]:
            tenure.closed_at, tenure.ended = None, ""  # pass_bank closes only an open tenure
        del self.pending[pending:]
        del self.new_tenures[tenures:]
        del self.new_shares[shares:]
        del self.new_accounts[accounts:]
        del self.closings[closings:]
        self.aml.undo(aml_mark)

    def flush(self):
        """Write what the batch kept now (``send_all`` of ``detach``)."""
        send_all(self.detach())

    def detach(self) -> list:
        """What the batch kept, made ready to write and taken out of it: the writes
        (``casino.bulk.CopyIn``, ``Statement``), to send in order, on this thread
        (``flush``) or on a writer's (``casino.write_behind``). Ids are taken and the rows
        formatted now; the balances the batch holds stay as they are.

        In order: the tenures' accounts made by ``pass_bank``, the pending postings (the
        transactions, their ids set, and their entries), each account's balance moved once
        by its total and the accounts of the tenures closed closed (with those tenures
        already written) in one statement, then the tenures made and their shares, and the
        AML movements and alerts. Every row goes through its table's triggers: an entry's
        account is open when it is copied in, a tenure opens once the table's previous one
        is closed.
        """
        if not (self.pending or self.new_accounts or self.closings):
            return []
        # A tenure's account before its tenure: the foreign key is checked at COMMIT.
        writes = [instances_copy(Account, self.new_accounts)]
        # COPY, the transactions' ids taken from their sequence first (casino.bulk), the entries
        # as plain tuples, no model instance. With the batch's hands, entries and bets copied too
        # (_ImportBatch.write): 1,000 chained hands of benchmarks/import.py in-process, 5.9-6.0 s
        # before, 4.6-4.7 s after (168 to 214 hands/s, two runs each in alternation, 2026-11-24).
        writes.append(instances_copy(Transaction, [txn for txn, _legs in self.pending], ids=self.ids))
        if self.pending:
            writes.append(rows_copy(Entry._meta.db_table, ["transaction_id", "account_id", "side", "amount"],
                                    ((txn.id, account_id, side, euros(amount)) for txn, legs in self.pending
                                     for account_id, side, amount in legs)))
        moved = _deltas(leg for _txn, legs in self.pending for leg in legs)
        closed = {account_id for _tenure, account_id in self.closings}
        made = {tenure.pk for tenure in self.new_tenures}
        written = [tenure for tenure, _account in self.closings if tenure.pk not in made]
        ids = sorted(set(moved) | closed)
        writes.append(Statement(_MOVE_BALANCES_SQL, {
            "ids": ids, "deltas": [euros(moved.get(account_id, 0)) for account_id in ids],
            "closing": [account_id in closed for account_id in ids],
            "tenures": [tenure.pk for tenure in written], "closed_at": [tenure.closed_at for tenure in written],
            "ended": [tenure.ended for tenure in written]}))
        writes.append(instances_copy(BankTenure, self.new_tenures))  # after the table's previous tenure was closed
        writes.append(instances_copy(SyndicateShare, self.new_shares))
        writes += self.aml.detach()
        self.pending = []
        self.new_tenures, self.new_shares, self.new_accounts, self.closings = [], [], [], []
        return writes

    def forget(self):
        """Forget the balances read (another service posted since: they are read again,
        after ``flush``, all in the next read)."""
        if self.pending or self.new_accounts or self.closings:
            raise RuntimeError("flush the pending postings before another service posts")
        self.aml.forget()
        self.stale.update(code for code, account_id in self.accounts.items() if account_id is not None)
        self.accounts.clear()
        self.tenures.clear()
        self.balances.clear()
        self.open.clear()
        self.house_read = False


def _check_legs(legs):
    """Refuse legs (``[(account id, "D"/"C", cents)]``) that do not balance, are fewer than
    two, or move nothing: ``ValueError`` (a programming error: PostgreSQL would refuse them
    at COMMIT anyway)."""
    debit_total = sum(amount for _a, side, amount in legs if side == DEBIT)
    credit_total = sum(amount for _a, side, amount in legs if side == CREDIT)
    if debit_total != credit_total or len(legs) < 2 or any(amount <= 0 for _a, _s, amount in legs):
        raise ValueError(f"unbalanced or empty legs: {legs}")


def _deltas(legs):
    """``{account id: cents}``: what ``legs`` move on each account (credits − debits), zeros left out."""
    deltas = defaultdict(int)
    for account_id, side, amount in legs:
        deltas[account_id] += amount if side == CREDIT else -amount
    return {account_id: delta for account_id, delta in deltas.items() if delta}


# ---------------------------------------------------------------------------------------
# Reversal


def _refuse_chips_below_zero(original, locked, legs):
    """Refuse a reversal that would take from a player more chips than he holds, less what
    he has at risk in open hands (a hand's winnings cashed out since): his chips never go
    below zero. [issue 14 "Chips"]

    Raises:
        InsufficientChips: naming the first such player, his chips and what is taken back.
    """
    taken = defaultdict(int)
    for account_id, side, amount in legs:
        taken[account_id] += amount if side == DEBIT else -amount
    taken = {account_id: amount for account_id, amount in taken.items() if amount > 0}
    players = dict(Account.objects.filter(id__in=list(taken), kind=Account.Kind.PLAYER)
                   .values_list("id", "player__code"))
    if not players:
        return
    in_play = open_hands_at_risk(codes=players.values())
    for account_id, code in sorted(players.items(), key=lambda item: item[1]):
        balance = cents(locked[account_id].balance)
        risk = in_play.get(code, 0)
        if balance - risk < taken[account_id]:
            raise InsufficientChips(
                _("the reversal of transaction #%(id)s takes back %(amount)s from %(player)s, who holds %(balance)s "
                  "in chips, %(in_play)s of them at risk in open hands: his chips would go below zero"),
                params={"id": original.pk, "amount": show(euros(taken[account_id])), "player": code,
                        "balance": show(euros(balance)), "in_play": show(euros(risk))}, field="reason")


def _through_distribution(legs, closed_ids):
    """The reversal's legs with those on closed tenure accounts (``closed_ids``) replaced
    by legs on their syndicates' chips, by shares (largest remainder,
    ``ledger.shares.split_by_shares``): a closed tenure's balance already went to its
    syndicate, so what the reversal owes or gives the bank is taken from or given to the
    syndicate as the distribution shared it. Returns ``(legs, player account ids,
    [{"tenure", "account", "legs": [[account id, side, cents]], "shares": [[code,
    percent, cents]]}])``."""
    from ledger.models import SyndicateShare
    from ledger.shares import split_by_shares

    nets = defaultdict(int)
    kept = []
    for account_id, side, amount in legs:
        if account_id in closed_ids:
            nets[account_id] += amount if side == CREDIT else -amount
        else:
            kept.append((account_id, side, amount))
    tenures = dict(Account.objects.filter(id__in=list(nets)).values_list("id", "tenure_id"))
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
                      for (player_id, _code, _percent), part in zip(rows, parts, strict=True) if part]
        kept += share_legs
        moved.append({"tenure": tenures[account_id], "account": account_id,
                      "legs": [[a, str(side), amount] for a, side, amount in share_legs],
                      "shares": [[code, str(percent), part] for (_pid, code, percent), part
                                 in zip(rows, parts, strict=True)]})
    return kept, set(chips.values()), moved


def ledger_reverse(*, transaction: Transaction, reason: str, posted_by, source: str = "",
                   void: dict | None = None, through_distribution: bool = False) -> Transaction:
    """Correct a mistake: post the mirror of ``transaction`` (every debit a credit and
    back), linked both ways (``reversal.reverses == transaction``,
    ``transaction.reversal == reversal``).

    Args:
        transaction: the posted Transaction to reverse.
        reason: why, in words (kept as the reversal's memo); required.
        posted_by: the staff user (or None for the system).
        void: ``{"table", "table_id", "number"}`` of the hand whose void this is, kept in
            the reversal's ``cause`` (``ledger.references``).
        through_distribution: when the transaction touches a bank tenure that has closed
            since (its balance distributed to its syndicate), post what the mirror would
            put on the tenure's account against the syndicate's chips instead, split by
            shares to the cent by largest remainder (``ledger.shares``): the holder's and
            each member's share of the bank's result is taken back (or given back). The
            reversal's ``cause`` records it (``through_distribution``: the tenure, its
            account, the legs and each share's part, in cents), which ``ledger_check``
            reads to check the reversal against its original. Without it such a
            transaction is refused.
    Returns:
        Transaction of kind ``reversal``.
    Raises:
        AlreadyReversed: it was reversed already (once only, also backed by a unique key).
        NotReversible: it is itself a reversal, or it touches a closed tenure (whose
        balance was already distributed) and ``through_distribution`` is false.
        InsufficientChips: it would take back from a player more chips than he holds, less
        what he has at risk in open hands (winnings cashed out since).
        ValueError: an empty reason.
    [TigerBeetle's rule: a posted transfer is never changed; a correction is a new one;
    issue 17: a hand of a closed bank tenure can still be corrected]
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
            # A closed account never opens again: read before the locks, so that every
            # account the reversal posts to is locked at once, in id order.
            closed_ids = set(Account.objects.filter(id__in={a for a, _s, _m in legs}, is_open=False)
                             .values_list("id", flat=True))
            moved = []
            if closed_ids:
                if not through_distribution:
                    raise NotReversible(_("transaction #%(id)s touches a closed bank tenure: its balance was "
                                          "already distributed"), params={"id": original.pk})
                legs, _members, moved = _through_distribution(legs, closed_ids)
            locked = _lock(account_id for account_id, _s, _a in legs)
            if any(not account.is_open for account in locked.values()):
                raise NotReversible(_("transaction #%(id)s touches a closed bank tenure: its balance was "
                                      "already distributed"), params={"id": original.pk})
            _refuse_chips_below_zero(original, locked, legs)
            cause = {"kind": "reversal", "of": original.pk, "original": original.cause or {},
                     **({"void": void} if void else {}), **({"through_distribution": moved} if moved else {})}
            return _post(locked=locked, kind=KIND.REVERSAL, legs=legs, idempotency_key=key,
                         reference=f"reversal of #{original.pk}: {original.reference}",
                         posted_by=posted_by, source=source, memo=reason, reverses=original,
                         tenure=original.tenure, cause=cause)
    except IntegrityError as error:
        constraint = _constraint_of(error)
        if IDEMPOTENCY_CONSTRAINT in constraint or "reverses" in constraint:
            raise AlreadyReversed(_("transaction #%(id)s was already reversed"),
                                  params={"id": transaction.pk}) from error
        raise
