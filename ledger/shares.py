"""Splitting an amount of cents among a bank's syndicate by percentage shares.

Pure Python (no Django). A tenure's balance goes back to its syndicate by shares, rounded
to the cent by largest remainder. [seed 003: a bank owned by a team]
"""

from decimal import Decimal
from fractions import Fraction

HUNDRED = Decimal(100)


class InvalidShares(ValueError):
    """The percentages are not all above zero with at most two decimals, summing to 100."""


def check_percents(percents):
    """Refuse percentages that cannot describe a syndicate.

    Args:
        percents: a sequence of ``Decimal`` percentages (``Decimal("33.34")``).
    Raises:
        InvalidShares: if empty, if any is not a ``Decimal``/``int`` above zero with at
        most two decimals, or if they do not sum to exactly 100.
    """
    if not percents:
        raise InvalidShares("a syndicate needs at least one share")
    for percent in percents:
        if isinstance(percent, bool) or not isinstance(percent, Decimal | int):
            raise InvalidShares(f"a share is a Decimal percentage, not {percent!r}")
        percent = Decimal(percent)
        if not percent.is_finite() or percent <= 0 or percent > HUNDRED:
            raise InvalidShares(f"a share is above 0 and at most 100 percent, not {percent}")
        if percent != percent.quantize(Decimal("0.01")):
            raise InvalidShares(f"a share has at most two decimals, not {percent}")
    total = sum((Decimal(percent) for percent in percents), Decimal(0))
    if total != HUNDRED:
        raise InvalidShares(f"the shares sum to {total} percent, not 100")


def split_by_shares(total_cents, percents):
    """Split ``total_cents`` by percentage shares, to the cent, by largest remainder.

    Each part starts as its exact share rounded toward zero; the cents left over go one
    each to the parts with the largest remainders (ties: the earlier share first). A
    negative total (a bank that lost more than its capital) is split as its absolute
    value and every part negated.

    Args:
        total_cents: int, the amount to split, in cents (may be negative or zero).
        percents: sequence of ``Decimal`` percentages summing to 100 (see
            ``check_percents``).
    Returns:
        list[int]: one part in cents per share, in the order given; the parts sum to
        ``total_cents`` and each is within one cent of its exact share.
    Raises:
        InvalidShares: as ``check_percents``; TypeError if ``total_cents`` is not an int.
    """
    if isinstance(total_cents, bool) or not isinstance(total_cents, int):
        raise TypeError(f"total_cents is an int of cents, not {total_cents!r}")
    check_percents(percents)
    sign = -1 if total_cents < 0 else 1
    magnitude = abs(total_cents)
    exact = [Fraction(magnitude) * Fraction(Decimal(percent)) / 100 for percent in percents]
    parts = [int(share) for share in exact]  # floor: every share is non-negative
    left_over = magnitude - sum(parts)
    by_remainder = sorted(range(len(exact)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in by_remainder[:left_over]:
        parts[i] += 1
    return [sign * part for part in parts]
