"""The ledger's one door: every app posts through these names, and only these.

A posting service (``cage``'s slips, ``tables``' settlements and bank, ``boxes``' counts)
follows the same steps, in one database transaction:

1. check its amounts (``amount_cents``) and who posts (``source_of``);
2. find or create the accounts (``player_accounts``, ``singleton_account``) before any
   lock is taken, so that concurrent creators wait on each other in one order only;
3. row-lock the ledger's chain head (``lock_chain``), then every account it will post to,
   in account-id order (``lock``, which does both: ``SELECT ... FOR NO KEY UPDATE``, the
   mode an UPDATE takes, which does not block the foreign-key checks of entries pointing
   at the account), then re-check what the locks protect;
4. ``post`` one balanced transaction, signed and chained (``ledger.signing``; its entries,
   the balances and the chain's head moved in one statement); a second posting with the
   same idempotency key is refused (``refuse_second_posting``, ``check_new_key``:
   ``AlreadyPosted``).

Units: public arguments are ``Decimal`` euros with at most two decimals; legs are
``(account id, "D" or "C", integer cents > 0)``. Balances are credits − debits.

Two hooks let the apps above the ledger take part without the ledger importing them
(registered in their ``AppConfig.ready``):

- ``register_check``: a check every posting passes before it is written and a record
  after (the cage's anti-money-laundering rules), with a batch form for bulk postings;
- ``register_chips_at_risk``: what players have at risk in open hands (the tables), so
  that no posting takes a player's chips below what he has staked.
"""

import json
from collections import defaultdict
from contextlib import contextmanager

from django.db import IntegrityError, connection
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino import formatting
from casino.errors import attempts_recorded
from ledger.errors import (
    AlreadyPosted,
    AlreadyReversed,
    InsufficientChips,
    InvalidAmount,
    NotReversible,
)
from ledger.models import Account, Entry, Transaction
from ledger.money import cents, euros
from ledger.signing import GENESIS, sign

DEBIT, CREDIT = Entry.Side.DEBIT, Entry.Side.CREDIT
KIND = Transaction.Kind
MAX_CENTS = 10**14 - 1  # DecimalField(max_digits=14, decimal_places=2)
IDEMPOTENCY_CONSTRAINT = "ledger_transaction_idempotency_key"


# ---------------------------------------------------------------------------------------
# Hooks for the apps above the ledger

_checks = []
_at_risk = []


def register_check(check) -> None:
    """Add a check every posting passes (the cage's AML rules). ``check`` has:

    - ``check(*, kind, legs, posted_by, at, source, patron) -> pending``: before anything is
      written; may raise a ``PostingRefused`` (nothing is written);
    - ``record(pending, *, transaction, posted_by)``: after the transaction is written;
    - ``batch() -> object``: the same rules for a bulk posting (``check``, ``mark``,
      ``undo``, ``detach``, ``forget``: see ``tables.importing``).
    """
    if check not in _checks:
        _checks.append(check)


def batch_checks() -> list:
    """One batch object (``check.batch()``) of every registered check, for a bulk posting."""
    return [check.batch() for check in _checks]


def register_chips_at_risk(reader) -> None:
    """Set what players have at risk in open hands: ``reader(codes) -> {code: cents}``
    (the tables' open hands; a player with nothing at risk may be left out)."""
    _at_risk[:] = [reader]


def chips_at_risk(codes) -> dict:
    """``{player code: cents}`` at risk in open hands (the registered reader's; nothing
    when none is registered)."""
    codes = list(codes)
    if not _at_risk or not codes:
        return {}
    return _at_risk[0](codes)


def refusals_recorded(service):
    """Decorate a service that a check may refuse: a refusal carrying its attempt
    (``PostingRefused.record_attempt``, the patrons' ``AdmissionRefused``) has it written
    after the service's own transaction was rolled back, then goes on to the caller
    (``casino.errors.attempts_recorded``).

    A service that calls a decorated one inside its own transaction rolls that record back
    too: its own wrapper finds it gone and writes it again (``recorded``, the record's id).
    """
    return attempts_recorded(service)


# ---------------------------------------------------------------------------------------
# Checks (no writes)


def amount_cents(amount, field: str = "amount", zero: bool = False) -> int:
    """Integer cents of a positive (or, with ``zero``, non-negative) ``Decimal`` amount of
    euros.

    Raises:
        InvalidAmount: not euros with at most two decimals, negative (or zero without
        ``zero``), or too large for the ledger's columns; ``field`` names the form field.
    """
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


def source_of(posted_by, source: str, default: str) -> str:
    """Who posts: a staff user (``source`` names the channel, ``default`` if empty) or the
    system (``system:<default>`` unless ``source`` starts with ``system``).

    Raises:
        TypeError: ``posted_by`` is neither None nor an authenticated user.
    """
    if posted_by is None:
        return source if source and source.startswith("system") else f"system:{default}"
    if not getattr(posted_by, "is_authenticated", False):
        raise TypeError(f"posted_by must be a user, not {posted_by!r}")
    return source or default


def check_legs(legs) -> None:
    """Refuse legs (``[(account id, "D"/"C", cents)]``) that do not balance, are fewer than
    two, or move nothing.

    Raises:
        ValueError: a programming error (PostgreSQL would refuse them at COMMIT anyway).
    """
    debit_total = sum(amount for _a, side, amount in legs if side == DEBIT)
    credit_total = sum(amount for _a, side, amount in legs if side == CREDIT)
    if debit_total != credit_total or len(legs) < 2 or any(amount <= 0 for _a, _s, amount in legs):
        raise ValueError(f"unbalanced or empty legs: {legs}")


def deltas(legs) -> dict:
    """``{account id: cents}``: what ``legs`` move on each account (credits − debits), zeros
    left out."""
    moved = defaultdict(int)
    for account_id, side, amount in legs:
        moved[account_id] += amount if side == CREDIT else -amount
    return {account_id: delta for account_id, delta in moved.items() if delta}


def refuse_chips_below_risk(*, locked, legs, message, params) -> None:
    """Refuse legs that would take from a player more chips than he holds less what he
    has at risk in open hands (``chips_at_risk``): his chips never go below it.

    Args:
        locked: ``{account id: Account}`` under their locks (``lock``); legs: as ``post``;
        message: the refusal's text, given ``%(player)s``, ``%(amount)s`` (taken),
        ``%(balance)s`` and ``%(in_play)s`` besides ``params``.
    Raises:
        InsufficientChips: naming the first such player (by code).
    """
    taken = defaultdict(int)
    for account_id, side, amount in legs:
        taken[account_id] += amount if side == DEBIT else -amount
    taken = {account_id: amount for account_id, amount in taken.items() if amount > 0}
    players = dict(Account.objects.filter(id__in=list(taken), kind=Account.Kind.PLAYER)
                   .values_list("id", "player__code"))
    if not players:
        return
    in_play = chips_at_risk(players.values())
    for account_id, code in sorted(players.items(), key=lambda item: item[1]):
        balance = cents(locked[account_id].balance)
        risk = in_play.get(code, 0)
        if balance - risk < taken[account_id]:
            raise InsufficientChips(message, params={
                **params, "amount": formatting.money(euros(taken[account_id])), "player": code,
                "balance": formatting.money(euros(balance)), "in_play": formatting.money(euros(risk))}, field="reason")


# ---------------------------------------------------------------------------------------
# Accounts and locks


class LockedAccount:
    """An account row as read under its lock: ``id``, ``balance`` (Decimal euros),
    ``is_open``; lighter than a model instance on the hot path."""

    __slots__ = ("id", "balance", "is_open")

    def __init__(self, account_id, balance, is_open):
        self.id, self.balance, self.is_open = account_id, balance, is_open


def player_accounts(player_ids) -> dict:
    """``{player id: account id}`` of the players' chips, creating those missing.

    Creation is ``INSERT ... ON CONFLICT DO NOTHING`` in player-id order, before any
    account's row lock is taken and after the ledger's chain head's (``lock_chain``: the
    posting that follows takes it anyway), so concurrent creators wait on each other in
    one order only.
    """
    player_ids = sorted(set(player_ids))
    found = dict(Account.objects.filter(player_id__in=player_ids).values_list("player_id", "id"))
    missing = [pid for pid in player_ids if pid not in found]
    if missing:
        lock_chain()  # a creator waits for a concurrent one only while neither holds an account's lock
        Account.objects.bulk_create([Account(kind=Account.Kind.PLAYER, player_id=pid) for pid in missing],
                                    ignore_conflicts=True)
        found = dict(Account.objects.filter(player_id__in=player_ids).values_list("player_id", "id"))
    return found


def singleton_account(kind: str) -> int:
    """The id of the one account of ``kind`` (the house, the cage, the tronc, the count
    variances), created on first use."""
    account_id = Account.objects.filter(kind=kind).values_list("id", flat=True).first()
    if account_id is None:
        lock_chain()  # as player_accounts
        Account.objects.bulk_create([Account(kind=kind)], ignore_conflicts=True)
        account_id = Account.objects.filter(kind=kind).values_list("id", flat=True).get()
    return account_id


_CHAIN_SQL = "SELECT signature FROM ledger_chainhead WHERE id = 1 FOR UPDATE"


def lock_chain() -> str:
    """Row-lock the ledger's chain head (``ChainHead``, made if missing) and return its
    signature (the last transaction's, ``GENESIS`` for none).

    Every transaction that will post takes it FIRST, before any account's lock (``lock``
    does; so do the writers that lock accounts by their own statement: the tables'
    settlement and handover, an import's batch), and holds it until it ends: postings are
    signed, numbered and committed one after the other (``ledger.signing``), and no two
    transactions wait for each other's locks in opposite orders. Taken again in the same
    transaction, it waits for nothing.
    """
    with connection.cursor() as cursor:
        cursor.execute(_CHAIN_SQL)
        row = cursor.fetchone()
        if row is None:
            cursor.execute("INSERT INTO ledger_chainhead (id, signature) VALUES (1, %s) ON CONFLICT DO NOTHING",
                           [GENESIS])
            cursor.execute(_CHAIN_SQL)
            row = cursor.fetchone()
    return row[0]


def lock(account_ids) -> dict:
    """Row-lock the ledger's chain head (``lock_chain``), then the accounts, in account-id
    order, and return ``{id: Account}`` read after the locks were granted (balances and
    ``is_open`` are current).

    Raises:
        RuntimeError: an account does not exist (a programming error).
    """
    chain = lock_chain()
    ids = sorted(set(account_ids))
    locked = Locked({account.id: account
                     for account in Account.objects.select_for_update(no_key=True).filter(id__in=ids).order_by("id")})
    if len(locked) != len(ids):
        raise RuntimeError(f"ledger accounts {sorted(set(ids) - set(locked))} do not exist")
    locked.chain = chain
    return locked


class Locked(dict):
    """``{account id: Account}`` as ``lock`` read them, with ``chain``: the ledger's chain
    head (the last signature) as read under its lock, moved by each ``post`` made with it
    (as the balances are), so that a posting need not read it again. A writer that locks
    by its own statement may make one (the tables' settlement)."""

    chain = None


# ---------------------------------------------------------------------------------------
# Posting


def post(*, locked, kind: str, legs, idempotency_key: str, reference: str, posted_by, source: str, memo: str = "",
         reverses: Transaction | None = None, detail: dict | None = None, cause: dict | None = None,
         patron=None) -> Transaction:
    """Insert one balanced transaction, signed and chained (``ledger.signing``), and apply
    it to the balances.

    Expects the row locks of the chain's head and of every account in ``legs`` held
    (``locked`` from ``lock``, or ``lock_chain`` and the caller's own locks). The chain's
    head is ``locked.chain`` when ``locked`` is a ``Locked`` (kept up to date by each
    posting), else read; the write moves it only from that value (a RuntimeError if
    another posting moved it since: a programming error, never a forked chain).

    Args:
        kind: a ``Transaction.Kind``; legs: ``[(account id, "D" or "C", cents > 0)]``,
            debits summing to credits; idempotency_key, reference: unique key and plain
            text; posted_by, source: as ``source_of`` made them; memo, detail, cause: as
            ``Transaction``'s; reverses: the original of a reversal;
        patron: ``(Player, cents)`` the patron whose cash this is when no leg is his chips
            (a bank deposit at the cage: cash into a tenure), for the registered checks.
    Returns:
        the Transaction. The ``locked`` accounts' ``balance`` attributes are updated too.
    Raises:
        ValueError: legs that do not balance, or a leg not above zero (``check_legs``).
        PostingRefused: a registered check refused it (the cage's AML rules: a patron's
        gaming day would reach the threshold without his identity on file).
    """
    check_legs(legs)
    posted_at = timezone.now()
    pending = [(check, check.check(kind=kind, legs=legs, posted_by=posted_by, at=posted_at, source=source,
                                   patron=patron)) for check in _checks]
    txn = Transaction(kind=kind, reference=reference[:200], idempotency_key=idempotency_key, posted_by=posted_by,
                      source=source, memo=memo, reverses=reverses, detail=detail or {},
                      cause=cause or {}, posted_at=posted_at)
    moved = deltas(legs)
    previous = getattr(locked, "chain", None)
    if previous is None:
        previous = lock_chain()
    sign(txn, legs, previous)
    _write(txn, legs, moved)
    if isinstance(locked, Locked):
        locked.chain = txn.signature
    for account_id, delta in moved.items():
        locked[account_id].balance += euros(delta)
    for check, found in pending:
        if found:
            check.record(found, transaction=txn, posted_by=posted_by)
    return txn


_WRITE_SQL = """
WITH txn AS (
    INSERT INTO ledger_transaction (kind, reference, idempotency_key, posted_by_id, source, posted_at,
                                    reverses_id, memo, detail, cause, signature, previous_signature, key_id, legs)
    VALUES (%(kind)s, %(reference)s, %(key)s, %(posted_by)s, %(source)s, %(posted_at)s,
            %(reverses)s, %(memo)s, %(detail)s::jsonb, %(cause)s::jsonb, %(signature)s, %(previous)s,
            %(key_id)s, %(legs)s)
    RETURNING id),
head AS (
    UPDATE ledger_chainhead SET signature = %(signature)s, last_id = (SELECT id FROM txn)
     WHERE id = 1 AND signature = %(previous)s
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
SELECT (SELECT id FROM txn), (SELECT count(*) FROM head)"""


def _write(txn, legs, moved):
    """Insert the transaction (signed), its entries, the balance changes and the chain's
    new head in one statement (one round trip; ``_WRITE_SQL``, a bypass of the ORM's: see
    ``benchmarks/console.py``); sets ``txn.id``.

    Raises:
        RuntimeError: the chain's head is no longer the signature ``txn`` was chained to."""
    with connection.cursor() as cursor:
        cursor.execute(_WRITE_SQL, {
            "signature": txn.signature, "previous": txn.previous_signature, "key_id": txn.key_id,
            "legs": txn.legs, "kind": txn.kind, "reference": txn.reference, "key": txn.idempotency_key,
            "posted_by": txn.posted_by_id, "source": txn.source, "posted_at": txn.posted_at,
            "reverses": txn.reverses_id, "memo": txn.memo,
            "detail": json.dumps(txn.detail, ensure_ascii=False), "cause": json.dumps(txn.cause, ensure_ascii=False),
            "accounts": [account_id for account_id, _s, _a in legs], "sides": [str(side) for _i, side, _a in legs],
            "amounts": [euros(amount) for _i, _s, amount in legs],
            "delta_accounts": list(moved), "deltas": [euros(delta) for delta in moved.values()]})
        txn.id, moved_head = cursor.fetchone()
    if moved_head != 1:
        raise RuntimeError(f"the ledger's chain head moved since it was read: transaction {txn.idempotency_key} "
                           "would fork the chain")
    txn._state.adding = False
    txn._state.db = connection.alias


# ---------------------------------------------------------------------------------------
# Idempotency keys


def constraint_of(error: IntegrityError) -> str:
    """The name of the constraint an ``IntegrityError`` broke (or its text)."""
    cause = error.__cause__
    diag = getattr(cause, "diag", None)
    return getattr(diag, "constraint_name", None) or str(cause or error)


@contextmanager
def refuse_second_posting(idempotency_key: str):
    """Turn the unique idempotency key's violation (a concurrent twin that committed
    first) into ``AlreadyPosted``."""
    try:
        yield
    except IntegrityError as error:
        if IDEMPOTENCY_CONSTRAINT in constraint_of(error):
            raise already_posted(idempotency_key) from error
        raise


def already_posted(idempotency_key: str, transaction_id: int | None = None) -> AlreadyPosted:
    """The ``AlreadyPosted`` refusal for a key (its transaction's id read if not given)."""
    if transaction_id is None:
        transaction_id = (Transaction.objects.filter(idempotency_key=idempotency_key)
                          .values_list("id", flat=True).first())
    return AlreadyPosted(_("already posted: transaction #%(id)s has the key %(key)s"),
                         params={"id": transaction_id, "key": idempotency_key},
                         idempotency_key=idempotency_key, transaction_id=transaction_id)


def check_new_key(idempotency_key: str) -> None:
    """Raise ``AlreadyPosted`` if a transaction has the key already."""
    existing = Transaction.objects.filter(idempotency_key=idempotency_key).values_list("id", flat=True).first()
    if existing is not None:
        raise already_posted(idempotency_key, existing)


# ---------------------------------------------------------------------------------------
# Reversal


def reverse(*, transaction: Transaction, reason: str, posted_by, source: str = "", void: dict | None = None,
            closed_legs=None) -> Transaction:
    """Correct a mistake: post the mirror of ``transaction`` (every debit a credit and
    back), linked both ways (``reversal.reverses == transaction``,
    ``transaction.reversal == reversal``).

    Args:
        transaction: the posted Transaction to reverse.
        reason: why, in words (kept as the reversal's memo); required.
        posted_by: the staff user (or None for the system).
        void: ``{"table", "table_id", "number"}`` of the hand whose void this is, kept in
            the reversal's ``cause`` (``ledger.references``).
        closed_legs: for a transaction that touches an account closed since (a bank
            tenure whose balance was distributed to its syndicate), a function
            ``(legs, closed account ids) -> (legs, moved)``: the legs with those on the
            closed accounts replaced (by the tables: ``tables.bank.through_distribution``),
            and what it did (kept in the reversal's ``cause`` as ``through_distribution``).
            Without it such a transaction is refused.
    Returns:
        Transaction of kind ``reversal``.
    Raises:
        AlreadyReversed: it was reversed already (once only, also backed by a unique key).
        NotReversible: it is itself a reversal, or it touches a closed account and no
        ``closed_legs`` is given.
        InsufficientChips: it would take back from a player more chips than he holds, less
        what he has at risk in open hands (winnings cashed out since).
        ValueError: an empty reason.
    [TigerBeetle's rule: a posted transfer is never changed; a correction is a new one]
    """
    reason = (reason or "").strip()
    if not reason:
        raise ValueError("a reversal needs a reason")
    source = source_of(posted_by, source, "reversal")
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
                if closed_legs is None:
                    raise NotReversible(_("transaction #%(id)s touches a closed bank tenure: its balance was "
                                          "already distributed"), params={"id": original.pk})
                legs, moved = closed_legs(legs, closed_ids)
            locked = lock(account_id for account_id, _s, _a in legs)
            if any(not account.is_open for account in locked.values()):
                raise NotReversible(_("transaction #%(id)s touches a closed bank tenure: its balance was "
                                      "already distributed"), params={"id": original.pk})
            refuse_chips_below_risk(locked=locked, legs=legs, params={"id": original.pk}, message=_(
                "the reversal of transaction #%(id)s takes back %(amount)s from %(player)s, who holds %(balance)s "
                "in chips, %(in_play)s of them at risk in open hands: his chips would go below zero"))
            cause = {"kind": "reversal", "of": original.pk, "original": original.cause or {},
                     **({"void": void} if void else {}), **({"through_distribution": moved} if moved else {})}
            return post(locked=locked, kind=KIND.REVERSAL, legs=legs, idempotency_key=key,
                        reference=f"reversal of #{original.pk}: {original.reference}",
                        posted_by=posted_by, source=source, memo=reason, reverses=original, cause=cause)
    except IntegrityError as error:
        constraint = constraint_of(error)
        if IDEMPOTENCY_CONSTRAINT in constraint or "reverses" in constraint:
            raise AlreadyReversed(_("transaction #%(id)s was already reversed"),
                                  params={"id": transaction.pk}) from error
        raise


__all__ = [
    "CREDIT", "DEBIT", "KIND", "LockedAccount", "already_posted", "amount_cents", "batch_checks", "check_legs",
    "check_new_key", "chips_at_risk", "constraint_of", "deltas", "Locked", "lock", "lock_chain", "player_accounts", "post",
    "refusals_recorded", "refuse_chips_below_risk", "refuse_second_posting", "register_check",
    "register_chips_at_risk", "reverse", "singleton_account", "source_of",
]
