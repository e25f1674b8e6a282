"""The bank's theoretical edge per rule set: a simulation on the engine's own play.

Pure Python (no Django): hands are played through ``HandState.apply`` (every event is
checked by the rules engine; an event it refuses is a bug here and raises
``AssertionError``) from a shuffled deck and settled by ``game.payouts.settle``; a
documented strategy decides every choice. [rules.md]

The strategy (``Strategy``; ``describe_strategy`` writes it out in words):

- **Seats.** Every seat bets one unit (``UNIT_CENTS``: the table's minimum, 1.00) on each
  hand it plays and never raises. It draws while its points are below ``stand_at`` and
  stands at ``stand_at`` or more (7½ stands by itself, over 7½ is bust). It never turns
  its face-down card up, so its later cards come face up. Options: ``fusilar`` (a lone 7
  is fusilado where the table plays fusilar), ``exchange_fours`` (``"mandatory"``: an
  initial 4 is exchanged only where the table obliges; ``"always"``: also where it is
  optional, again while a 4 comes, up to the limit), ``split`` (split whenever allowed:
  halves, and with ``split_pairs`` pairs, a pair over 7½ too), ``muerto`` (a lone 7 plays
  muerto: 2 units on the 7 alone and 1 on the 7 plus its card), ``one_card_units`` (the
  units on a hand whose one card already reaches ``stand_at``, so that it stands on it —
  seed 003's "doblar la apuesta mínima sin pedir carta" —, at most the table's
  ``one_card_stand_max``). Nobody bets on la loca (it stands at once) and nobody makes
  side bets. Each profile's default (``DEFAULT_STRATEGIES``) is the seats' best of these.
- **Decks.** Any deck option: ``french-40`` deals the same ranks as ``spanish-40`` (its
  cards in the same order of codes), so the same seed gives the same figures.
- **What the bank sees.** With ``face_up`` every seat card is visible. Without it, a
  standing hand shows its face-up cards (all but its initial card); a hand that went bust
  is shown (the player hands his cards over); a hand that reached 7½ is announced and its
  points are known (the engine counts it as announced); a fusilado or muerto 7 shows the 7,
  not the card under it; a split shows that the first card had the points of the second
  hand's (a half, or with ``split_pairs`` the pair's); a returned 4 is seen going back into
  the stock. The bank knows its own cards and the seats' strategy.
- **The bank.** Where the rules oblige it (``bank_draws_below``; ``bank_chases_natural``
  after a 7½ or a fusilado) it draws or stands as obliged. Where it is free it makes the
  best reply to what it sees: for every standing hand it weighs the values the hidden
  card may have (the cards it has not seen, restricted to those that make the seat's
  strategy stand exactly where it stood), and it draws when drawing is worth more than
  standing, looking ahead over further draws as if each came from the unseen cards with
  replacement (ties: it stands). When no hand with a stake is left standing it does not
  play. ``bank_should_draw`` is that rule, on plain data. A strategy with
  ``bank_stand_at`` makes the free bank draw below that threshold and stand at it or
  above instead, whatever it sees (a bank as observed at a table).
- **As played.** ``fit_strategy`` fits a strategy to a table's hand records: the seats'
  threshold and the options they used, the bank's threshold or best reply, and the
  thresholds the choices cannot tell apart (``plausible_thresholds``): the fit's
  uncertainty, for the auditors' expectation (``reports.detection.expectation``).

The estimate (``bank_edge``): the bank's result per unit staked, before the house
commission, over ``hands`` hands of ``seats`` seats, with its standard error and a 95%
confidence interval (ratio estimator: sum of results over sum of stakes; its variance by
the delta method over hands), the standard deviation per unit staked of one hand and of
one bet, and the correlation between two bets of the same hand, which give the variance
of any hand's result (``hand_variance``). The hands are played in chunks of
``CHUNK_HANDS``, chunk ``i`` from ``random.Random(f"{seed}/{i}")``: the same seed gives the
same figures whatever the number of worker processes.

Units: points in half-points (7½ = 15), money in integer cents, results per unit staked
as floats (statistical estimates, never posted money).
"""

import math
import random
from dataclasses import asdict, dataclass, replace
from statistics import NormalDist

from game.cards import CARD_NAME, CARD_POINTS, CARD_RANK, DECKS, NATURAL, RANKS
from game.errors import IllegalEvent
from game.hand import (
    BANK_ID,
    BUST,
    FUSILADO,
    LOCA_ID,
    MAX_EXCHANGES,
    MUERTO_CARD,
    MUERTO_SEVEN,
    NORMAL,
    PLAY,
    HandState,
    format_cents,
)
from game.payouts import settle
from game.profiles import Profile
from game.record import FORMAT, read_header

#: One unit staked, in cents: the simulated table's minimum bet.
UNIT_CENTS = 100
#: The simulated table's maximum (room for muerto's second stake).
MAX_CENTS = 10 * UNIT_CENTS
#: Hands per chunk: the unit of reproducibility and of parallel work.
CHUNK_HANDS = 5000
#: Half-point values a card may have: a figure (1), 1 … 7 (2 … 14).
VALUES = (1, 2, 4, 6, 8, 10, 12, 14)
BANK_PLAYER = "banca"
#: Seat ids of the simulated table, in order of play.
SEAT_IDS = tuple(f"s{i}" for i in range(1, 10))
_Z95 = NormalDist().inv_cdf(0.975)
_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}

@dataclass(frozen=True, slots=True)
class Strategy:
    """How the seats play (the bank's play follows from the rules and what it sees).

    The field defaults are the plainest play; each profile's documented default is
    ``default_strategy(profile)``.

    Attributes:
        stand_at: half-points; a seat draws below it and stands at it or above (8 = 4).
        fusilar: fusilar a lone 7 where the table plays fusilar.
        exchange_fours: ``"mandatory"`` (exchange an initial 4 only where the table
            obliges) or ``"always"`` (also where it is optional, up to the limit).
        split: split whenever the rules allow it (a pair over 7½ too).
        muerto: play muerto on a lone 7 where the table plays muerto.
        one_card_units: units staked on a hand whose one card already reaches
            ``stand_at`` (it stands on that card), 1 to ``MAX_CENTS // UNIT_CENTS``; at a
            table with ``one_card_stand_max`` k, at most k (the unit is the minimum bet).
        bank_stand_at: half-points or None. None: where the rules leave the bank free it
            makes the best reply to what it sees (``bank_should_draw``); a number: where
            free it draws below it and stands at it or above, whatever it sees (a bank
            as observed at a table, ``observed_bank_stand_at``). Where the rules oblige
            the bank, they decide either way.
    """

    stand_at: int = 8
    fusilar: bool = False
    exchange_fours: str = "mandatory"
    split: bool = False
    muerto: bool = False
    one_card_units: int = 1
    bank_stand_at: int | None = None

    def __post_init__(self):
        if type(self.stand_at) is not int or not 1 <= self.stand_at <= NATURAL:
            raise ValueError(f"stand_at: half-points from 1 to 15, not {self.stand_at!r}")
        if type(self.one_card_units) is not int or not 1 <= self.one_card_units <= MAX_CENTS // UNIT_CENTS:
            raise ValueError(f"one_card_units: a whole number from 1 to {MAX_CENTS // UNIT_CENTS}, "
                             f"not {self.one_card_units!r}")
        if self.bank_stand_at is not None and (type(self.bank_stand_at) is not int
                                               or not 1 <= self.bank_stand_at <= NATURAL):
            raise ValueError(f"bank_stand_at: half-points from 1 to 15 or None, not {self.bank_stand_at!r}")
        if self.exchange_fours not in ("mandatory", "always"):
            raise ValueError(f'exchange_fours: "mandatory" or "always", not {self.exchange_fours!r}')

    def as_dict(self):
        """The fields as plain data, ``one_card_units`` only where it is not 1 and
        ``bank_stand_at`` only where it is set: a strategy reads as it did before those
        fields existed (``EdgeResult.strategy``, the figures stored with it), and
        ``Strategy(**fields)`` gives it back."""
        fields = asdict(self)
        if self.one_card_units == 1:
            del fields["one_card_units"]
        if self.bank_stand_at is None:
            del fields["bank_stand_at"]
        return fields


#: Each profile's documented default strategy: of the simple strategies (``stand_at`` 1 to
#: 5 points, each option on or off), the one that left the bank the smallest edge against
#: 4 seats — the seats' best — in a search of 20,000 hands per strategy, the best two
#: thresholds then compared over 200,000 hands (seed 17; README "The bank's edge").
#: Standing at 4 points is best where the first card is hidden: the bank cannot tell a 4
#: from a 7; with every card face up (americana) the bank must draw below 6 and seats do
#: best standing at 2.
DEFAULT_STRATEGIES = {
    "tradicional": {"stand_at": 8, "split": True},
    "reglamento": {"stand_at": 8, "fusilar": False, "exchange_fours": "always", "split": True},
    "profesional": {"stand_at": 8, "muerto": True},
    "americana": {"stand_at": 4},
}


def default_strategy(profile, **changes):
    """The documented strategy for a profile (``DEFAULT_STRATEGIES`` by the profile's
    name), any field overridden by ``changes``.

    Args:
        profile: a ``Profile`` or a rules value (``"reglamento"``, ``{"profile": …}``).
    Returns:
        Strategy.
    """
    if not isinstance(profile, Profile):
        profile = Profile.from_rules(profile)
    values = dict(DEFAULT_STRATEGIES.get(profile.name, {}))
    values.update(changes)
    return Strategy(**values)


def one_card_units(profile, strategy):
    """The units a seat stakes on a hand it stands on with its one card: the strategy's
    ``one_card_units``, at most the table's ``one_card_stand_max`` (one unit is the
    minimum bet). [rules.md "One-card stand"]"""
    cap = profile.one_card_stand_max
    return strategy.one_card_units if cap is None else min(strategy.one_card_units, cap)


def _same(text):
    return text


def _points_text(half_points, english):
    """Points in words: ``3.5`` as stored (English), ``3½`` on a page (any language)."""
    if english:
        return f"{half_points / 2:g}"
    return f"{half_points // 2}" + ("½" if half_points % 2 else "")


def describe_strategy(profile, strategy, gettext=None):
    """The strategy in words: what the seats do, what the bank sees under the profile's
    ``face_up`` and how it replies.

    Args:
        profile: the ``Profile``; strategy: the ``Strategy``.
        gettext: a translation function (Django's ``gettext``, for a page in the reader's
            language); None: English, as stored with an edge (this module stays free of
            Django: the strings are marked with ``_`` for ``makemessages`` only).
    Returns:
        str, sentences joined by spaces.
    """
    _ = gettext or _same
    stand = _points_text(strategy.stand_at, gettext is None)
    parts = [_("Each seat bets 1 unit per hand, never raises, draws below %(points)s points and "
               "stands at %(points)s or more.") % {"points": stand}]
    if profile.fusilar:
        parts.append(_("A lone 7 is fusilado.") if strategy.fusilar else _("A lone 7 is never fusilado."))
    if profile.muerto:
        parts.append(_("A lone 7 plays muerto (2 units on the 7, 1 on the 7 plus its card).")
                     if strategy.muerto else _("Muerto is never played."))
    if profile.exchange_fours != "off":
        parts.append(_("An initial 4 is exchanged whenever allowed.")
                     if strategy.exchange_fours == "always" or profile.exchange_fours == "mandatory"
                     else _("An initial 4 is exchanged never (the table does not oblige it)."))
    if profile.max_hands != 1:
        if not strategy.split:
            parts.append(_("Never splits."))
        elif profile.split_pairs:
            parts.append(_("Halves and pairs are split whenever allowed, a pair over 7½ too."))
        else:
            parts.append(_("Halves are split whenever allowed."))
    units = one_card_units(profile, strategy)
    if units > 1:
        parts.append(_("A hand whose one card reaches the threshold stands on it with %(units)s units.")
                     % {"units": units})
    if profile.loca:
        parts.append(_("Nobody bets on la loca."))
    if profile.face_up:
        parts.append(_("Every card is face up: the bank sees every hand's points."))
    else:
        parts.append(_("Seats keep their initial card face down and draw face up: the bank sees the "
                       "face-up cards, bust hands, announced 7½s, and weighs the hidden card over the "
                       "cards it has not seen that fit the seats' strategy."))
    obliged = []
    if profile.bank_draws_below is not None:
        obliged.append(_("draws below %(points)s and stands at or above it")
                       % {"points": _points_text(profile.bank_draws_below, gettext is None)})
    if profile.bank_chases_natural:
        obliged.append(_("after a 7½ or a fusilado draws until 7½"))
    if obliged:
        parts.append(_("The bank %(rules)s.") % {"rules": "; ".join(obliged)})
    if profile.bank_draws_below is None and strategy.bank_stand_at is not None:
        parts.append(_("Where free, the bank draws below %(points)s points and stands at %(points)s or more.")
                     % {"points": _points_text(strategy.bank_stand_at, gettext is None)})
    elif profile.bank_draws_below is None:
        parts.append(_("Where free, the bank draws when its expected result from drawing (later cards "
                       "as if from the unseen cards with replacement) beats standing; it stands on ties."))
    parts.append(_("When nothing with a stake is left standing the bank does not play."))
    return " ".join(parts)


# ---------------------------------------------------------------------------------------
# The bank's reply, on plain data (shared with the exact enumeration)


def hidden_card_weights(shown, last, pool, stand_at, exclude=()):
    """What a standing hand's face-down card may be worth, as the bank reckons it.

    Args:
        shown: the points of the hand's face-up cards (half-points).
        last: the value of its last face-up card, or None if it has none.
        pool: counts of the cards the bank has not seen, indexed by half-point value
            (a list of 15; only ``VALUES`` are used).
        stand_at: the seats' threshold (half-points).
        exclude: values the hidden card cannot have (e.g. 8, a 4, where fours are
            exchanged; 14, a 7, where a lone 7 would have been fusilado).
    Returns:
        dict ``{value: weight}``: the unseen cards of each value that make the hand stop
        exactly where it did (standing below 7½: ``stand_at`` ≤ points < 15, and below
        ``stand_at`` before its last card). If no value fits (a seat stopped early because
        the stock ran out), every unseen value that keeps it below 7½.
    """
    weights = {}
    for h in VALUES:
        n = pool[h]
        if not n or h in exclude:
            continue
        total = shown + h
        if stand_at <= total < NATURAL and (last is None or total - last < stand_at):
            weights[h] = n
    if not weights:
        weights = {h: pool[h] for h in VALUES if pool[h] and shown + h < NATURAL}
    return weights


class View:
    """One standing bet as the bank sees it.

    Attributes:
        stake: cents (a weight; only ratios matter).
        pmf: probability of each point total 0 … 14 (a list of 15).
        natural: probability of 7½; ``bust``: probability the hand is bust (a fusilado or
            muerto card).
        pays: the multiplier of a natural that beats the bank.
    """

    __slots__ = ("stake", "pmf", "natural", "bust", "pays")

    def __init__(self, stake, pmf, natural=0.0, bust=0.0, pays=1):
        self.stake, self.pmf, self.natural, self.bust, self.pays = stake, pmf, natural, bust, pays


def known_view(stake, points, pays):
    """A hand whose points the bank knows (all face up, or an announced 7½)."""
    pmf = [0.0] * 15
    if points == NATURAL:
        return View(stake, pmf, 1.0, 0.0, pays)
    pmf[points] = 1.0
    return View(stake, pmf)


def hidden_view(stake, shown, weights):
    """A hand with one hidden card whose value has ``weights`` (``hidden_card_weights``),
    and ``shown`` points face up."""
    pmf = [0.0] * 15
    total = sum(weights.values())
    for h, w in weights.items():
        pmf[shown + h] += w / total
    return View(stake, pmf)


def seven_and_card_view(stake, pool, pays):
    """A 7 with a card face down under it (fusilado, muerto): 7½ if the card is a half,
    bust otherwise; the card is one the bank has not seen."""
    unseen = sum(pool[h] for h in VALUES)
    natural = pool[1] / unseen if unseen else 0.0
    return View(stake, [0.0] * 15, natural, 1.0 - natural, pays)


def bank_should_draw(points, views, pool, profile, chasing):
    """The bank's decision: True to draw, False to stand.

    Args:
        points: the bank's points (half-points, below 15).
        views: a ``View`` for every bet still standing.
        pool: counts of unseen cards by half-point value (list of 15).
        profile: the table's ``Profile`` (``bank_draws_below``, multipliers).
        chasing: ``bank_chases_natural`` is on and a seat announced 7½ or fusiló.
    Returns:
        bool. Obliged: below ``bank_draws_below`` (or below 7½ when chasing) it draws; at
        or above ``bank_draws_below`` it stands. Free: it draws when the expected result
        of drawing (then playing on as well, the next cards from ``pool`` with
        replacement) is above that of standing. [rules.md "The bank's turn"]
    """
    limit = NATURAL if chasing else profile.bank_draws_below
    if limit is not None:
        return points < limit
    stand, bust = _stand_values(views, profile)
    unseen = sum(pool[h] for h in VALUES)
    if not unseen:
        return False
    draws = [(h, pool[h] / unseen) for h in VALUES if pool[h]]
    value = [0.0] * 16
    value[NATURAL] = stand[NATURAL]
    for b in range(NATURAL - 1, points - 1, -1):
        draw = 0.0
        for h, q in draws:
            draw += q * (value[b + h] if b + h <= NATURAL else bust)
        if b == points:
            return draw > stand[b]
        value[b] = max(stand[b], draw)
    return False  # pragma: no cover - the loop returns at b == points


def _stand_values(views, profile):
    """The bank's expected result (cents) if it stands on each total 0 … 15, and if it
    busts: ``(list of 16, float)``. [rules.md "Settlement of one bet"]"""
    below = [0.0] * 15  # stake-weighted probability of each total below 7½
    base = 0.0  # sum of s (2·bust − 1 − (pays − 1)·natural): the value at total 0
    at_natural = 0.0
    bust_value = 0.0
    collects, vs_natural = profile.bank_natural_collects, profile.bank_natural_vs_natural
    for v in views:
        s, pmf, nat, bust = v.stake, v.pmf, v.natural, v.bust
        for p in range(15):
            if pmf[p]:
                below[p] += s * pmf[p]
        base += s * (2 * bust - 1 - (v.pays - 1) * nat)
        at_natural += s * (collects * (1 - nat - bust) + vs_natural * nat + bust)
        bust_value += s * (2 * bust - 1 - (v.pays - 1) * nat)
    stand = [0.0] * 16
    cumulative = 0.0
    for b in range(15):
        cumulative += below[b]
        stand[b] = base + 2 * cumulative
    stand[NATURAL] = at_natural
    return stand, bust_value


# ---------------------------------------------------------------------------------------
# Playing hands


class HandResult:
    """One simulated hand, settled.

    Attributes:
        bank_result: the bank's result in cents, before commission (``Settlement``).
        commission: the house's commission in cents.
        bets: ``(seat position from 1, stake cents, bank's result on it in cents)`` per bet.
        cards: with ``observe``, the cards as they left the stock: ``(kind, who, code,
            stock)`` where kind is ``"first"`` (initial deal) or ``"draw"`` (any later
            card: drawn, exchanged for a 4, under a fusilado or muerto 7), who is the seat
            position from 1, ``"bank"`` or ``"loca"``, and stock the counts by rank (in
            ``RANKS`` order) of the stock it came from (None for the initial deal: the
            whole deck). Otherwise None.
        bank_points: the bank's final points (half-points).
        record: with ``record``, the hand as a hand record (``hand-record.md``: seats
            ``s1`` …, the bank ``banca``, stakes in units of 1.00); otherwise None.
    """

    __slots__ = ("bank_result", "commission", "bets", "cards", "bank_points", "record")

    def __init__(self, bank_result, commission, bets, cards, bank_points, record=None):
        self.bank_result, self.commission, self.bets = bank_result, commission, bets
        self.cards, self.bank_points, self.record = cards, bank_points, record


class _Table:
    """The fixed parts of a simulated table: profile, strategy, seats, deck."""

    def __init__(self, profile, strategy, seats, deck):
        if not 1 <= seats <= 9:
            raise ValueError(f"seats: 1 to 9, not {seats!r}")
        self.profile = profile
        self.strategy = strategy
        self.seat_ids = list(SEAT_IDS[:seats])
        self.position = {sid: i + 1 for i, sid in enumerate(self.seat_ids)}
        self.deck_arg = None if deck is None else frozenset(deck)
        self.deck = sorted(DECKS[profile.deck] if deck is None else self.deck_arg)
        if len(self.deck) < seats + 1 + profile.loca:
            raise ValueError(f"deck: {len(self.deck)} cards are too few to deal {seats} seats and the bank")
        self.deck_values = [0] * 15
        for code in self.deck:
            self.deck_values[CARD_POINTS[code]] += 1
        self.exchanges = (profile.exchange_fours == "mandatory"
                          or profile.exchange_fours == "optional" and strategy.exchange_fours == "always")
        self.max_hands = profile.max_hands_for(seats)
        self.fusilar = profile.fusilar and strategy.fusilar
        self.muerto = profile.muerto and strategy.muerto
        self.split = strategy.split and self.max_hands != 1
        self.one_card_units = one_card_units(profile, strategy)


class _Abandon(Exception):
    """The stock ran out with nothing to shuffle back and the hand cannot go on."""


def play_hands(rules, *, seats, hands, rng, strategy=None, deck=None, observe=False, rig=None,
               record=False):
    """Play and settle ``hands`` hands; yield a ``HandResult`` for each.

    Args:
        rules: the table's rules value or a ``Profile``.
        seats: seats at the table, 1 to 9 (all play every hand).
        hands: how many hands to yield.
        rng: a ``random.Random``, the only source of chance.
        strategy: a ``Strategy``; the profile's ``default_strategy`` when None.
        deck: card codes of a reduced deck (a subset of the profile's), or None.
        observe: record the cards as they leave the stock (``HandResult.cards``).
        record: keep each hand as a hand record (``HandResult.record``).
        rig: for tests of the audit: ``rig(rng, stock, order)`` may reorder the shuffled
            ``stock`` (a list of card codes) before the deal; the deal gives ``stock[-1]``
            to ``order[0]``, ``stock[-2]`` to ``order[1]`` …, the bank (last in
            ``order``) gets ``stock[-len(order)]``; later cards come from the end.
    Yields:
        HandResult. A hand in which the stock runs out with nothing to shuffle back and
        someone obliged to draw (practically never with 40 cards) is dealt again; the
        count of such hands is the generator's return value.
    Raises:
        AssertionError: the engine refused an event the strategy chose (a bug).
    """
    profile = rules if isinstance(rules, Profile) else Profile.from_rules(rules)
    strategy = default_strategy(profile) if strategy is None else strategy
    table = _Table(profile, strategy, seats, deck)
    abandoned = 0
    played = 0
    while played < hands:
        try:
            result = _play(table, rng, observe, rig, record)
        except _Abandon:
            abandoned += 1
            if abandoned > 1000 + hands:
                raise RuntimeError("the stock runs out in nearly every hand: the deck is too small") from None
            continue
        played += 1
        yield result
    return abandoned


def _play(table, rng, observe, rig, record):
    profile, strategy = table.profile, table.strategy
    state = HandState(profile, UNIT_CENTS, MAX_CENTS, BANK_PLAYER, table.seat_ids, deck=table.deck_arg)
    stock = list(table.deck)
    rng.shuffle(stock)
    order = state.order
    if rig is not None:
        rig(rng, stock, tuple(order))
    position = table.position
    cards = [] if observe else None
    events = [] if record else None
    apply = state.apply

    def emit(event):
        try:
            apply(event)
        except IllegalEvent as error:
            raise AssertionError(f"the engine refused {event}: {error.message}") from error
        if events is not None:
            events.append(event)

    def take(who):
        """The next card from the stock (after a shuffle if it ran out), or None."""
        if not stock:
            if state.live_count < len(table.deck):  # pragma: no cover - stock mirrors the state
                raise AssertionError("the simulated stock and the engine's disagree")
            try:
                apply({"do": "shuffle"})
            except IllegalEvent:
                return None
            if events is not None:
                events.append({"do": "shuffle"})
            live = state.live
            stock.extend(c for c in table.deck if c not in live)
            rng.shuffle(stock)
        if observe:
            counts = [0] * len(RANKS)
            for c in stock:
                counts[_RANK_INDEX[CARD_RANK[c]]] += 1
            code = stock.pop()
            cards.append(("draw", position.get(who, who), code, tuple(counts)))
            return code
        return stock.pop()

    for who in order:
        code = stock.pop()
        if observe:
            cards.append(("first", position.get(who, who), code, None))
        emit({"do": "deal", "seat": who, "card": CARD_NAME[code]})

    stand_at = strategy.stand_at
    unit = UNIT_CENTS
    while not state.over:
        pair = state.pair_split
        if pair is not None and table.split:  # a pair over 7½ just drawn
            emit({"do": "split", "seat": pair[0]})
            continue
        who = state.actor
        if who == BANK_ID:
            if not state.anything_standing():
                break
            _bank_turn(state, table, take, emit)
            continue
        if who == LOCA_ID:
            emit({"do": "stand", "seat": LOCA_ID})
            continue
        seat = state.seat(who)
        hand = seat.hands[seat.current]
        cards_ = hand.cards
        lone = len(cards_) == 1 and hand.number == 1
        if hand.stake == 0:
            if (table.exchanges and lone and not seat.acted and seat.exchanges < MAX_EXCHANGES
                    and CARD_RANK[cards_[0]] == 4):
                # The 4 goes back into the stock first, anywhere in it: it may come again.
                stock.insert(rng.randrange(len(stock) + 1), cards_[0])
                code = take(who)
                if code is None:
                    raise _Abandon
                emit({"do": "exchange", "seat": who, "card": CARD_NAME[code]})
            elif table.muerto and lone and CARD_RANK[cards_[0]] == 7:
                emit({"do": "bet", "seat": who, "amount": 2 * unit // 100})
                code = take(who)
                if code is None:
                    raise _Abandon
                emit({"do": "muerto", "seat": who, "card": CARD_NAME[code], "amount": unit // 100})
            elif (len(cards_) == 1 and CARD_POINTS[cards_[0]] >= stand_at
                  and not (table.fusilar and lone and CARD_RANK[cards_[0]] == 7)):  # it stands on it
                emit({"do": "bet", "seat": who, "amount": table.one_card_units * unit // 100})
            else:
                emit({"do": "bet", "seat": who, "amount": unit // 100})
            continue
        if table.fusilar and lone and hand.kind == "normal" and CARD_RANK[cards_[0]] == 7:
            code = take(who)
            if code is None:
                raise _Abandon
            emit({"do": "fusilar", "seat": who, "card": CARD_NAME[code]})
            continue
        if hand.split_ready and table.split and (table.max_hands is None or len(seat.hands) < table.max_hands):
            emit({"do": "split", "seat": who})
            continue
        if hand.points < stand_at:
            code = take(who)
            if code is not None:
                emit({"do": "card", "seat": who, "card": CARD_NAME[code]})
                continue
        emit({"do": "stand", "seat": who})

    settlement = settle(state)
    bets = tuple((position[b.seat], b.stake, -b.net) for b in settlement.bets)
    hand_record = None
    if record:
        hand_record = {"format": FORMAT, "rules": profile.rules, "min_bet": format_cents(UNIT_CENTS),
                       "max_bet": format_cents(MAX_CENTS), "bank": BANK_PLAYER, "seats": list(table.seat_ids),
                       "events": events}
    return HandResult(settlement.bank_result, settlement.commission, bets,
                      None if cards is None else tuple(cards), state.bank.points, hand_record)


def _bank_turn(state, table, take, emit):
    """The bank plays to the end: obliged where the rules say, else at the strategy's
    ``bank_stand_at`` when it has one, else ``bank_should_draw`` on what it sees before
    each card."""
    profile = table.profile
    bank = state.bank
    chasing = profile.bank_chases_natural and state.announced
    free = profile.bank_draws_below is None and not chasing
    bank_stand_at = table.strategy.bank_stand_at
    while bank.status == "playing":
        if free and bank_stand_at is not None:
            draw = bank.points < bank_stand_at
        elif free:
            views, pool = bank_sight(state, table)
            draw = bank_should_draw(bank.points, views, pool, profile, False)
        else:
            draw = bank.points < (NATURAL if chasing else profile.bank_draws_below)
        if draw:
            code = take(BANK_ID)
            if code is not None:
                emit({"do": "card", "seat": BANK_ID, "card": CARD_NAME[code]})
                continue
            if not free:
                raise _Abandon
        emit({"do": "stand", "seat": BANK_ID})


def bank_sight(state, table):
    """What the bank sees at its turn: ``(views, pool)``.

    ``views``: a ``View`` for every bet still standing; ``pool``: counts by half-point
    value of the cards the bank has not seen (the stock and the hidden cards). See the
    module's docstring for what is visible under ``face_up``.
    """
    profile, strategy = table.profile, table.strategy
    pool = list(table.deck_values)
    seen = []
    hidden = []
    first_only = profile.natural_pays_first_only
    natural_seen = False
    for seat in state.seats:
        split_seat = len(seat.hands) > 1 and seat.hands[1].kind == "normal"
        for hand in seat.hands:
            if hand.returned:
                continue
            cards = hand.cards
            kind = hand.kind
            if kind in (FUSILADO, MUERTO_CARD):
                seen.append(cards[0])
                pays = profile.fusilar_pays if kind == FUSILADO else (
                    1 if first_only and natural_seen else profile.natural_pays)
                hidden.append((hand.stake, "seven", pays))
                continue
            if kind == MUERTO_SEVEN:  # its 7 is also the muerto card hand's first card
                hidden.append((hand.stake, "known", hand.points, profile.natural_pays))
                continue
            if hand.status == BUST or hand.points == NATURAL or hand.down < 0:
                seen.extend(cards)
                if hand.status != BUST:
                    pays = profile.natural_pays
                    if hand.points == NATURAL:
                        if first_only and natural_seen:
                            pays = 1
                        natural_seen = True
                    hidden.append((hand.stake, "known", hand.points, pays))
                continue
            visible = [CARD_POINTS[c] for i, c in enumerate(cards) if i != hand.down]
            seen.extend(c for i, c in enumerate(cards) if i != hand.down)
            exclude = set()
            if hand.number == 1 and split_seat:  # its hidden first card had the split card's points
                split_value = CARD_POINTS[seat.hands[1].cards[0]]
                exclude.update(h for h in VALUES if h != split_value)
            elif hand.number == 1 and table.split and visible and (visible[0] == 1 or profile.split_pairs):
                exclude.add(visible[0])  # else it would have split
            if hand.number == 1 and table.exchanges and seat.exchanges < MAX_EXCHANGES:
                exclude.add(8)
            if not visible and hand.number == 1 and (table.fusilar or table.muerto):
                exclude.add(14)
            hidden.append((hand.stake, "hidden", visible, exclude))
    for code in seen:
        pool[CARD_POINTS[code]] -= 1
    for code in state.bank.cards:
        pool[CARD_POINTS[code]] -= 1
    loca = state.loca
    if loca is not None and not loca.returned:
        for i, code in enumerate(loca.cards):
            if i != loca.down:
                pool[CARD_POINTS[code]] -= 1
    stand_at = strategy.stand_at
    views = []
    for item in hidden:
        stake, what = item[0], item[1]
        if what == "seven":
            views.append(seven_and_card_view(stake, pool, item[2]))
        elif what == "known":
            views.append(known_view(stake, item[2], item[3]))
        else:
            visible, exclude = item[2], item[3]
            shown, last = sum(visible), (visible[-1] if visible else None)
            views.append(hidden_view(stake, shown, hidden_card_weights(shown, last, pool, stand_at, exclude)))
    return views, pool


# ---------------------------------------------------------------------------------------
# The estimate


class _Tally:
    """Running sums over hands (exact integers where the figures are cents)."""

    __slots__ = ("hands", "abandoned", "bets", "stake", "result", "result2", "cross", "stake2",
                 "unit_sum", "unit_sum2", "bet_sum", "bet_sum2", "pair_sum", "pair_count",
                 "bank_wins", "commission")

    def __init__(self):
        for name in self.__slots__:
            setattr(self, name, 0)
        for name in ("unit_sum", "unit_sum2", "bet_sum", "bet_sum2", "pair_sum"):
            setattr(self, name, 0.0)

    def add(self, hand):
        r = hand.bank_result
        s = 0
        inner = inner2 = 0.0
        for _position, stake, result in hand.bets:
            s += stake
            x = result / stake
            inner += x
            inner2 += x * x
            if result > 0:
                self.bank_wins += 1
        k = len(hand.bets)
        self.hands += 1
        self.bets += k
        self.stake += s
        self.result += r
        self.result2 += r * r
        self.cross += r * s
        self.stake2 += s * s
        u = r / s
        self.unit_sum += u
        self.unit_sum2 += u * u
        self.bet_sum += inner
        self.bet_sum2 += inner2
        self.pair_sum += inner * inner - inner2
        self.pair_count += k * (k - 1)
        self.commission += hand.commission

    def merge(self, other):
        for name in self.__slots__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def _chunk(args):
    """One chunk of hands, for a worker process: ``(rules, seats, hands, seed, index,
    strategy, deck)`` -> ``_Tally``."""
    rules, seats, hands, seed, index, strategy, deck = args
    tally = _Tally()
    generator = play_hands(rules, seats=seats, hands=hands, rng=random.Random(f"{seed}/{index}"),
                           strategy=strategy, deck=deck)
    while True:
        try:
            tally.add(next(generator))
        except StopIteration as stop:
            tally.abandoned += stop.value or 0
            return tally


@dataclass(frozen=True)
class EdgeResult:
    """The bank's edge under one rule set, seat count and strategy (JSON-serialisable
    through ``as_dict``).

    Attributes:
        rules: the rules value as given (``{"profile": …, options…}``); ``profile`` its name.
        seats: seats at the simulated table, every one betting each hand.
        hands: hands settled; ``abandoned``: hands dealt again because the stock ran out.
        bets: bets settled; ``units_staked``: their stakes in units of ``unit_cents``.
        mean_per_unit: the bank's expected result per unit staked, before commission
            (positive: the bank wins); ``standard_error`` its standard error; ``ci95`` the
            95% confidence interval ``[low, high]`` (normal).
        sd_per_unit_hand: standard deviation of one hand's result per unit staked in it.
        sd_per_unit_bet: standard deviation of one bet's result per unit staked on it.
        within_hand_correlation: correlation of two bets' results in the same hand.
        bank_wins_bet: share of bets the bank won.
        commission_per_unit, bank_net_per_unit: the house's commission and the bank's
            result after it, per unit staked (``commission_rate``; stakes of 1.00).
        strategy: the ``Strategy``'s fields (``Strategy.as_dict``); ``strategy_text`` it in words.
        seed, chunk_hands: reproduce with the same seed, hands and chunk size.
        deck: the reduced deck's cards, or None for the profile's deck.
        method: how the figures were obtained, in words.
    """

    rules: dict
    profile: str
    seats: int
    hands: int
    abandoned: int
    bets: int
    units_staked: int
    unit_cents: int
    mean_per_unit: float
    standard_error: float
    ci95: list
    sd_per_unit_hand: float
    sd_per_unit_bet: float
    within_hand_correlation: float
    bank_wins_bet: float
    commission_per_unit: float
    bank_net_per_unit: float
    strategy: dict
    strategy_text: str
    seed: int
    chunk_hands: int
    deck: list | None
    method: str

    def as_dict(self):
        """Plain data (dicts, lists, numbers, strings) for JSON."""
        return asdict(self)


METHOD = ("Monte Carlo: hands played through the rules engine (game.hand) from a "
          "shuffled deck and settled by game.payouts.settle, seats and bank playing the "
          "documented strategy; mean = sum of the bank's results / sum of stakes; standard "
          "error by the delta method over hands; 95% interval = mean ± 1.96 standard errors.")


def bank_edge(rules, *, seats=4, hands=100_000, seed=0, strategy=None, deck=None, workers=1,
              chunk_hands=CHUNK_HANDS):
    """Estimate the bank's edge: its expected result per unit staked, with its spread.

    Args:
        rules: the table's rules value (``"reglamento"``, ``{"profile": …, "deck": …}``).
        seats: seats at the table, 1 to 9 (the edge depends on it: the bank replies to
            every hand at once).
        hands: hands to simulate (at least 2). About 10,000 hands per second per core.
        seed: an int; the same seed, hands and chunk size give the same figures.
        strategy: a ``Strategy``; the profile's ``default_strategy`` when None.
        deck: card codes of a reduced deck (tests; see ``edge_exact``), or None.
        workers: processes to use (the figures do not depend on it).
        chunk_hands: hands per chunk, each chunk from its own seeded generator.
    Returns:
        EdgeResult.
    Raises:
        InvalidRules: the rules value is not valid.
        ValueError: seats, hands or the deck out of range.
    """
    profile = Profile.from_rules(rules)
    strategy = default_strategy(profile) if strategy is None else strategy
    if type(hands) is not int or hands < 2:
        raise ValueError(f"hands: a whole number of at least 2, not {hands!r}")
    if not 1 <= seats <= 9:
        raise ValueError(f"seats: 1 to 9, not {seats!r}")
    deck_list = None if deck is None else sorted(set(deck))
    jobs = []
    left, index = hands, 0
    while left:
        n = min(left, chunk_hands)
        jobs.append((rules, seats, n, seed, index, strategy, deck_list))
        left -= n
        index += 1
    tally = _Tally()
    if workers > 1 and len(jobs) > 1:
        from multiprocessing import get_context

        with get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            for part in pool.map(_chunk, jobs):
                tally.merge(part)
    else:
        for job in jobs:
            tally.merge(_chunk(job))
    return _result(rules, profile, seats, strategy, seed, chunk_hands, deck_list, tally)


def _result(rules, profile, seats, strategy, seed, chunk_hands, deck, t):
    n = t.hands
    mean = t.result / t.stake
    # Delta method: var(sum R / sum S) ≈ sum (R - mean S)² / (sum S)², with n/(n-1).
    squares = t.result2 - 2 * mean * t.cross + mean * mean * t.stake2
    se = math.sqrt(max(squares, 0.0) * n / (n - 1)) / t.stake
    unit_mean = t.unit_sum / n
    sd_hand = math.sqrt(max(t.unit_sum2 - n * unit_mean * unit_mean, 0.0) / (n - 1))
    bet_mean = t.bet_sum / t.bets
    bet_var = max(t.bet_sum2 - t.bets * bet_mean * bet_mean, 0.0) / (t.bets - 1)
    correlation = 0.0
    if t.pair_count and bet_var:
        correlation = (t.pair_sum / t.pair_count - bet_mean * bet_mean) / bet_var
    commission = t.commission / t.stake
    return EdgeResult(
        rules=rules if isinstance(rules, dict) else {"profile": rules}, profile=profile.name, seats=seats,
        hands=n, abandoned=t.abandoned, bets=t.bets, units_staked=t.stake // UNIT_CENTS,
        unit_cents=UNIT_CENTS, mean_per_unit=mean, standard_error=se,
        ci95=[mean - _Z95 * se, mean + _Z95 * se], sd_per_unit_hand=sd_hand,
        sd_per_unit_bet=math.sqrt(bet_var), within_hand_correlation=correlation,
        bank_wins_bet=t.bank_wins / t.bets, commission_per_unit=commission,
        bank_net_per_unit=mean - commission, strategy=strategy.as_dict(),
        strategy_text=describe_strategy(profile, strategy), seed=seed, chunk_hands=chunk_hands,
        deck=None if deck is None else [CARD_NAME[c] for c in deck], method=METHOD)


def hand_variance(stakes, sd_per_unit_bet, within_hand_correlation):
    """The variance of a hand's result (cents²) from its bets' stakes.

    ``sd² · (Σ s_i² + ρ · Σ_{i≠j} s_i s_j)`` with ``sd`` the edge's ``sd_per_unit_bet``
    and ρ its ``within_hand_correlation``.

    Args:
        stakes: the stakes of the hand's bets (any unit; the variance is in that unit²).
    """
    total = sum(stakes)
    squares = sum(s * s for s in stakes)
    return sd_per_unit_bet ** 2 * (squares + within_hand_correlation * (total * total - squares))


#: A threshold next to the fitted one is plausible (``plausible_thresholds``) when at least
#: this share of the choices at the total between them went its way, out of at least
#: ``FEW_CHOICES`` choices there (fewer show nothing: the sampling's band, wide on so few
#: hands, covers them).
MINORITY = 0.25
FEW_CHOICES = 5
#: The plausible range reaches at most this many half-points either side of the fit.
MAX_STEPS = 2
#: The bank is taken to play a fixed threshold where free only when the threshold agrees
#: with this much larger a share of its free choices than the best reply does.
BANK_THRESHOLD_MARGIN = 0.02


def plausible_thresholds(best, draws, stands):
    """The thresholds the observed choices do not tell apart from ``best``: from ``best``
    outwards, one half-point at a time (at most ``MAX_STEPS``), while the choices at the
    total in between are mixed: at least ``FEW_CHOICES`` of them, and at least
    ``MINORITY`` of those the neighbour's way (standing there for a lower threshold,
    drawing for a higher one).

    Args:
        best: the fitted threshold (half-points).
        draws, stands: the choices counted per total (lists indexed by half-points).
    Returns:
        list of thresholds (half-points), ascending, ``best`` among them.
    """
    out = [best]
    t = best
    while t > 1 and best - t < MAX_STEPS:
        n = draws[t - 1] + stands[t - 1]
        if n < FEW_CHOICES or stands[t - 1] < MINORITY * n:
            break
        t -= 1
        out.insert(0, t)
    t = best
    while t < NATURAL and t - best < MAX_STEPS:
        n = draws[t] + stands[t]
        if n < FEW_CHOICES or draws[t] < MINORITY * n:
            break
        t += 1
        out.append(t)
    return out


def _threshold_fit(draws, stands, prefer=None):
    """The threshold agreeing with the most choices (on a tie ``prefer`` if it is among
    them, else the lowest), its agreement, the choices per total and the plausible range
    (``plausible_thresholds``)."""
    total = sum(draws) + sum(stands)
    if not total:
        return {"stand_at": None, "agreement": None, "choices": 0, "by_points": [], "plausible": []}
    best, best_agree = None, -1
    for t in range(1, NATURAL + 1):
        agree = sum(draws[:t]) + sum(stands[t:])
        if agree > best_agree or (agree == best_agree and t == prefer):
            best, best_agree = t, agree
    return {"stand_at": best, "agreement": best_agree / total, "choices": total,
            "by_points": [[p, draws[p], stands[p]] for p in range(NATURAL) if draws[p] or stands[p]],
            "plausible": plausible_thresholds(best, draws, stands)}


def observed_stand_at(records, prefer=None):
    """The threshold that best describes how the seats played in some hand records: for
    an edge that expects what the players at a table actually do.

    Every choice of a seat's hand between drawing and standing (a ``card`` or ``stand``
    event of a seat, on a hand with a stake whose cards are all known) is counted by the
    hand's points; the threshold is the ``stand_at`` that agrees with the most of them
    (draw below it, stand at or above it; on a tie ``prefer`` if it is among them, else
    the lowest: a few hands may show no choice at some totals).

    Args:
        records: hand records (``hand-record.md``), valid.
        prefer: a threshold (half-points) to keep on a tie, e.g. the profile's default.
    Returns:
        dict: ``stand_at`` (half-points, or None without any choice), ``agreement`` (the
        share of choices it agrees with), ``choices``, ``by_points``: ``[points,
        draws, stands]`` per half-point total seen, and ``plausible``: the thresholds the
        choices do not tell apart from it (``plausible_thresholds``; [] without choices).
    Raises:
        IllegalEvent: a record is not valid.
    """
    draws = [0] * 16
    stands = [0] * 16
    for record in records:
        state = read_header(record)
        for event in record["events"]:
            do = event.get("do") if type(event) is dict else None
            if do in ("card", "stand") and event.get("seat") not in (BANK_ID, LOCA_ID) and state.phase == PLAY:
                hand = state.current_hand()
                if (hand is not None and hand.kind == NORMAL and not hand.unknown and hand.stake
                        and hand.points < NATURAL):
                    (stands if do == "stand" else draws)[hand.points] += 1
            state.apply(event)
    return _threshold_fit(draws, stands, prefer)


#: The seats' options ``observed_options`` counts: the event that uses each.
OPTIONS = ("split", "exchange", "fusilar", "muerto")


def observed_options(records):
    """How often the seats used each option the rules offered them, in some hand records.

    A seat is offered an option in a hand when, at one of its turns, ``HandState.legal()``
    offers it (``split`` or a ``pair_split`` of its hand, an ``exchange`` that is not
    obliged, ``fusilar``, ``muerto``); it used it when it made that event in the hand.

    Args:
        records: hand records (``hand-record.md``), valid.
    Returns:
        dict ``{option: [offered, used]}`` for each of ``OPTIONS`` (counts of seats ×
        hands).
    Raises:
        IllegalEvent: a record is not valid.
    """
    counts = {name: [0, 0] for name in OPTIONS}
    for record in records:
        state = read_header(record)
        profile = state.profile
        possible = {name for name, on in (("split", profile.max_hands != 1),
                                          ("exchange", profile.exchange_fours == "optional"),
                                          ("fusilar", profile.fusilar), ("muerto", profile.muerto)) if on}
        offered, used, asked = set(), set(), set()
        for event in record["events"]:
            do = event.get("do") if type(event) is dict else None
            seat = event.get("seat") if type(event) is dict else None
            if seat not in (None, BANK_ID, LOCA_ID) and state.phase == PLAY and possible:
                pair = state.pair_split
                if pair is not None and pair[0] == seat:
                    offered.add((seat, "split"))
                hand = state.current_hand()
                # legal() is dear: asked only where an option may be offered (a lone 4 or 7, a
                # split ready), once per state of the hand (its cards, before and after its stake).
                cards = () if hand is None else hand.cards
                maybe = (hand is not None and state.actor == seat
                         and ((len(cards) == 1 and cards[0] is not None and CARD_RANK[cards[0]] in (4, 7))
                              or hand.split_ready))
                key = (seat, hand.number, len(cards), bool(hand.stake)) if maybe else None
                if maybe and key not in asked and any((seat, name) not in offered for name in possible):
                    asked.add(key)
                    legal = state.legal()
                    if legal.split:
                        offered.add((seat, "split"))
                    if legal.exchange and not legal.exchange_required:
                        offered.add((seat, "exchange"))
                    if legal.fusilar:
                        offered.add((seat, "fusilar"))
                    if legal.muerto:
                        offered.add((seat, "muerto"))
                if do in OPTIONS:
                    used.add((seat, do))
            state.apply(event)
        for seat, name in offered:
            counts[name][0] += 1
            counts[name][1] += (seat, name) in used
    return counts


def observed_bank_stand_at(records, strategy=None, prefer=None):
    """How the bank played in some hand records where the rules left it free: the
    threshold that best describes its choices, and how often the best reply to what it
    saw (``bank_should_draw`` on ``bank_sight``, the seats playing ``strategy``) agrees.

    Every ``card`` or ``stand`` of the bank while it is free (no ``bank_draws_below``,
    not chasing a 7½) is counted by its points, as ``observed_stand_at`` counts the seats'.

    Args:
        records: hand records (``hand-record.md``), valid.
        strategy: the seats' ``Strategy`` the bank replies to (the profile's default when
            None); the reply is weighed only with it.
        prefer: the threshold kept on a tie (as ``observed_stand_at``).
    Returns:
        dict: as ``observed_stand_at`` (``stand_at`` the bank's threshold, ``agreement``,
        ``choices``, ``by_points``, ``plausible``) and ``reply_agreement``: the share of
        the same choices the best reply agrees with (None without choices).
    Raises:
        IllegalEvent: a record is not valid.
    """
    draws = [0] * 16
    stands = [0] * 16
    replies = 0
    tables = {}
    for record in records:
        state = read_header(record)
        profile = state.profile
        for event in record["events"]:
            do = event.get("do") if type(event) is dict else None
            if (do in ("card", "stand") and event.get("seat") == BANK_ID and state.phase == PLAY
                    and state.actor == BANK_ID and profile.bank_draws_below is None
                    and not (profile.bank_chases_natural and state.announced)
                    and state.bank.points < NATURAL):
                points = state.bank.points
                (stands if do == "stand" else draws)[points] += 1
                key = (profile, len(state.seats))
                if key not in tables:
                    tables[key] = _Table(profile, strategy or default_strategy(profile), min(len(state.seats), 9),
                                         None)
                views, pool = bank_sight(state, tables[key])
                replies += bank_should_draw(points, views, pool, profile, False) == (do == "card")
            state.apply(event)
    fit = _threshold_fit(draws, stands, prefer)
    fit["reply_agreement"] = replies / fit["choices"] if fit["choices"] else None
    return fit


def fit_strategy(records, profile=None):
    """The strategy that describes how a table was played, from its hand records: the
    seats' threshold (``observed_stand_at``), the options they used (``observed_options``:
    an option used in more than half the hands it was offered is on), and the bank's play
    where free (``observed_bank_stand_at``: a fixed threshold when it agrees with more of
    its choices than the best reply does by ``BANK_THRESHOLD_MARGIN``, else the best
    reply). What nothing shows is the profile's default (``one_card_units`` always; the
    default threshold where thresholds tie).

    Args:
        records: hand records (``hand-record.md``) of one rule set, valid (a list or any
            iterable; read twice).
        profile: the records' ``Profile`` or rules value (default: the first record's).
    Returns:
        dict: ``strategy`` (the fitted ``Strategy``), ``neighbours`` (the ``Strategy``s of
        the plausible thresholds but the fit's, the seats' and the bank's each varied
        alone: the fit's uncertainty), ``seats`` (``observed_stand_at``'s), ``options``
        (``observed_options``'s), ``bank`` (``observed_bank_stand_at``'s), ``hands``
        (records read).
    Raises:
        IllegalEvent: a record is not valid.
        ValueError: no records and no profile.
    """
    records = list(records)
    if profile is None:
        if not records:
            raise ValueError("fit_strategy: no records and no profile")
        profile = records[0]["rules"]
    if not isinstance(profile, Profile):
        profile = Profile.from_rules(profile)
    base = default_strategy(profile)
    seats = observed_stand_at(records, prefer=base.stand_at)
    options = observed_options(records)

    def on(name, default):
        offered, used = options[name]
        return used * 2 > offered if offered else default

    exchange = base.exchange_fours
    if options["exchange"][0]:
        exchange = "always" if on("exchange", False) else "mandatory"
    seat_strategy = Strategy(stand_at=seats["stand_at"] or base.stand_at, fusilar=on("fusilar", base.fusilar),
                             exchange_fours=exchange, split=on("split", base.split), muerto=on("muerto", base.muerto),
                             one_card_units=base.one_card_units)
    bank = observed_bank_stand_at(records, seat_strategy)
    bank_stand_at = None
    if bank["choices"] and bank["agreement"] > bank["reply_agreement"] + BANK_THRESHOLD_MARGIN:
        bank_stand_at = bank["stand_at"]
    fitted = replace(seat_strategy, bank_stand_at=bank_stand_at)
    neighbours = []
    if seats["stand_at"] is not None:
        neighbours += [replace(fitted, stand_at=t) for t in seats["plausible"] if t != fitted.stand_at]
    if bank_stand_at is not None:
        neighbours += [replace(fitted, bank_stand_at=t) for t in bank["plausible"] if t != bank_stand_at]
    return {"strategy": fitted, "neighbours": neighbours, "seats": seats, "options": options, "bank": bank,
            "hands": len(records)}
