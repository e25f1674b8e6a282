"""Chips at risk in open hands: what a player may still lose on hands not yet settled.

A player's chips on record are his account's balance (``ledger``); what he has staked in
an open hand is only in that hand's entries. A bet, a cash-out, a bank's capital or a
chip transfer is covered when the balance, less what the player has at risk in every
open hand (``game.payouts.at_risk``: each cent staked times the table's loss
multiplier), pays for it.

Reads only (no lock of its own): a writer that must not race a bet holds the player's
chips account row lock, which every bet's check takes too (``lock_chips``).
"""

from django.db import connection

from game.entries import effective_events
from game.hand import HandState
from game.payouts import at_risk
from game.record import replay_as_played
from ledger.money import cents
from tables.locking import hand_entries
from tables.models import Hand

_INVOLVED_SQL = """
SELECT h.id FROM tables_hand h
 WHERE h.status = 'open' AND h.id <> %(exclude)s
   AND (h.seats ?| %(codes)s::text[]
        OR EXISTS (SELECT 1 FROM tables_handevent e
                    WHERE e.hand_id = h.id AND e.event ->> 'player' = ANY(%(codes)s::text[])))"""


def open_hands_at_risk(*, codes, exclude_hand_id=None) -> dict:
    """What each of ``codes`` has at risk in the open hands (all tables), but hand
    ``exclude_hand_id`` (the one being entered, counted by its caller).

    Args:
        codes: player ids; exclude_hand_id: a hand's id, or None.
    Returns:
        ``{player id: cents}``, only players with something at risk.
    """
    codes = sorted(set(codes))
    if not codes:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_INVOLVED_SQL, {"codes": codes, "exclude": exclude_hand_id or 0})
        ids = [row[0] for row in cursor.fetchall()]
    total = {}
    for hand in Hand.objects.filter(pk__in=ids).select_related("bank"):
        for code, risk in hand_at_risk(hand).items():
            if code in codes:
                total[code] = total.get(code, 0) + risk
    return total


def hand_at_risk(hand, entries=None) -> dict:
    """``at_risk`` of one hand's events in force: ``{player id: cents}``.

    Args:
        hand: a Hand (its ``bank`` is read); entries: its ``(kind, event)`` if read.
    """
    def make(profile):
        return HandState(profile, cents(hand.min_bet), cents(hand.max_bet), hand.bank.code, list(hand.seats),
                         allow_unknown=True)

    events = effective_events(hand_entries(hand) if entries is None else entries)
    return at_risk(replay_as_played(hand.rules, make, events)[1])


def lock_chips(codes) -> dict:
    """Row-lock the chips accounts of ``codes`` (``FOR NO KEY UPDATE``, in account-id
    order, the ledger's order) and read their balances, inside the caller's transaction.

    Returns:
        ``{player id: cents}``; a player without an account holds 0 (absent).
    """
    with connection.cursor() as cursor:
        cursor.execute("SELECT p.code, a.balance FROM ledger_account a JOIN patrons_player p ON p.id = a.player_id"
                       " WHERE p.code = ANY(%s::text[]) ORDER BY a.id FOR NO KEY UPDATE OF a", [sorted(set(codes))])
        return {code: cents(balance) for code, balance in cursor.fetchall()}


def chips_at_risk(codes) -> dict:
    """``{code: cents}`` the players have at risk in open hands: the ledger's reader
    (``ledger.posting.register_chips_at_risk``)."""
    return open_hands_at_risk(codes=codes)
