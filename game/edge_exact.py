"""The bank's edge computed exactly, by enumeration, on a reduced deck: the check of the
simulation (``game.edge``).

Every order the cards can come in is weighed by its probability (a recursion over the
next card's value, without replacement, in exact fractions): the seats' initial cards and
the bank's, each seat's draws, the bank's. The game is written here again from rules.md
(points, who stands, who is paid what), independently of ``HandState`` and
``game.payouts.settle``; only the strategy is shared — the seats' threshold and the
bank's reply, ``edge.bank_should_draw`` on what ``edge``'s documented rules say the bank
sees — because the point is to check the simulation's machinery (deck, engine, settlement,
estimate) against the expectation of the very same strategy.

Scope: seats 1 to 9, each betting one unit; fusilar, muerto, exchanges, splits and la
loca are not played (the rules may have them on only where the strategy does not use
them; la loca must be off). The deck must be large enough for every hand to finish
without a shuffle. Units: the result per unit staked, before commission, as a
``Fraction``.
"""

from fractions import Fraction
from functools import cache

from game.cards import CARD_POINTS, NATURAL
from game.edge import (
    UNIT_CENTS,
    VALUES,
    bank_should_draw,
    default_strategy,
    hidden_card_weights,
    hidden_view,
    known_view,
)
from game.profiles import Profile


def exact_edge(rules, *, seats, deck, strategy=None):
    """The bank's exact expected result per unit staked on ``deck``.

    Args:
        rules: a rules value (as ``edge.bank_edge``).
        seats: seats at the table, 1 to 9, each betting one unit.
        deck: card codes (a subset of the profile's deck); only their points matter.
        strategy: an ``edge.Strategy``; the profile's default when None.
    Returns:
        Fraction: the bank's expected result per unit staked, before commission.
    Raises:
        ValueError: a rule or strategy outside the scope above, or a deck that can run
            out before a hand is finished.
    """
    profile = Profile.from_rules(rules)
    strategy = default_strategy(profile) if strategy is None else strategy
    if profile.loca:
        raise ValueError("exact_edge: la loca is not enumerated")
    if (profile.fusilar and strategy.fusilar or profile.muerto and strategy.muerto
            or profile.exchange_fours == "mandatory"
            or profile.exchange_fours == "optional" and strategy.exchange_fours == "always"
            or strategy.split and profile.max_hands_for(seats) != 1):
        raise ValueError("exact_edge: fusilar, muerto, exchanges and splits are not enumerated")
    if not 1 <= seats <= 9:
        raise ValueError(f"seats: 1 to 9, not {seats!r}")
    counts = [0] * len(VALUES)
    for code in set(deck):
        counts[VALUES.index(CARD_POINTS[code])] += 1
    stand_at = strategy.stand_at
    face_up = profile.face_up
    draws_below = profile.bank_draws_below
    chases = profile.bank_chases_natural
    stake = UNIT_CENTS

    def draw(counts, then):
        """Σ over the next card's value v of P(v) · then(counts without v, v)."""
        total = sum(counts)
        if not total:
            raise ValueError("exact_edge: the deck runs out before the hand is finished")
        expected = Fraction(0)
        for i, n in enumerate(counts):
            if n:
                rest = counts[:i] + (n - 1,) + counts[i + 1:]
                expected += Fraction(n, total) * then(rest, VALUES[i])
        return expected

    @cache
    def deal(counts, dealt):
        if len(dealt) == seats + 1:
            # A hand is (its initial card, the points of its other cards, the last of them
            # or None): all that the play, the bank's sight and the result depend on.
            return seat_turn(counts, tuple((v, 0, None) for v in dealt[:seats]), 0, dealt[seats])
        return draw(counts, lambda rest, v: deal(rest, dealt + (v,)))

    @cache
    def seat_turn(counts, hands, i, bank_card):
        if i == seats:
            return bank_turn(counts, hands, bank_card)
        first, others, _last = hands[i]
        if first + others >= stand_at:  # stands (7½ by itself; over 7½ bust)
            return seat_turn(counts, hands, i + 1, bank_card)
        return draw(counts, lambda rest, v: seat_turn(
            rest, hands[:i] + ((first, others + v, v),) + hands[i + 1:], i, bank_card))

    @cache
    def bank_turn(counts, hands, points):
        if points >= NATURAL or all(h[0] + h[1] > NATURAL for h in hands):
            return result(hands, points)
        chasing = chases and any(h[0] + h[1] == NATURAL for h in hands)
        if draws_below is None and not chasing:
            views, pool = sight(counts, hands)
            more = bank_should_draw(points, views, pool, profile, False)
        else:
            more = points < (NATURAL if chasing else draws_below)
        if more:
            return draw(counts, lambda rest, v: bank_turn(rest, hands, points + v))
        return result(hands, points)

    def sight(counts, hands):
        """What the bank sees: the unseen cards (the stock and the standing hands' face-down
        initial cards) and a view of each standing hand."""
        pool = [0] * 15
        for i, n in enumerate(counts):
            pool[VALUES[i]] += n
        for h in hands:
            if not face_up and h[0] + h[1] < NATURAL:
                pool[h[0]] += 1
        views = []
        earlier_natural = False
        for h in hands:
            points = h[0] + h[1]
            if points > NATURAL:
                continue
            if points == NATURAL:
                pays = 1 if profile.natural_pays_first_only and earlier_natural else profile.natural_pays
                earlier_natural = True
                views.append(known_view(stake, NATURAL, pays))
            elif face_up:
                views.append(known_view(stake, points, profile.natural_pays))
            else:
                views.append(hidden_view(stake, h[1], hidden_card_weights(h[1], h[2], pool, stand_at)))
        return views, pool

    def result(hands, bank):
        """The bank's result per unit staked, from rules.md's table (ties go to the bank)."""
        total = 0
        earlier_natural = False
        for h in hands:
            points = h[0] + h[1]
            natural = points == NATURAL
            pays = 1 if profile.natural_pays_first_only and earlier_natural else profile.natural_pays
            if natural:
                earlier_natural = True
            if points > NATURAL:
                total += 1
            elif bank == NATURAL:
                total += profile.bank_natural_vs_natural if natural else profile.bank_natural_collects
            elif bank > NATURAL or bank < points:
                total -= pays if natural else 1
            else:
                total += 1
        return Fraction(total, seats)

    return deal(tuple(counts), ())
