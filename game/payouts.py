"""The payouts of a finished hand: every bet's result, the bank's, the house commission.

Pure Python (no Django): the ledger's posting, ``manage.py settle``, the API's dry run and
the audit replay all settle through ``settle``. Money is integer cents; points are
integer half-points (7½ = 15). [rules.md "Settlement of one bet", "The bank passes"]
"""

from decimal import ROUND_FLOOR, Decimal
from typing import Any, Final, NamedTuple

from game.cards import NATURAL, POINTS_TEXT, format_points
from game.errors import IllegalEvent, gettext_noop
from game.hand import CENTS_TEXT, FUSILADO, LOCA_ID, HandState, format_cents

WIN: Final = "win"
NATURAL_RESULT: Final = "natural"
LOSE: Final = "lose"
BUST: Final = "bust"


class Bet(NamedTuple):
    """One settled bet.

    Attributes:
        player: who made the bet (the seat's player, a side bettor, a loca bettor).
        seat: the seat bet on, or ``"loca"``.
        hand: the seat's hand number, from 1 (muerto: 1 the 7 alone, 2 the 7 + card).
        stake: cents staked.
        points: the hand's half-points.
        result: ``win``, ``natural``, ``lose`` or ``bust``.
        multiplier: the whole number k of the rules' table.
        net: cents, ± k × stake; positive, the bank pays the player.
    """

    player: str
    seat: str
    hand: int
    stake: int
    points: int
    result: str
    multiplier: int
    net: int

    def as_dict(self):
        """The bet as ``manage.py settle`` prints it (amounts and points as strings)."""
        return {"player": self.player, "seat": self.seat, "hand": self.hand,
                "stake": format_cents(self.stake), "points": format_points(self.points),
                "result": self.result, "multiplier": self.multiplier, "net": format_cents(self.net)}


class Settlement(NamedTuple):
    """The settlement of one hand; every amount in cents.

    ``players`` (net per player, positive = the bank pays him) + ``bank_net`` +
    ``commission`` sum to zero. ``bank_result`` is the bank's take before commission.
    """

    bets: tuple[Bet, ...]
    players: dict[str, Any]
    bank_player: str
    bank_points: int
    bank_result: int
    commission: int
    bank_net: int
    next_bank: str

    def as_dict(self) -> dict[str, Any]:
        """The settlement as ``manage.py settle`` prints it. [hand-record.md "Settling"]"""
        # format_cents and format_points without a call where the text is at hand (a
        # dozen amounts a hand): CENTS_TEXT, the texts written so far; POINTS_TEXT, 0-63.
        # (Called by name, not through local aliases: compiled, game/build.py, the calls are
        # then direct.)
        return {
            # each bet as Bet.as_dict writes it, unpacked here (six bets a hand on average)
            "bets": [{"player": player, "seat": seat, "hand": hand,
                      "stake": CENTS_TEXT.get(stake) or format_cents(stake),
                      "points": POINTS_TEXT[half] if 0 <= half < 64 else format_points(half),
                      "result": result, "multiplier": k, "net": CENTS_TEXT.get(net) or format_cents(net)}
                     for player, seat, hand, stake, half, result, k, net in self.bets],
            "players": {player: CENTS_TEXT.get(net) or format_cents(net) for player, net in self.players.items()},
            "bank": {"player": self.bank_player, "points": format_points(self.bank_points),
                     "net": format_cents(self.bank_net)},
            "commission": format_cents(self.commission),
            "next_bank": self.next_bank,
        }


def settle(state: HandState) -> "Settlement":
    """Settle a finished hand.

    Args:
        state: a complete ``HandState`` (``state.complete``) with every card identified.
    Returns:
        Settlement.
    Raises:
        IllegalEvent: (event 0) if the hand is not finished or a face-down card is still
        unidentified.
    """
    if not state.complete:
        raise IllegalEvent(0, "unfinished", gettext_noop("the hand is not finished: it cannot be settled yet"))
    if state.allow_unknown and state.identities_owed():
        owner, number = state.identities_owed()[0]
        raise IllegalEvent(0, "identify", gettext_noop("name {owner}'s face-down card (hand {number}) before settling"),
                           owner=owner, number=number)
    profile = state.profile
    bank_points = state.bank.points
    bank_natural = bank_points == NATURAL
    bets: list[Bet] = []
    players: dict[str, Any] = {}
    seen_natural = False
    next_bank = state.bank_player
    passes = profile.bank_passes_on_natural and not bank_natural
    for seat in state.seats:
        player = seat.player
        total = players.get(player, 0)
        first: Any = None
        for hand in seat.hands:
            points = hand.points
            fusilado = hand.kind == FUSILADO
            result, k, sign = _outcome(profile, bank_points, points, fusilado, False, seen_natural)
            if points == NATURAL:
                if not fusilado:
                    seen_natural = True
                if passes:
                    next_bank = player
                    passes = False
            net = sign * k * hand.stake
            bets.append(_bet((player, player, hand.number, hand.stake, points, result, k, net)))
            total += net
            if first is None:
                first = (points, result, k, sign)
        players[player] = total
        if seat.side_bets:
            points, result, k, sign = first
            for bettor, stake in seat.side_bets.items():
                net = sign * k * stake
                bets.append(_bet((bettor, player, 1, stake, points, result, k, net)))
                players[bettor] = players.get(bettor, 0) + net
    if state.loca is not None and state.loca_bets:
        points = state.loca.points
        result, k, sign = _outcome(profile, bank_points, points, False, True, False)
        for bettor, (_initial, stake) in state.loca_bets.items():
            net = sign * k * stake
            bets.append(_bet((bettor, LOCA_ID, 1, stake, points, result, k, net)))
            players[bettor] = players.get(bettor, 0) + net
    bank_result = -sum(players.values())
    commission = 0
    rate = profile.commission_rate
    if bank_result > 0 and rate:
        commission = int((Decimal(bank_result) * rate).to_integral_value(rounding=ROUND_FLOOR))
    return Settlement(tuple(bets), players, state.bank_player, bank_points, bank_result,
                      commission, bank_result - commission, next_bank)




def _bet(fields: tuple[str, str, int, int, int, str, Any, Any]) -> Bet:
    """``Bet(*fields)`` without the Python ``__new__`` a ``NamedTuple`` is made with (the
    same tuple; compiled, setup.py, a call of the class runs that Python code)."""
    return tuple.__new__(Bet, fields)


def _outcome(profile: Any, bank_points: int, points: int, fusilado: bool, loca: bool,
             earlier_natural: bool) -> tuple[str, Any, int]:
    """(result, multiplier, sign) of a hand of ``points`` from the player's side, against
    the bank's ``bank_points`` at a table of ``profile``; ``earlier_natural``: a seat's 7½
    before this hand (``natural_pays_first_only``)."""
    if points > NATURAL:
        return BUST, 1, -1
    if bank_points == NATURAL:
        return LOSE, (profile.bank_natural_vs_natural if points == NATURAL else profile.bank_natural_collects), -1
    if bank_points > NATURAL or bank_points < points:
        if points == NATURAL:
            if fusilado:
                return NATURAL_RESULT, profile.fusilar_pays, 1
            if loca or not (profile.natural_pays_first_only and earlier_natural):
                return NATURAL_RESULT, profile.natural_pays, 1
            return NATURAL_RESULT, 1, 1
        return WIN, 1, 1
    return LOSE, 1, -1


def loss_multiplier(profile):
    """The most a cent staked can lose at a table of ``profile``: 1, or more where the
    bank's 7½ collects more than the stake (``bank_natural_collects``,
    ``bank_natural_vs_natural``). [rules.md "Settlement of one bet"]

    Returns:
        int, at least 1.
    """
    return max(1, profile.bank_natural_collects, profile.bank_natural_vs_natural)


def at_risk(state):
    """What each player may lose at most on the hand as it stands: every cent he staked
    (his seat's hands, muerto's two bets, his side bets on other seats, his bets on la
    loca) times the table's ``loss_multiplier``. A bet is covered when the player's chips
    on record, less what he has at risk in every open hand, pay for it.

    Args:
        state: a ``HandState`` (finished or not).
    Returns:
        ``{player id: cents}`` of every player with a stake (the bank's holder is not one).
    """
    staked = {}
    for seat in state.seats:
        own = sum(hand.stake for hand in seat.hands)
        if own:
            staked[seat.player] = staked.get(seat.player, 0) + own
        for bettor, stake in seat.side_bets.items():
            staked[bettor] = staked.get(bettor, 0) + stake
    for bettor, (_first, stake) in state.loca_bets.items():
        staked[bettor] = staked.get(bettor, 0) + stake
    k = loss_multiplier(state.profile)
    return {player: k * cents for player, cents in staked.items()}
