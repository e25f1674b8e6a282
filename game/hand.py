"""The hand state machine: one hand of siete y media, applied one event at a time.

``HandState`` takes the events of ``hand-record.md`` (dicts) through ``apply``. Every
event is checked against the table's ``Profile`` before anything changes: an illegal one
raises ``IllegalEvent`` with its number and the rule broken, and leaves the state as it
was. Between events the state answers what the dealer's console asks: whose turn, which
hand, the cards (face up or down) and points, the stakes, and which actions are legal
now with what limits (``legal()``).

Units: points in integer half-points (7½ = 15), money in integer cents.

For the console, a state made with ``allow_unknown=True`` accepts a face-down card whose
identity the dealer does not see (``"card": None``) and the ``identify`` event that names
it later; a hand settles only when every card is identified.
"""

import re
from typing import Any, Final, NoReturn

from game.cards import (
    CARD_NAME,
    CARD_POINTS,
    CARD_RANK,
    DECK_SPELLINGS,
    DECKS,
    NATURAL,
    SOTA,
    format_points,
    other_deck_card,
)
from game.errors import IllegalEvent, gettext_noop, show
from game.legal import Legal  # (not compiled: its fields are its __slots__)

# Hand status.
PLAYING: Final = "playing"
STOOD: Final = "stood"
BUST: Final = "bust"
# Hand kinds: a seat's hand (split hands included), the fusilado 7, muerto's two bets,
# la loca, the bank.
NORMAL: Final = "normal"
FUSILADO: Final = "fusilado"
MUERTO_SEVEN: Final = "muerto-seven"
MUERTO_CARD: Final = "muerto-card"
LOCA: Final = "loca"
BANK: Final = "bank"
# Phases.
DEAL: Final = "deal"
PLAY: Final = "play"
OVER: Final = "over"

BANK_ID: Final = "bank"
LOCA_ID: Final = "loca"
RESERVED_IDS: Final = frozenset((BANK_ID, LOCA_ID))
MAX_SEATS: Final = 9
MAX_EXCHANGES: Final = 4
#: La loca's calls, made by its responsable. [rules.md "Calls of la loca"; 003]
DOBLA_QUIEN_QUIERA: Final = "dobla_quien_quiera"
DOBLA: Final = "dobla"
SE_PLANTA: Final = "se_planta"
LOCA_CALLS: Final = (DOBLA_QUIEN_QUIERA, DOBLA, SE_PLANTA)

_PLAYER_ID: Final = re.compile(r"[\w.\-]{1,64}\Z")

#: Keys each event may carry. [hand-record.md "Events"]
EVENT_KEYS: Final = {
    "deal": frozenset(("do", "seat", "card")),
    "bet": frozenset(("do", "seat", "amount", "player")),
    "card": frozenset(("do", "seat", "card", "down")),
    "reveal": frozenset(("do", "seat")),
    "stand": frozenset(("do", "seat")),
    "split": frozenset(("do", "seat")),
    "exchange": frozenset(("do", "seat", "card")),
    "fusilar": frozenset(("do", "seat", "card")),
    "muerto": frozenset(("do", "seat", "card", "amount")),
    "loca_call": frozenset(("do", "seat", "call", "responsable")),
    "shuffle": frozenset(("do",)),
}
#: Console-only keys: a revealed card's identity, and ``identify`` of a face-down card.
_UNKNOWN_EVENT_KEYS: Final = dict(EVENT_KEYS, reveal=frozenset(("do", "seat", "card")),
                                  identify=frozenset(("do", "seat", "hand", "card", "natural")))


_valid_ids: Final[dict[object, bool]] = {}


def valid_player_id(value):
    """True if ``value`` may name a player: 1–64 letters, digits, ``_ - .``; not reserved.

    [hand-record.md "Fields": "bank" and "loca" are reserved]
    """
    if type(value) is not str:
        return False
    valid = _valid_ids.get(value)
    if valid is None:
        valid = value not in RESERVED_IDS and _PLAYER_ID.match(value) is not None
        if len(_valid_ids) > 4096:
            _valid_ids.clear()
        _valid_ids[value] = valid
    return valid


_cents_text: Final[dict[object, str]] = {}
#: ``format_cents``'s texts so far, ``{cents: text}``: ``CENTS_TEXT.get(cents) or
#: format_cents(cents)`` is ``format_cents(cents)`` without its call where it was written
#: before (the settlement of a hand writes a dozen amounts).
CENTS_TEXT: Final = _cents_text


def format_cents(cents):
    """Integer cents as a record amount: 1050 -> "10.50", -2000 -> "-20.00"."""
    text = _cents_text.get(cents)
    if text is None:
        if type(cents) is int:
            text = _write_cents(cents)
        else:
            whole, part = divmod(abs(cents), 100)
            text = f"{'-' if cents < 0 else ''}{whole}.{part:02d}"
        if len(_cents_text) > 8192:
            _cents_text.clear()
        _cents_text[cents] = text
    return text


def _write_cents(cents: int) -> str:
    """``format_cents`` of an int, in steps that need no formatting call once compiled (setup.py)."""
    whole, part = divmod(abs(cents), 100)
    return ("-" if cents < 0 else "") + str(whole) + ("." if part > 9 else ".0") + str(part)


#: ASCII digits only: Python's ``\d`` (and ``int``) read a full-width "５" as 5.
_AMOUNT: Final = re.compile(r"([0-9]{1,12})(?:\.([0-9]{1,2}))?\Z")
_amount_cache: Final[dict[object, int]] = {}


def parse_amount(value):
    """Integer cents for a record amount, or None if ``value`` is no amount.

    An amount is a JSON string or integer of a non-negative decimal with at most two
    decimals: ``"5"``, ``"5.00"``, ``"12.50"``, ``7``. A float, a bool or anything else
    is no amount. [hand-record.md "Fields"]
    """
    kind = type(value)
    if kind is str:
        cents = _amount_cache.get(value)
        if cents is None:
            match = _AMOUNT.match(value)
            if match is None:
                return None
            whole, part = match.groups()
            cents = int(whole) * 100 + (int(part.ljust(2, "0")) if part else 0)
            if len(_amount_cache) > 4096:
                _amount_cache.clear()
            _amount_cache[value] = cents
        return cents
    if kind is int and 0 <= value < 10**12:
        return value * 100
    return None


class Hand:
    """One hand on the table: a seat's (or a split of it), la loca's or the bank's.

    Attributes:
        owner: the seat's player id, ``"loca"`` or ``"bank"``.
        number: 1, 2 … in the seat's order of play (muerto: 1 the 7 alone, 2 the 7 + card).
        kind: NORMAL, FUSILADO, MUERTO_SEVEN, MUERTO_CARD, LOCA or BANK.
        cards: card codes in the order received; None for a card not yet identified.
        down: index in ``cards`` of the face-down card, or -1.
        points: half-points of the identified cards.
        unknown: how many cards are not yet identified (0 or 1).
        stake: cents on the hand (seats only; la loca's bets are per bettor).
        status: PLAYING, STOOD or BUST.
    """

    __slots__ = ("owner", "number", "kind", "cards", "slots", "down", "points", "unknown",
                 "stake", "status", "raise_pending", "split_ready", "returned", "acted")

    def __init__(self, owner: str, number: int, kind: str) -> None:
        self.owner = owner
        self.number = number
        self.kind = kind
        self.cards: list[Any] = []  # int codes, None for a card not yet identified
        self.slots: list[int] = []  # instance index of each card, for identification and the shuffle
        self.down = -1
        self.points = 0
        self.unknown = 0
        self.stake = 0
        self.status = PLAYING
        self.raise_pending = False  # a raise not yet followed by a draw
        self.split_ready = False  # a half just drawn onto a lone half (split_pairs: a card of its points)
        self.returned = False  # its cards went back to the stock at a shuffle
        self.acted = False

    @property
    def natural(self) -> bool:
        """Exactly 7½, every card identified."""
        return self.unknown == 0 and self.points == NATURAL

    @property
    def bust(self) -> bool:
        """Over 7½ (a fusilado or muerto hand too, though it stays on the table)."""
        return self.points > NATURAL

    def describe(self):
        """The hand as plain data: cards ("7O", None if unknown) with their face, points."""
        return {
            "number": self.number,
            "kind": self.kind,
            "cards": [{"card": None if c is None else CARD_NAME[c], "down": i == self.down}
                      for i, c in enumerate(self.cards)],
            "points": format_points(self.points),
            "unknown": self.unknown,
            "stake": format_cents(self.stake),
            "status": self.status,
        }


class Seat:
    """A seated player ("punto") and the hands he plays, in order of play."""

    __slots__ = ("player", "position", "hands", "current", "exchanges", "acted", "side_bets")

    def __init__(self, player: str, position: int) -> None:
        self.player = player
        self.position = position
        self.hands = [Hand(player, 1, NORMAL)]
        self.current = 0
        self.exchanges = 0
        self.acted = False  # the seat bet or played: the window for exchanges is closed
        self.side_bets: dict[str, int] = {}  # side bettor -> cents on this seat


class HandState:
    """A hand in play at a table with a given profile, limits, bank holder and seats.

    Args:
        profile: the table's ``Profile``.
        min_bet, max_bet: the table's limits, integer cents.
        bank: the bank holder's player id.
        seats: player ids in order of play (the bank's right first), 1 to 9.
        allow_unknown: accept face-down cards entered as unknown (the dealer's console).
        deck: keyword only, for simulations of a reduced deck (``game.edge``):
            the card codes the stock holds, a non-empty subset of the profile's deck.
            None, as at every table, is the profile's whole deck.
    Raises:
        IllegalEvent: (event 0) if the seats or the limits are not valid.
        ValueError: a ``deck`` that is empty or holds a card the profile's deck does not
            (a programming error: no table passes a deck).
    """

    def __init__(self, profile: Any, min_bet: Any, max_bet: Any, bank: Any, seats: Any,
                 allow_unknown: Any = False, *, deck: Any = None) -> None:
        if not valid_player_id(bank):
            raise IllegalEvent(0, "player", gettext_noop("the bank holder {player} is not a valid player id"),
                               player=show(bank))
        if type(seats) not in (list, tuple) or not 1 <= len(seats) <= MAX_SEATS:
            raise IllegalEvent(0, "seats", gettext_noop("seats must list 1 to 9 players in order of play"))
        for player in seats:
            if not valid_player_id(player):
                raise IllegalEvent(0, "player", gettext_noop("seat {player} is not a valid player id"),
                                   player=show(player))
            if player == bank:
                raise IllegalEvent(0, "seats", gettext_noop("the bank holder {player} cannot also hold a seat"),
                                   player=player)
        if len(set(seats)) != len(seats):
            raise IllegalEvent(0, "seats", gettext_noop("a player is seated twice"))
        if not (0 <= min_bet <= max_bet and max_bet > 0):
            raise IllegalEvent(0, "limits", gettext_noop("the limits must satisfy 0 <= min_bet <= max_bet and max_bet > 0"))
        if profile.fixed_stake and min_bet == 0:
            raise IllegalEvent(0, "fixed_stake", gettext_noop("with a fixed stake, min_bet is the stake and must be above zero"))
        self.profile = profile
        self.min_bet = min_bet
        self.max_bet = max_bet
        self.bank_player = bank
        self.allow_unknown = allow_unknown
        self.seats = [Seat(player, i) for i, player in enumerate(seats)]
        self._seat = {seat.player: seat for seat in self.seats}
        self.bank = Hand(BANK_ID, 1, BANK)
        self.loca: Hand | Any = Hand(LOCA_ID, 1, LOCA) if profile.loca else None
        self.loca_bets: dict[str, list[int]] = {}  # bettor -> [first stake (bets before its turn), total stake]
        # La loca's calls (loca_calls): its responsable once named, the calls made, whether
        # "dobla quien quiera" is open (until its next card or stand), whether it "dobla".
        self.loca_responsable: str | Any = None
        self.loca_calls_made = 0
        self.loca_window = False
        self.loca_doubled = False
        self.order: list[str] = [*seats, *((LOCA_ID,) if profile.loca else ()), BANK_ID]
        # Who plays at each turn: a Seat, or la loca's and the bank's Hand.
        self._actors: list[Seat | Hand] = [*self.seats, *((self.loca,) if self.loca else ()), self.bank]
        self.turn = 0
        self.phase = DEAL
        self._undealt = set(self.order)
        self.n = 0  # events applied
        self.deck: frozenset[int] = DECKS[profile.deck]
        self._spellings: dict[str, int] = DECK_SPELLINGS[profile.deck]
        if deck is not None:
            deck = frozenset(deck)
            if not deck or not deck <= self.deck:
                raise ValueError("deck: a reduced deck holds some of the profile's cards and nothing else")
            self.deck = deck
        self._deck_size = len(self.deck)
        self.live: dict[int, int] = {}  # identified card out of the stock -> event that dealt it
        self.live_count = 0  # cards out of the stock, identified or not
        # Where cards may be identified late, each card out has an instance [code or None,
        # event dealt, event returned or None] for checking the identity against history.
        self.instances: list[list[Any]] | Any = [] if allow_unknown else None
        self.announced = False  # a seat made 7½ or fusiló (bank_chases_natural)
        self.bank_acted = False
        self._events: dict[str, tuple[frozenset[str], Any]] = _CONSOLE_DISPATCH if allow_unknown else _RECORD_DISPATCH
        self._max_hands: int | Any = profile.max_hands_for(len(seats))
        self._mandatory_exchange: bool = profile.exchange_fours == "mandatory"
        cap = profile.one_card_stand_max
        #: The most a seat's hand may carry to stand on one card, cents, or None (no cap).
        self.one_card_cap: int | Any = None if cap is None else cap * min_bet
        # A pair over 7½ just drawn (split_pairs): it is bust, and stays so unless the next
        # event is its split. (seat, hand, turn, the seat's current hand) or None.
        self._pair_over: tuple[Seat, Hand, int, int] | Any = None

    # ------------------------------------------------------------------ queries

    @property
    def actor(self) -> Any:
        """Whose turn: a seat's player id, ``"loca"``, ``"bank"``, or None (deal or over)."""
        if self.phase != PLAY:
            return None
        return self.order[self.turn]

    def seat(self, player):
        """The ``Seat`` of a seated player, or None."""
        return self._seat.get(player)

    def current_hand(self):
        """The hand in play now (a seat's current hand, la loca, the bank), or None."""
        who = self.actor
        if who is None:
            return None
        if who == BANK_ID:
            return self.bank
        if who == LOCA_ID:
            return self.loca
        seat = self._seat[who]
        return seat.hands[seat.current]

    def hands(self):
        """Every seat hand in order of play (seat order, then each seat's hands)."""
        return [hand for seat in self.seats for hand in seat.hands]

    @property
    def over(self) -> bool:
        """No further event is possible: every hand, the bank's included, is finished."""
        return self.phase == OVER

    @property
    def complete(self) -> bool:
        """The record may end here: every hand is finished, or only the bank is left to
        play and nothing with a stake is left standing, so it need not play.
        [rules.md "The bank's turn"; hand-record.md: a record ends when every hand is finished]
        """
        if self.phase == OVER:
            return True
        return (self.phase == PLAY and self.order[self.turn] == BANK_ID
                and not self.bank_acted and not self.anything_standing())

    def anything_standing(self) -> bool:
        """Is any hand with a stake left standing (a seat's hand not bust, or la loca with
        bets and not bust)? Fusilado and muerto hands count as standing: their card is
        face down. [rules.md "The bank's turn"]"""
        for seat in self.seats:
            for hand in seat.hands:
                if hand.status != BUST:
                    return True
        loca = self.loca
        return loca is not None and bool(self.loca_bets) and loca.status != BUST

    @property
    def loca_turn_begun(self) -> bool:
        """La loca's turn has begun: the last seat's turn is over and the bank said "va la
        loca". From then on nobody new bets on it and each bettor may only add to his
        stake, up to twice his first one. [rules.md "La loca and bets on other hands"; 003]
        """
        return self.phase is not DEAL and self.turn >= len(self.seats)

    @property
    def pair_split(self) -> Any:
        """``(player, hand number)`` of the pair over 7½ just drawn that the next event
        may still split (``split_pairs``, within ``max_hands``), or None. The hand is bust
        meanwhile, the turn already past it. [rules.md "Split of equal cards"]"""
        pair_over = self._pair_over
        if pair_over is None or not self._room_to_split(pair_over[0]):
            return None
        return pair_over[0].player, pair_over[1].number

    def bank_limit(self):
        """The points below which the bank must draw now (half-points), or None.

        With ``bank_chases_natural`` after a seat announced 7½ it is 7½; otherwise
        ``bank_draws_below``. [rules.md "The bank's turn"]
        """
        if self.profile.bank_chases_natural and self.announced:
            return NATURAL
        return self.profile.bank_draws_below

    def identities_owed(self):
        """``(owner, hand number)`` of each hand holding a card not yet identified."""
        owed = [(hand.owner, hand.number) for hand in self.hands() if hand.unknown]
        for hand in (self.loca, self.bank):
            if hand is not None and hand.unknown:
                owed.append((hand.owner, hand.number))
        return owed

    # ------------------------------------------------------------------ applying

    def apply(self, ev):
        """Apply one event (a dict as in ``hand-record.md``); nothing changes if it is illegal.

        Raises:
            IllegalEvent: with this event's number (``self.n + 1``) and the rule broken.
        """
        n = self.n + 1
        try:
            do = ev["do"]
            allowed, handler = self._events[do]
        except (KeyError, TypeError):  # no "do", an unknown or unhashable one, or no object
            if type(ev) is not dict:
                raise IllegalEvent(n, "event", gettext_noop("an event must be an object with do and seat")) from None
            raise IllegalEvent(n, "event", gettext_noop("unknown event {do}"), do=show(ev.get("do"))) from None
        if type(ev) is not dict:
            raise IllegalEvent(n, "event", gettext_noop("an event must be an object with do and seat"))
        if not allowed.issuperset(ev):
            key = next(k for k in ev if k not in allowed)
            raise IllegalEvent(n, "event", gettext_noop("a {do} event has no {key}"), do=do, key=show(key))
        phase = self.phase
        if phase is not PLAY:
            if phase is OVER and do != "identify":  # the showdown names face-down cards
                raise IllegalEvent(n, "over", gettext_noop("the hand is over: every hand and the bank are finished"))
            if phase is DEAL and do != "deal":
                raise IllegalEvent(n, "deal", gettext_noop("all initial cards are dealt first; still to deal: {who}"),
                                   who=", ".join(w for w in self.order if w in self._undealt))
        who = ev.get("seat")
        if type(who) is not str and do != "shuffle":
            raise IllegalEvent(n, "event", gettext_noop("the event must name its seat (a seated player, bank or loca)"))
        pair_over = self._pair_over
        handler(self, ev, n, who)
        if pair_over is not None and self._pair_over is pair_over:
            self._pair_over = None  # the next event was not its split: the pair stays bust
        self.n = n

    def play(self, events: Any) -> None:
        """Apply ``events`` in order, exactly as ``apply`` one by one (the loop of a hand
        record): the common case in this loop, anything else through ``apply`` itself, so
        that every refusal is ``apply``'s.

        Args:
            events: an iterable of event dicts (``hand-record.md``).
        Raises:
            IllegalEvent: as ``apply``, for the first illegal event; the events before it
                stay applied.
        """
        dispatch = self._events
        for ev in events:
            try:
                do = ev["do"]
                allowed, handler = dispatch[do]
            except (KeyError, TypeError):
                allowed = None
            if (allowed is None or type(ev) is not dict or not _keys_within(ev, allowed)
                    or (self.phase is not PLAY and (self.phase is not DEAL or do != "deal"))):
                self.apply(ev)
                continue
            who = ev.get("seat")
            if type(who) is not str:
                self.apply(ev)
                continue
            n = self.n + 1
            pair_over = self._pair_over
            handler(self, ev, n, who)
            if pair_over is not None and self._pair_over is pair_over:
                self._pair_over = None
            self.n = n

    def _deal(self, ev: dict[str, Any], n: int, who: str):
        if self.phase is not DEAL:
            raise IllegalEvent(n, "deal", gettext_noop("the initial deal is over; {who} cannot get another initial card"), who=who)
        if who == BANK_ID:
            hand = self.bank
        elif who == LOCA_ID:
            if self.loca is None:
                raise IllegalEvent(n, "loca", gettext_noop("la loca is not played at this table"))
            hand = self.loca
        else:
            seat = self._seat.get(who)
            if seat is None:
                raise IllegalEvent(n, "seat", gettext_noop("{who} is not seated at this table"), who=who)
            hand = seat.hands[0]
        if who not in self._undealt:
            raise IllegalEvent(n, "deal", gettext_noop("{who} already has an initial card"), who=who)
        face_up = self.profile.face_up and who != BANK_ID
        code = self._card(ev.get("card"), n, not face_up)
        self._add(hand, code, n, not face_up)
        self._undealt.discard(who)
        if not self._undealt:
            self.phase = PLAY
            self._advance()

    # A hand record's deal, a seat's bet and a seat's card (every card named, no console):
    # the common case inline, anything else (and every refusal) through _deal, _bet and
    # _card_event, which make the same checks in the same order. [_RECORD_HANDLERS]

    def _record_deal(self, ev: dict[str, Any], n: int, who: str):
        """``_deal`` of a hand record: a named card of the deck still in the stock to one
        still waiting for it, inline."""
        value = ev.get("card")
        undealt = self._undealt
        code = self._spellings.get(value) if type(value) is str else None
        if (self.phase is not DEAL or who not in undealt or code is None or code not in self.deck
                or code in self.live):
            return self._deal(ev, n, who)
        seat = self._seat.get(who)
        hand: Hand = seat.hands[0] if seat is not None else self.bank if who == BANK_ID else self.loca
        cards = hand.cards
        if not self.profile.face_up or who == BANK_ID:
            hand.down = len(cards)
        cards.append(code)
        self.live_count += 1
        self.live[code] = n
        hand.points += CARD_POINTS[code]
        undealt.discard(who)
        if not undealt:
            self.phase = PLAY
            self._advance()

    def _record_bet(self, ev: dict[str, Any], n: int, who: str):
        """``_bet`` of a hand record: a seat's own bet, in turn, of an amount read before
        (``_amount_cache``) within its limits, inline."""
        amount = ev.get("amount")
        cents = _amount_cache.get(amount) if type(amount) is str else None
        seat = self._seat.get(who)
        if (not cents or seat is None or ev.get("player") is not None or self.order[self.turn] != who
                or self._mandatory_exchange):
            return self._bet(ev, n, who)
        hand = seat.hands[seat.current]
        stake = hand.stake
        if stake == 0:  # (as _bet_range)
            if self.profile.fixed_stake:
                low = high = self.min_bet
            else:
                low, high = max(self.min_bet, 1), self.max_bet
        elif self.profile.fixed_stake or stake >= self.max_bet:
            return self._bet(ev, n, who)
        else:
            low, high = 1, self.max_bet - stake
        if not low <= cents <= high:
            return self._bet(ev, n, who)
        if stake:
            hand.raise_pending = True
        hand.stake = stake + cents
        hand.split_ready = False
        seat.acted = True

    def _record_card(self, ev: dict[str, Any], n: int, who: str):
        """``_card_event`` of a hand record: a seat's card, in turn, named, of the deck
        and in the stock, inline."""
        down = ev.get("down", False)
        value = ev.get("card")
        seat = self._seat.get(who)
        if (seat is None or (down is not False and down is not True) or self.order[self.turn] != who
                or type(value) is not str or self._mandatory_exchange):
            return self._card_event(ev, n, who)
        hand = seat.hands[seat.current]
        code = self._spellings.get(value)
        live = self.live
        if (hand.stake == 0 or self.live_count >= self._deck_size or code is None or code not in self.deck
                or code in live or down and (self.profile.face_up or hand.down >= 0)):
            return self._card_event(ev, n, who)
        cards = hand.cards
        if down:
            hand.down = len(cards)
        cards.append(code)
        self.live_count += 1
        live[code] = n
        points = hand.points + CARD_POINTS[code]
        hand.points = points
        hand.raise_pending = False
        hand.acted = True
        seat.acted = True
        split = hand.split_ready = (len(cards) == 2 and hand.kind == NORMAL
                                    and CARD_POINTS[cards[0]] == CARD_POINTS[code]
                                    and (CARD_POINTS[code] == 1 or self.profile.split_pairs))
        if points >= NATURAL:
            if split:
                self._pair_over = (seat, hand, self.turn, seat.current)
            self._settle_points(hand)

    def _bet(self, ev: dict[str, Any], n: int, who: str):
        amount = ev.get("amount")
        cents = _amount_cache.get(amount) if type(amount) is str else None
        if cents is None:
            cents = parse_amount(amount)
        if cents is None:
            raise IllegalEvent(n, "amount", gettext_noop('a bet needs an amount: a string like "12.50" or a whole number, not {value}'),
                               value=show(ev.get("amount")))
        if cents == 0:
            raise IllegalEvent(n, "amount", gettext_noop("every bet is above zero"))
        player = ev.get("player")
        if who == BANK_ID:
            raise IllegalEvent(n, "bet", gettext_noop("the bank does not bet"))
        if player is not None:
            self._check_bettor(player, n)
            if who == LOCA_ID:
                self._bet_loca(player, cents, n)
            else:
                self._bet_side(who, player, cents, n)
            return
        if who == LOCA_ID:
            raise IllegalEvent(n, "loca", gettext_noop("a bet on la loca names the player who makes it"))
        seat, hand = self._seat_turn(who, n, "bet")
        low, high = self._bet_range(hand, n)
        if not low <= cents <= high:
            if self.profile.fixed_stake:
                raise IllegalEvent(n, "fixed_stake", gettext_noop("the stake is fixed at {amount} at this table, not {bet}"),
                                   amount=format_cents(self.min_bet), bet=format_cents(cents))
            if hand.stake == 0 and cents < low:
                raise IllegalEvent(n, "min_bet", gettext_noop("the first bet on a hand is at least {amount}, not {bet}"),
                                   amount=format_cents(low), bet=format_cents(cents))
            if hand.stake == 0:
                raise IllegalEvent(n, "max_bet", gettext_noop("a hand's stake may not exceed {amount}, not {bet}"),
                                   amount=format_cents(self.max_bet), bet=format_cents(cents))
            raise IllegalEvent(n, "max_bet", gettext_noop("a hand's stake may not exceed {amount}; {bet} more would make {total}"),
                               amount=format_cents(self.max_bet), bet=format_cents(cents),
                               total=format_cents(hand.stake + cents))
        if hand.stake:
            hand.raise_pending = True
        hand.stake += cents
        hand.split_ready = False
        seat.acted = True

    def _bet_side(self, who, player, cents, n):
        if not self.profile.side_bets:
            raise IllegalEvent(n, "side_bets", gettext_noop("side bets on another seat's hand are not allowed at this table"))
        seat = self._seat.get(who)
        if seat is None:
            raise IllegalEvent(n, "seat", gettext_noop("{who} is not seated at this table"), who=who)
        if player == who:
            raise IllegalEvent(n, "side_bets", gettext_noop("{who} bets on his own hand without naming a player"), who=who)
        if seat.hands[0].status != PLAYING:
            raise IllegalEvent(n, "side_bets", gettext_noop("side bets on {who} closed when its first hand finished"), who=who)
        before = seat.side_bets.get(player, 0)
        if before == 0 and cents < self.min_bet:
            raise IllegalEvent(n, "min_bet", gettext_noop("a first side bet is at least {amount}, not {bet}"),
                               amount=format_cents(self.min_bet), bet=format_cents(cents))
        if before + cents > self.max_bet:
            raise IllegalEvent(n, "max_bet", gettext_noop("{player}'s side bets on {who} may not exceed {amount} in total"),
                               player=player, who=who, amount=format_cents(self.max_bet))
        seat.side_bets[player] = before + cents

    def _bet_loca(self, player, cents, n):
        loca = self.loca
        if loca is None:
            raise IllegalEvent(n, "loca", gettext_noop("la loca is not played at this table"))
        if loca.status != PLAYING:
            raise IllegalEvent(n, "loca", gettext_noop("la loca has finished playing; no more bets on it"))
        stakes = self.loca_bets.get(player)
        if not self.loca_turn_begun:  # a bettor's bets until "va la loca" are his first stake
            if stakes is None:
                self.loca_bets[player] = [cents, cents]
            else:
                stakes[0] += cents
                stakes[1] += cents
            return
        if stakes is None:
            raise IllegalEvent(n, "loca", gettext_noop("bets on la loca closed when its turn began (va la loca); {player} had no bet on it"),
                               player=player)
        if self.profile.loca_calls and not self.loca_window:
            raise IllegalEvent(n, "loca_calls", gettext_noop("once la loca's turn has begun, its bettors add to their stakes only after its responsable calls dobla quien quiera, until its next card or stand"))
        if stakes[1] + cents > 2 * stakes[0]:
            raise IllegalEvent(n, "loca", gettext_noop("once la loca's turn has begun, {player} may only add up to twice his first stake, {amount} in all; {bet} more would make {total}"),
                               player=player, amount=format_cents(2 * stakes[0]), bet=format_cents(cents),
                               total=format_cents(stakes[1] + cents))
        stakes[1] += cents

    def _card_event(self, ev: dict[str, Any], n: int, who: str):
        down = ev.get("down", False)
        if down is not False and type(down) is not bool:
            raise IllegalEvent(n, "card", gettext_noop("down must be true or false"))
        if self.order[self.turn] != who:
            self._out_of_turn(who, n)
        seat = self._seat.get(who)  # (as _turn_hand, inline: a record's most frequent event)
        hand: Hand = seat.hands[seat.current] if seat is not None else self.bank if who == BANK_ID else self.loca
        self._check_draw(hand, seat, n)
        if down:
            self._check_down(hand, n)
        code = self._card(ev.get("card"), n, down)
        self._add(hand, code, n, down)
        hand.raise_pending = False
        hand.acted = True
        if seat is not None:
            seat.acted = True
            cards = hand.cards
            hand.split_ready = (len(cards) == 2 and hand.kind == NORMAL and cards[0] is not None
                                and cards[1] is not None and CARD_POINTS[cards[0]] == CARD_POINTS[cards[1]]
                                and (CARD_POINTS[cards[0]] == 1 or self.profile.split_pairs))
        elif hand.kind == BANK:
            self.bank_acted = True
        else:
            self.loca_window = False  # "dobla quien quiera" lasts until la loca's next card
        if hand.points >= NATURAL:
            if hand.split_ready:
                # A pair over 7½ is judged after the choice to split it: bust unless the
                # next event is its split. [rules.md "Split of equal cards"]
                self._pair_over = (seat, hand, self.turn, seat.current)  # type: ignore[union-attr]
            self._settle_points(hand)

    def _reveal(self, ev, n, who):
        hand, seat = self._turn_hand(who, n)
        if hand.kind == LOCA and self.loca_doubled:
            self._refuse_after_dobla(n)
        if hand.down < 0:
            raise IllegalEvent(n, "reveal", gettext_noop("{who} has no face-down card to turn up"), who=who)
        position = hand.down
        named = ev.get("card")
        if hand.cards[position] is None:
            if named is None:
                raise IllegalEvent(n, "reveal", gettext_noop("name the card {who} turns up"), who=who)
            code = self._card(named, n, False)
            self._check_identity(hand, position, code, n)
            self._identify(hand, position, code)
        elif named is not None and self._card(named, n, False) != hand.cards[position]:
            raise IllegalEvent(n, "reveal", gettext_noop("{who}'s face-down card is {card}"),
                               who=who, card=CARD_NAME[hand.cards[position]])
        hand.down = -1
        hand.split_ready = False
        hand.acted = True
        if hand.kind == BANK:
            self.bank_acted = True
        self._settle_points(hand)

    def _stand(self, ev: dict[str, Any], n: int, who: str) -> None:
        if self.order[self.turn] != who:
            self._out_of_turn(who, n)
        seat = self._seat.get(who)  # (as _turn_hand, inline)
        hand: Hand = seat.hands[seat.current] if seat is not None else self.bank if who == BANK_ID else self.loca
        self._check_stand(hand, seat, n)
        self._stands(hand, seat)

    def _stands(self, hand: Hand, seat: Seat | None) -> None:
        hand.status = STOOD
        hand.acted = True
        if seat is not None:
            seat.acted = True
        elif hand.kind == BANK:
            self.bank_acted = True
        else:
            self.loca_window = False
        self._advance()

    def _loca_call(self, ev, n, who):
        """A call of la loca by its responsable (``loca_calls``): ``dobla_quien_quiera``
        opens the bettors' raises until its next card or stand, ``dobla`` (its first action
        only) doubles every stake to twice the first and leaves it a stand, ``se_planta``
        stands. [rules.md "Calls of la loca"; seed 003]"""
        if not self.profile.loca_calls:
            raise IllegalEvent(n, "loca_calls", gettext_noop("la loca's calls are not made at this table"))
        if who != LOCA_ID:
            raise IllegalEvent(n, "loca_calls", gettext_noop("a call of la loca is made for seat loca, not {who}"), who=show(who))
        hand, _none = self._turn_hand(who, n)
        call = ev.get("call")
        if type(call) is not str or call not in LOCA_CALLS:
            raise IllegalEvent(n, "loca_calls", gettext_noop("la loca's call is dobla_quien_quiera, dobla or se_planta, not {value}"),
                               value=show(call))
        responsable = ev.get("responsable")
        if type(responsable) is not str or responsable not in self.loca_bets:
            raise IllegalEvent(n, "loca_calls", gettext_noop("la loca's responsable is one of its bettors ({bettors}), not {player}"),
                               bettors=", ".join(self.loca_bets) or "-", player=show(responsable))
        if self.loca_responsable is not None and responsable != self.loca_responsable:
            raise IllegalEvent(n, "loca_calls", gettext_noop("{player} is la loca's responsable in this hand: he makes every call, not {other}"),
                               player=self.loca_responsable, other=responsable)
        if call == DOBLA:
            if self.loca_calls_made or len(hand.cards) > 1:
                raise IllegalEvent(n, "loca_calls", gettext_noop("la loca dobla only as its first action, before any card or call"))
        elif call == DOBLA_QUIEN_QUIERA and self.loca_doubled:
            self._refuse_after_dobla(n)
        self.loca_responsable = responsable
        self.loca_calls_made += 1
        if call == DOBLA:
            for stakes in self.loca_bets.values():
                stakes[1] = 2 * stakes[0]
            self.loca_doubled = True
        elif call == DOBLA_QUIEN_QUIERA:
            self.loca_window = True
        else:
            self._stands(hand, None)

    def _refuse_after_dobla(self, n: int) -> NoReturn:
        raise IllegalEvent(n, "loca_calls", gettext_noop("la loca dobla: its next action is a stand"))

    def _split(self, ev, n, who):
        pair_over = self._pair_over
        if pair_over is not None and pair_over[0].player == who:
            # The pair over 7½ just drawn is split: its bust is undone, its turn resumes.
            seat, hand, turn, current = pair_over
            self._check_split(seat, hand, n)
            self.turn, seat.current = turn, current
            hand.status = PLAYING
            self._pair_over = None
        else:
            seat, hand = self._seat_turn(who, n, "split")
            self._check_split(seat, hand, n)
        code = hand.cards.pop()
        hand.points -= CARD_POINTS[code]
        new = Hand(seat.player, len(seat.hands) + 1, NORMAL)
        new.cards.append(code)
        if self.instances is not None:
            new.slots.append(hand.slots.pop())
        new.points = CARD_POINTS[code]
        if hand.down == 1:
            hand.down = -1
            new.down = 0
        seat.hands.append(new)
        hand.split_ready = False

    def _exchange(self, ev, n, who):
        seat, hand = self._seat_turn(who, n, "exchange")
        self._check_exchange(seat, hand, n)
        # The returned 4 goes back into the stock first: it may be dealt again.
        four, dealt = hand.cards[0], self.live[hand.cards[0]]
        self._return(hand, 0, n)
        face_up = self.profile.face_up
        try:
            code = self._card(ev.get("card"), n, not face_up)
        except IllegalEvent:
            if self.instances is not None:
                self.instances[hand.slots[0]][2] = None
            self.live_count += 1
            self.live[four] = dealt
            raise
        hand.cards.clear()
        hand.slots.clear()
        hand.points = 0
        hand.down = -1
        self._add(hand, code, n, not face_up)
        seat.exchanges += 1

    def _fusilar(self, ev, n, who):
        seat, hand = self._seat_turn(who, n, "fusilar")
        self._check_fusilar(seat, hand, n)
        code = self._card(ev.get("card"), n, True)
        self._add(hand, code, n, False)
        hand.down = 1
        hand.kind = FUSILADO
        hand.status = STOOD
        hand.raise_pending = False
        seat.acted = True
        self.announced = True
        self._advance()

    def _muerto(self, ev, n, who):
        seat, hand = self._seat_turn(who, n, "muerto")
        self._check_muerto(seat, hand, n)
        cents = parse_amount(ev.get("amount"))
        if cents is None or not max(self.min_bet, 1) <= cents <= self.max_bet:
            raise IllegalEvent(n, "muerto", gettext_noop("muerto: the stake on the 7 plus its card is from {low} to {high}, not {value}"),
                               low=format_cents(max(self.min_bet, 1)), high=format_cents(self.max_bet),
                               value=show(ev.get("amount")))
        code = self._card(ev.get("card"), n, True)
        second = Hand(seat.player, 2, MUERTO_CARD)
        second.cards.append(hand.cards[0])
        if self.instances is not None:
            second.slots.append(hand.slots[0])
        second.points = hand.points
        self._add(second, code, n, True)
        second.stake = cents
        second.status = STOOD
        hand.kind = MUERTO_SEVEN
        hand.status = STOOD
        hand.raise_pending = False
        seat.hands.append(second)
        seat.acted = True
        self._advance()

    def _shuffle(self, ev, n, who):
        left = self._deck_size - self.live_count
        if left:
            raise IllegalEvent(n, "shuffle", gettext_noop("shuffle only when the stock has run out; {left} cards are left"),
                               left=left)
        bust = [hand for hand in self.hands() if hand.status == BUST and not hand.returned]
        if self.loca is not None and self.loca.status == BUST and not self.loca.returned:
            bust.append(self.loca)
        if not bust:
            raise IllegalEvent(n, "shuffle", gettext_noop("no bust hand's cards to shuffle back into the stock"))
        for hand in bust:
            for position in range(len(hand.cards)):
                self._return(hand, position, n)
            hand.returned = True

    def _identify_event(self, ev, n, who):
        number = ev.get("hand", 1)
        if who == BANK_ID:
            hand = self.bank
        elif who == LOCA_ID and self.loca is not None:
            hand = self.loca
        else:
            seat = self._seat.get(who)
            if seat is None:
                raise IllegalEvent(n, "seat", gettext_noop("{who} is not seated at this table"), who=who)
            if type(number) is not int or not 1 <= number <= len(seat.hands):
                raise IllegalEvent(n, "identify", gettext_noop("{who} has no hand {number}"), who=who, number=show(number))
            hand = seat.hands[number - 1]
        if not hand.unknown:
            raise IllegalEvent(n, "identify", gettext_noop("every card of {who}'s hand {number} is already known"),
                               who=who, number=hand.number)
        announcing = ev.get("natural", False)
        if type(announcing) is not bool:
            raise IllegalEvent(n, "identify", gettext_noop("natural must be true or false"))
        position = hand.cards.index(None)
        code = self._card(ev.get("card"), n, False)
        if announcing:
            self._check_announcement(hand, position, code, n)
        self._check_identity(hand, position, code, n)
        self._identify(hand, position, code)
        if hand.status == PLAYING:
            self._settle_points(hand)
        elif hand.kind == NORMAL and hand.natural:  # a 7½ shown late is announced now
            self.announced = True

    # ------------------------------------------------------------------ checks

    def _seat_turn(self, who: str, n: int, do: str) -> tuple[Seat, Hand]:
        """The seat whose turn it is, named by the event, and its current hand."""
        if self.order[self.turn] != who:
            self._out_of_turn(who, n)
        seat = self._seat.get(who)
        if seat is None:
            raise IllegalEvent(n, "event", gettext_noop("only a seated player's hand can {do}"), do=do)
        return seat, seat.hands[seat.current]

    def _turn_hand(self, who, n):
        """The current hand of the actor named by the event, and its seat (None for la
        loca and the bank)."""
        if self.order[self.turn] != who:
            self._out_of_turn(who, n)
        seat = self._seat.get(who)
        if seat is not None:
            return seat.hands[seat.current], seat
        return (self.bank if who == BANK_ID else self.loca), None

    def _out_of_turn(self, who: Any, n: int) -> NoReturn:
        now = self.order[self.turn]
        if who not in self._seat and who not in (BANK_ID, LOCA_ID):
            raise IllegalEvent(n, "seat", gettext_noop("{who} is not seated at this table"), who=show(who))
        if who == LOCA_ID and self.loca is None:
            raise IllegalEvent(n, "loca", gettext_noop("la loca is not played at this table"))
        if self.order.index(who) < self.turn:
            raise IllegalEvent(n, "turn", gettext_noop("{who}'s turn is over; it is {now}'s turn"), who=who, now=now)
        raise IllegalEvent(n, "turn", gettext_noop("it is {now}'s turn, not {who}'s: play goes in seat order"), who=who, now=now)

    def _check_bettor(self, player, n):
        if not valid_player_id(player):
            raise IllegalEvent(n, "player", gettext_noop("{player} is not a valid player id"), player=show(player))
        if player == self.bank_player:
            raise IllegalEvent(n, "bank", gettext_noop("the bank's holder never bets on la loca or on a seat"))

    def _may_announce(self, seat, hand):
        """Under ``bank_chases_natural``, may the seat in turn stand on an announced 7½
        whose face-down card was entered unknown (the console then asks for that card)?
        True when some card still in the stock would make the hand 7½."""
        if not (self.profile.bank_chases_natural and hand.unknown and hand.kind == NORMAL
                and hand.stake and (not hand.raise_pending or self.profile.raise_on_stand)):
            return False
        needed = NATURAL - hand.points
        live = self.live
        return any(CARD_POINTS[code] == needed and code not in live for code in self.deck)

    def _exchange_due(self, seat: Seat, hand: Hand) -> bool:
        """``exchange_fours: mandatory`` and the seat still holds its initial 4."""
        return (self.profile.exchange_fours == "mandatory" and not seat.acted and hand.number == 1
                and seat.exchanges < MAX_EXCHANGES and len(hand.cards) == 1
                and hand.cards[0] is not None and CARD_RANK[hand.cards[0]] == 4)

    def _refuse_if_exchange_due(self, seat: Seat, hand: Hand, n: int) -> None:
        if self._exchange_due(seat, hand):
            raise IllegalEvent(n, "exchange_fours", gettext_noop("los cuatros se cambian: {who} must exchange the initial 4 first"),
                               who=seat.player)

    def _bet_range(self, hand: Hand, n: int) -> tuple[Any, Any]:
        """(lowest, highest) cents the seat may bet now on its current hand."""
        if self._mandatory_exchange:
            self._refuse_if_exchange_due(self._seat[hand.owner], hand, n)
        if hand.stake == 0:
            if self.profile.fixed_stake:
                return self.min_bet, self.min_bet
            return max(self.min_bet, 1), self.max_bet
        if self.profile.fixed_stake:
            raise IllegalEvent(n, "fixed_stake", gettext_noop("the stake is fixed at {amount} at this table: no raises"),
                               amount=format_cents(self.min_bet))
        if hand.stake >= self.max_bet:
            raise IllegalEvent(n, "max_bet", gettext_noop("the hand already carries the most a hand may: {amount}"),
                               amount=format_cents(self.max_bet))
        return 1, self.max_bet - hand.stake

    def _check_draw(self, hand: Hand, seat: Seat | None, n: int) -> None:
        if seat is not None:
            if self._mandatory_exchange:
                self._refuse_if_exchange_due(seat, hand, n)
            if hand.stake == 0:
                raise IllegalEvent(n, "stake", gettext_noop("{who} bets on hand {number} before its first card (at least {amount})"),
                                   who=seat.player, number=hand.number, amount=format_cents(self.min_bet))
        elif hand.kind == LOCA:
            if self.loca_doubled:
                self._refuse_after_dobla(n)
        elif hand.kind == BANK:
            self._refuse_if_bank_unseen(n)
            limit = self.profile.bank_draws_below
            chasing = self.profile.bank_chases_natural and self.announced
            if limit is not None and hand.points >= limit and not chasing:
                raise IllegalEvent(n, "bank_draws_below", gettext_noop("the bank must stand on {points} or more"),
                                   points=format_points(limit))
        if self.live_count >= self._deck_size:
            raise IllegalEvent(n, "stock", gettext_noop("the stock is empty: shuffle the bust hands' cards back first"))

    def _check_down(self, hand: Hand, n: int) -> None:
        if hand.kind == BANK:
            raise IllegalEvent(n, "face_down", gettext_noop("the bank's cards are face up"))
        if self.profile.face_up:
            raise IllegalEvent(n, "face_up", gettext_noop("every card is face up at this table"))
        if hand.down >= 0:
            raise IllegalEvent(n, "face_down", gettext_noop("a hand holds at most one face-down card; turn it up first"))

    def _check_stand(self, hand: Hand, seat: Seat | None, n: int) -> None:
        if seat is not None:
            if self._mandatory_exchange:
                self._refuse_if_exchange_due(seat, hand, n)
            if hand.stake == 0:
                raise IllegalEvent(n, "stake", gettext_noop("{who} bets on hand {number} before standing (at least {amount})"),
                                   who=seat.player, number=hand.number, amount=format_cents(self.min_bet))
            if hand.raise_pending and not self.profile.raise_on_stand:
                raise IllegalEvent(n, "raise_on_stand", gettext_noop("a raise must be followed by a card at this table, not by a stand"))
            cap = self.one_card_cap
            if cap is not None and len(hand.cards) == 1 and hand.stake > cap:
                # [rules.md "One-card stand"; 003: "doblar la apuesta mínima sin pedir carta"]
                raise IllegalEvent(n, "one_card_stand_max", gettext_noop("a hand that stands on one card carries at most {limit} ({times} × the minimum bet of {min_bet}); {who} has {stake} on it: a card first"),
                                   limit=format_cents(cap), times=self.profile.one_card_stand_max,
                                   min_bet=format_cents(self.min_bet), who=seat.player, stake=format_cents(hand.stake))
        elif hand.kind == BANK:
            self._refuse_if_bank_unseen(n)
            limit = self.bank_limit()
            if limit is not None and hand.points < limit:
                if limit == NATURAL and self.profile.bank_chases_natural and self.announced:
                    raise IllegalEvent(n, "bank_chases_natural", gettext_noop("a seat announced 7½: the bank may not stand below 7½"))
                raise IllegalEvent(n, "bank_draws_below", gettext_noop("the bank must draw below {points}; it has {has}"),
                                   points=format_points(limit), has=format_points(hand.points))

    def _refuse_if_bank_unseen(self, n):
        if self.bank.unknown:
            raise IllegalEvent(n, "reveal", gettext_noop("the bank turns up its card first: name it"))

    def _check_split(self, seat, hand, n):
        if not hand.split_ready:
            if self.profile.split_pairs:
                raise IllegalEvent(n, "split", gettext_noop("a split needs a hand whose only card has just received another card of the same points"))
            raise IllegalEvent(n, "split", gettext_noop("a split needs a hand whose only card is a half that has just received another half"))
        if not self._room_to_split(seat):
            raise IllegalEvent(n, "max_hands", gettext_noop("at most {limit} hands per seat at this table"),
                               limit=self._max_hands)

    def _room_to_split(self, seat):
        """May ``seat`` open one more hand (``max_hands``)?"""
        limit = self._max_hands
        return limit is None or len(seat.hands) < limit

    def _check_exchange(self, seat, hand, n):
        mode = self.profile.exchange_fours
        if mode == "off":
            raise IllegalEvent(n, "exchange_fours", gettext_noop("fours are not exchanged at this table"))
        if (seat.acted or hand.number != 1 or len(hand.cards) != 1 or hand.cards[0] is None
                or CARD_RANK[hand.cards[0]] != 4):
            raise IllegalEvent(n, "exchange_fours", gettext_noop("only an initial 4 is exchanged, at the start of the turn and before betting"))
        if seat.exchanges >= MAX_EXCHANGES:
            raise IllegalEvent(n, "exchange_fours", gettext_noop("a 4 is exchanged at most {limit} times in a row"), limit=MAX_EXCHANGES)

    def _check_lone_seven(self, seat, hand, n, play):
        self._refuse_if_exchange_due(seat, hand, n)
        if (hand.number != 1 or hand.kind != NORMAL or len(hand.cards) != 1 or hand.cards[0] is None
                or CARD_RANK[hand.cards[0]] != 7 or len(seat.hands) != 1):  # (not a 7 left by a split)
            raise IllegalEvent(n, play, gettext_noop("{play} is played on a hand whose only card is a 7"), play=play)

    def _check_fusilar(self, seat, hand, n):
        if not self.profile.fusilar:
            raise IllegalEvent(n, "fusilar", gettext_noop("fusilar is not played at this table"))
        self._check_lone_seven(seat, hand, n, "fusilar")
        if hand.stake == 0:
            raise IllegalEvent(n, "stake", gettext_noop("{who} bets before fusilar (at least {amount})"),
                               who=seat.player, amount=format_cents(self.min_bet))
        self._check_stock(n)

    def _check_muerto(self, seat, hand, n):
        if not self.profile.muerto:
            raise IllegalEvent(n, "muerto", gettext_noop("muerto is not played at this table"))
        self._check_lone_seven(seat, hand, n, "muerto")
        if hand.stake != 2 * self.min_bet:
            raise IllegalEvent(n, "muerto", gettext_noop("muerto: the 7 alone carries exactly twice the minimum, {amount}, bet before"),
                               amount=format_cents(2 * self.min_bet))
        self._check_stock(n)

    def _check_stock(self, n):
        if self.live_count >= self._deck_size:
            raise IllegalEvent(n, "stock", gettext_noop("the stock is empty: shuffle the bust hands' cards back first"))

    def _card(self, value: Any, n: int, may_be_unknown: Any) -> Any:
        """The code of the card an event names, checked against the deck and the cards
        already out; None for an unknown face-down card (console only)."""
        code = self._spellings.get(value) if type(value) is str else None
        if code is None:
            if value is None and may_be_unknown and self.allow_unknown:
                if self.live_count >= self._deck_size:
                    raise IllegalEvent(n, "stock", gettext_noop("the stock is empty: shuffle the bust hands' cards back first"))
                return None
            self._refuse_card(value, n)
        if code not in self.deck:
            if self.profile.deck == "spanish-36" and CARD_RANK[code] == SOTA:
                raise IllegalEvent(n, "deck", gettext_noop("{card}: this table plays without sotas"), card=CARD_NAME[code])
            raise IllegalEvent(n, "deck", gettext_noop("{card} is not in this table's deck"), card=CARD_NAME[code])
        dealt = self.live.get(code)
        if dealt is not None:  # (with the stock empty, every card of the deck is out: here too)
            raise IllegalEvent(n, "card", gettext_noop("{card} is already on the table (dealt at event {at})"),
                               card=CARD_NAME[code], at=dealt)
        return code

    def _refuse_card(self, value: Any, n: int) -> NoReturn:
        """Raise the error for ``value``, no card of the table's deck: a card of the other
        deck is named as such (rule ``deck``), anything else is no card (rule ``card``).
        [rules.md "Cards and points": a card not of the table's deck is an error]"""
        french = self.profile.deck == "french-40"
        other = other_deck_card(value, self.profile.deck)
        if other is not None:
            if french:
                raise IllegalEvent(n, "deck", gettext_noop("{card} is a card of the Spanish deck; this table plays the French deck (A, 2–7, J, Q, K of S, H, D, C)"),
                                   card=other)
            raise IllegalEvent(n, "deck", gettext_noop("{card} is a card of the French deck; this table plays the Spanish deck (1–7, 10, 11, 12 of O, C, E, B)"),
                               card=other)
        if french:
            raise IllegalEvent(n, "card", gettext_noop("{value} is not a card of the French deck (A, 2–7, J, Q, K of S, H, D, C)"),
                               value=show(value))
        raise IllegalEvent(n, "card", gettext_noop("{value} is not a card of the Spanish deck (1–7, 10, 11, 12 of O, C, E, B)"),
                           value=show(value))

    def _check_announcement(self, hand, position, code, n):
        """A seat standing on an announced 7½ shows the face-down card it held unknown:
        the hand must be the one in turn and the card must make it 7½ (console only).
        [rules.md "The bank's turn": bank_chases_natural]"""
        if (hand.kind != NORMAL or hand.status != PLAYING or hand is not self.current_hand()):
            raise IllegalEvent(n, "identify", gettext_noop("only the hand in turn announces 7½ when it stands"))
        self._check_stand(hand, self._seat[hand.owner], n)
        if hand.points + CARD_POINTS[code] != NATURAL:
            raise IllegalEvent(n, "identify", gettext_noop("with {card} the hand has {points}, not 7½: check the card, or enter a stand"),
                               card=CARD_NAME[code], points=format_points(hand.points + CARD_POINTS[code]))

    def _check_identity(self, hand, position, code, n):
        """A late identity must fit: no other copy of the card out at the same time, and
        a play that stayed legal (no card drawn on 7½ or more, no stand on a bust)."""
        start, end = self.instances[hand.slots[position]][1:]
        for other, other_start, other_end in self.instances:
            if other == code and other_start < (end or 1 << 30) and start < (other_end or 1 << 30):
                raise IllegalEvent(n, "card", gettext_noop("{card} is already on the table (dealt at event {at})"),
                                   card=CARD_NAME[code], at=other_start)
        if hand.kind in (NORMAL, LOCA):
            total = 0
            for i, c in enumerate(hand.cards):
                total += CARD_POINTS[code if i == position else c]
                if total >= NATURAL and i < len(hand.cards) - 1:
                    raise IllegalEvent(n, "identify", gettext_noop("with {card} the hand had {points} before its card {next}: check the card"),
                                       card=CARD_NAME[code], points=format_points(total), next=i + 2)
            if hand.status == STOOD and total > NATURAL:
                raise IllegalEvent(n, "identify", gettext_noop("with {card} the hand is bust, yet it stood: check the card or void the hand"),
                                   card=CARD_NAME[code])
            bank = self.bank
            if (hand.kind == NORMAL and hand.status == STOOD and total == NATURAL
                    and self.profile.bank_chases_natural
                    and bank.status == STOOD and bank.points < NATURAL):
                raise IllegalEvent(n, "bank_chases_natural", gettext_noop("with {card} the hand was 7½, which obliged the bank not to stand below 7½; it stood on {points}: check the card or void the hand"),
                                   card=CARD_NAME[code], points=format_points(bank.points))

    # ------------------------------------------------------------------ mutations

    def _add(self, hand: Hand, code: Any, n: int, down: Any) -> None:
        cards = hand.cards
        if down:
            hand.down = len(cards)
        cards.append(code)
        self.live_count += 1
        if code is None:
            hand.unknown += 1
        else:
            self.live[code] = n
            hand.points += CARD_POINTS[code]
        if self.allow_unknown:  # (only then are there instances)
            instances = self.instances
            hand.slots.append(len(instances))
            instances.append([code, n, None])

    def _identify(self, hand, position, code):
        hand.cards[position] = code
        hand.unknown -= 1
        hand.points += CARD_POINTS[code]
        instance = self.instances[hand.slots[position]]
        instance[0] = code
        if instance[2] is None:
            self.live[code] = instance[1]

    def _return(self, hand, position, n):
        """The card at ``position`` of ``hand`` goes back into the stock."""
        if self.instances is not None:
            instance = self.instances[hand.slots[position]]
            if instance[2] is not None:
                return
            instance[2] = n
        self.live_count -= 1
        code = hand.cards[position]
        if code is not None:
            del self.live[code]

    def _settle_points(self, hand: Hand) -> None:
        """Finish a hand that reached 7½ (it stands by itself) or went over (bust)."""
        if hand.unknown:
            if hand.points >= NATURAL:  # even the lowest card would make it bust
                hand.status = BUST
                self._advance()
            return
        if hand.points >= NATURAL:
            if hand.points == NATURAL:
                hand.status = STOOD
                if hand.kind == NORMAL:
                    self.announced = True
            else:
                hand.status = BUST
            self._advance()

    def _advance(self) -> None:
        """Move the turn past every finished hand: next hand of the seat, next seat, la
        loca, the bank; OVER when the bank is finished."""
        actors = self._actors
        turn = self.turn
        while turn < len(actors):
            actor = actors[turn]
            if isinstance(actor, Seat):
                hands = actor.hands
                i = actor.current
                while i < len(hands) and hands[i].status is not PLAYING:
                    i += 1
                if i < len(hands):
                    actor.current = i
                    self.turn = turn
                    return
                actor.current = len(hands) - 1
            elif actor.status is PLAYING:  # la loca's or the bank's hand
                self.turn = turn
                return
            turn += 1
        self.turn = len(actors) - 1
        self.phase = OVER

    # ------------------------------------------------------------------ the console

    def legal(self):
        """What may be entered now, from the same checks ``apply`` makes.

        Returns:
            Legal, with amounts in integer cents:

            - ``phase``, ``to_deal`` (who still needs an initial card), ``actor`` (whose
              turn), ``hand`` (the seat's hand number in play), ``complete``,
              ``identities_owed``.
            - ``bet``: ``(lowest, highest)`` the seat in turn may bet now, or None.
            - ``draw``, ``draw_down``, ``stand``, ``reveal``, ``split``, ``exchange``,
              ``exchange_required``, ``fusilar``, ``announce``, ``shuffle``: booleans.
              ``split`` offers the split of a half on a lone half, and with
              ``split_pairs`` of any card on a lone card of the same points.
            - ``pair_split``: ``(player, hand number)`` of a pair over 7½ just drawn that
              the next event may still split (``split_pairs``, within ``max_hands``; the
              hand is bust, and ``actor`` is already the next to play, unless that split
              comes), or None.
            - ``one_card_cap``: where the hand in turn holds one card and the table caps
              a stand on it (``one_card_stand_max`` × ``min_bet``), that cap; else None.
              ``stand`` is False while the hand's stake is above it.
            - ``muerto``: ``(lowest, highest)`` of the stake on the 7 plus its card, or None.
            - ``side_bet_seats``: the seats still open to side bets.
            - ``loca_bets_open``: anyone may still bet on la loca (its turn has not begun).
            - ``loca_raises``: each bettor on la loca -> the most he may still add (None
              before its turn: his bets add to his first stake; 0 with ``loca_calls``
              while no "dobla quien quiera" is open).
            - ``loca_calls``: the calls la loca's responsable may make now, of
              ``LOCA_CALLS`` (``loca_calls``, at la loca's turn, with bets on it).
            - ``loca_responsables``: who may make them (the one named in the hand's first
              call, else every bettor on la loca); ``loca_responsable``: the one to
              propose (the one named, else the biggest bettor, the first of equals).
            - ``bank_must_draw``, ``bank_must_stand``: the bank's obligations now.
        """
        legal = Legal(phase=self.phase, to_deal=tuple(w for w in self.order if w in self._undealt),
                      actor=self.actor, complete=self.complete,
                      identities_owed=tuple(self.identities_owed()),
                      draw=False, draw_down=False, stand=False, reveal=False, split=False,
                      exchange=False, exchange_required=False, fusilar=False, shuffle=False,
                      side_bet_seats=(), loca_bets_open=False, loca_raises={}, loca_calls=(),
                      loca_responsables=(), announce=False, bank_must_draw=False,
                      bank_must_stand=False)
        if self.phase != PLAY:
            return legal
        who = self.actor
        hand = self.current_hand()
        seat = self._seat.get(who)
        legal.hand = hand.number if seat is not None else None
        legal.pair_split = self.pair_split

        def ok(check, *args):
            try:
                check(*args)
            except IllegalEvent:
                return False
            return True

        legal.draw = ok(self._check_draw, hand, seat, 0)
        legal.draw_down = legal.draw and ok(self._check_down, hand, 0)
        legal.stand = ok(self._check_stand, hand, seat, 0)
        legal.reveal = hand.down >= 0 and not (hand.kind == LOCA and self.loca_doubled)
        if seat is not None:
            try:
                legal.bet = self._bet_range(hand, 0)
            except IllegalEvent:
                legal.bet = None
            legal.split = ok(self._check_split, seat, hand, 0)
            if self.one_card_cap is not None and len(hand.cards) == 1:
                legal.one_card_cap = self.one_card_cap
            legal.exchange = ok(self._check_exchange, seat, hand, 0)
            legal.exchange_required = self._exchange_due(seat, hand)
            legal.fusilar = ok(self._check_fusilar, seat, hand, 0)
            legal.announce = self._may_announce(seat, hand)
            if ok(self._check_muerto, seat, hand, 0):
                legal.muerto = (max(self.min_bet, 1), self.max_bet)
        if self.profile.side_bets:
            legal.side_bet_seats = tuple(s.player for s in self.seats if s.hands[0].status == PLAYING)
        loca = self.loca
        if loca is not None and loca.status == PLAYING:
            begun = self.loca_turn_begun
            closed = self.profile.loca_calls and not self.loca_window
            legal.loca_bets_open = not begun
            legal.loca_raises = {p: (None if not begun else 0 if closed else 2 * s[0] - s[1])
                                 for p, s in self.loca_bets.items()}
            if self.profile.loca_calls and who == LOCA_ID and self.loca_bets:
                legal.loca_calls = self._loca_calls_open(loca)
                named = self.loca_responsable
                legal.loca_responsables = (named,) if named is not None else tuple(self.loca_bets)
                legal.loca_responsable = named if named is not None else max(
                    self.loca_bets, key=lambda p: self.loca_bets[p][1])
        if who == BANK_ID:
            limit = self.bank_limit()
            legal.bank_must_draw = limit is not None and hand.points < limit
            legal.bank_must_stand = legal.stand and not legal.draw
        legal.shuffle = (self._deck_size == self.live_count
                         and any(h.status == BUST and not h.returned for h in self.hands()))
        return legal

    def _loca_calls_open(self, loca):
        """The calls la loca's responsable may make now (its turn, bets on it)."""
        if self.loca_doubled:
            return (SE_PLANTA,)
        if self.loca_calls_made or len(loca.cards) > 1:
            return (DOBLA_QUIEN_QUIERA, SE_PLANTA)
        return LOCA_CALLS

    def describe(self):
        """The whole table as plain data, for the console, the API and tests."""
        return {
            "phase": self.phase,
            "actor": self.actor,
            "bank": {"player": self.bank_player, **self.bank.describe()},
            "seats": [{"player": s.player, "exchanges": s.exchanges,
                       "side_bets": {p: format_cents(c) for p, c in s.side_bets.items()},
                       "hands": [h.describe() for h in s.hands]} for s in self.seats],
            "loca": None if self.loca is None else {
                **self.loca.describe(),
                "bets": {p: format_cents(s[1]) for p, s in self.loca_bets.items()},
                "responsable": self.loca_responsable, "calls": self.loca_calls_made,
                "dobla_quien_quiera": self.loca_window, "dobla": self.loca_doubled},
            "events": self.n,
            "stock": self._deck_size - self.live_count,
        }


def _keys_within(ev: dict[Any, Any], allowed: frozenset[str]) -> bool:
    """``allowed.issuperset(ev)``: compiled (setup.py), a loop without a method call."""
    for key in ev:
        if key not in allowed:
            return False
    return True


_HANDLERS: Final = {
    "deal": HandState._deal,
    "bet": HandState._bet,
    "card": HandState._card_event,
    "reveal": HandState._reveal,
    "stand": HandState._stand,
    "split": HandState._split,
    "exchange": HandState._exchange,
    "fusilar": HandState._fusilar,
    "muerto": HandState._muerto,
    "loca_call": HandState._loca_call,
    "shuffle": HandState._shuffle,
    "identify": HandState._identify_event,
}

#: ``do`` -> (the keys its event may carry, its handler): for hand records, and for the
#: console (unknown cards named later).
_RECORD_HANDLERS: Final = dict(_HANDLERS, deal=HandState._record_deal, bet=HandState._record_bet,
                        card=HandState._record_card)
_RECORD_DISPATCH: Final = {do: (keys, _RECORD_HANDLERS[do]) for do, keys in EVENT_KEYS.items()}
_CONSOLE_DISPATCH: Final = {do: (keys, _HANDLERS[do]) for do, keys in _UNKNOWN_EVENT_KEYS.items()}
