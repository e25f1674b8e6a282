"""A finished hand's settlement posted to the ledger: one transaction per hand, through
the ledger's door (``ledger.posting``). ``settlement_nets`` and ``settlement_legs`` make
the legs; ``ledger_post_settlement`` posts them at once (the console, the API), the
import in batches (``tables.importing``) with the same legs.
[rules.md "Settlement of one bet": the house takes its commission hand by hand]
"""

from collections import defaultdict

from django.db import connection
from django.db import transaction as db
from django.utils.translation import gettext as _

from ledger import posting
from ledger.errors import TenureError, UnknownPlayer
from ledger.models import Account, Transaction
from ledger.posting import CREDIT, DEBIT, KIND
from patrons.models import Player
from tables.models import BankTenure


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
    source = posting.source_of(posted_by, source, "console" if posted_by is not None else "settlement")
    won, lost = settlement_nets(settlement)
    betting = sorted(set(won) | set(lost))
    need_house = settlement.commission > 0
    with posting.refuse_second_posting(idempotency_key), db.atomic():
        posted, holder, by_code, bank, house, locked = _lock_settlement_accounts(
            codes=betting, tenure_id=tenure.pk, holder_id=tenure.holder_id, house=need_house,
            idempotency_key=idempotency_key)
        if posted is not None:
            raise posting.already_posted(idempotency_key, posted)
        if len(by_code) < len(betting) or bank is None or (need_house and house is None):
            # First hand of a player (no chips account yet): create, then lock.
            holder, by_code, bank, house = create_settlement_accounts(
                codes=betting, tenure=tenure, bank_player=settlement.bank_player, house=need_house)
            locked = posting.lock([*by_code.values(), bank, *([house] if house else [])])
        if holder != settlement.bank_player:
            raise TenureError(_("the hand's bank is %(bank)s, but bank tenure #%(tenure)s is held by another "
                                "player"), params={"bank": settlement.bank_player, "tenure": tenure.pk})
        if not locked[bank].is_open:
            raise TenureError(_("bank tenure #%(tenure)s is closed: post the hand to the open tenure"),
                              params={"tenure": tenure.pk})
        legs = settlement_legs(settlement, won, lost, by_code, bank, house)
        return posting.post(locked=locked, kind=KIND.HAND, legs=legs, idempotency_key=idempotency_key,
                     reference=reference, posted_by=posted_by, source=source,
                            detail=settlement.as_dict(), cause=cause)


def settlement_nets(settlement):
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


def settlement_legs(settlement, won, lost, by_code, bank, house):
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


def create_settlement_accounts(*, codes, tenure, bank_player, house, bank_account=None):
    """The accounts of a hand's posting, the players' chips created if missing (before any
    lock is taken): ``(holder's code or None, {code: account id}, tenure account id, house
    account id or None)``.

    ``bank_account``: the tenure's account id when the caller knows it already (an import's
    batch, whose tenure a 7½ passed in memory is not written yet); else it is read.

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
    accounts = posting.player_accounts(players[code] for code in codes)
    by_code = {code: accounts[players[code]] for code in codes}
    bank = bank_account
    if bank is None:
        bank = BankTenure.objects.filter(pk=tenure.pk).values_list("account_id", flat=True).first()
    if bank is None:
        raise TenureError(_("bank tenure #%(tenure)s has no account"), params={"tenure": tenure.pk})
    house_id = posting.singleton_account(Account.Kind.HOUSE) if house else None
    return holder, by_code, bank, house_id


_LOCK_SETTLEMENT_SQL = """
WITH wanted AS (
    SELECT q.id, c.id AS account_id
      FROM patrons_player q LEFT JOIN ledger_account c ON c.player_id = q.id
     WHERE q.code = ANY(%(codes)s::text[])),
ready AS (
    SELECT (SELECT count(*) FROM wanted) = cardinality(%(codes)s::text[])
           AND NOT EXISTS (SELECT 1 FROM wanted WHERE account_id IS NULL)
           AND (NOT %(house)s OR EXISTS (SELECT 1 FROM ledger_account h WHERE h.kind = 'house')) AS ok),
head AS MATERIALIZED (
    SELECT c.signature FROM ledger_chainhead c WHERE c.id = 1 AND (SELECT ok FROM ready) FOR UPDATE)
SELECT a.id, a.kind, p.code, a.balance, a.is_open,
       (SELECT t.id FROM ledger_transaction t WHERE t.idempotency_key = %(key)s),
       (SELECT h.code FROM patrons_player h WHERE h.id = %(holder)s),
       (SELECT signature FROM head)
  FROM ledger_account a LEFT JOIN patrons_player p ON p.id = a.player_id
 WHERE (SELECT ok FROM ready) AND (SELECT count(*) FROM head) = 1
   AND a.id = ANY(ARRAY(SELECT account_id FROM wanted
                        UNION ALL SELECT t.account_id FROM tables_banktenure t WHERE t.id = %(tenure)s
                        UNION ALL SELECT h.id FROM ledger_account h WHERE %(house)s AND h.kind = 'house'))
 ORDER BY a.id
   FOR NO KEY UPDATE OF a"""
# The ledger's chain head is locked first (ledger.posting.lock_chain), by the gating condition
# evaluated once before the accounts are scanned and locked, and only when every account exists
# (else nothing is locked: the caller creates the accounts, then locks with posting.lock).
# The accounts are found by their indexes (player, tenure, house), then read by id: an
# OR of the three conditions read every account (one more per bank tenure ever opened),
# 117 pages per posting after 10,000 hands at one table; 36 this way, whatever the count.


def _lock_settlement_accounts(*, codes, tenure_id, holder_id, house, idempotency_key):
    """One statement: row-lock the ledger's chain head, then find and row-lock (in
    account-id order) the chips of ``codes``, the tenure's account and the house's, and
    read whether the key was posted, the holder's code and the chain head's signature
    (kept on the ``Locked`` returned, for the posting).

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
                           " (SELECT h.code FROM patrons_player h WHERE h.id = %s)", [idempotency_key, holder_id])
            posted, holder = cursor.fetchone()
            return posted, holder, {}, None, None, {}
    posted, holder = rows[0][5], rows[0][6]
    by_code, bank, house_id, locked = {}, None, None, posting.Locked()
    locked.chain = rows[0][7]
    for account_id, kind, code, balance, is_open, _posted, _holder, _chain in rows:
        locked[account_id] = posting.LockedAccount(account_id, balance, is_open)
        if kind == Account.Kind.PLAYER:
            by_code[code] = account_id
        elif kind == Account.Kind.TENURE:
            bank = account_id
        else:
            house_id = account_id
    return posted, holder, by_code, bank, house_id, locked
