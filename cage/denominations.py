"""Euro notes and coins, and a count by denomination. Pure Python (no Django).

A count maps a denomination, a string of euros with two places (``"50.00"``, ``"0.20"``),
to how many pieces were counted (an int, zero or more). [Regulation (EU) 1210/2010; the
ECB's series: notes of 5 to 500 €, coins of 1 cent to 2 €]
"""

from decimal import Decimal

#: Notes then coins, largest first, as strings of euros with two places.
NOTES = ("500.00", "200.00", "100.00", "50.00", "20.00", "10.00", "5.00")
COINS = ("2.00", "1.00", "0.50", "0.20", "0.10", "0.05", "0.02", "0.01")
DENOMINATIONS = NOTES + COINS
#: More pieces of one denomination than this is a typing error, not a drawer.
MAX_PIECES = 100_000


class InvalidCount(ValueError):
    """A count with an unknown denomination or a quantity that is not an int in range.

    Attributes: denomination (the one at fault or None).
    """

    def __init__(self, message, denomination=None):
        super().__init__(message)
        self.denomination = denomination


def clean_count(count: dict) -> dict:
    """The count with every denomination, in order, zeros included: ``{"500.00": 0, ...}``.

    Args:
        count: ``{denomination string: int pieces}``; denominations left out count zero.
    Raises:
        InvalidCount: an unknown denomination, a quantity not an int, negative or above
        ``MAX_PIECES``.
    """
    unknown = sorted(set(count) - set(DENOMINATIONS))
    if unknown:
        raise InvalidCount(f"unknown denomination {unknown[0]!r}", unknown[0])
    cleaned = {}
    for denomination in DENOMINATIONS:
        pieces = count.get(denomination, 0)
        if isinstance(pieces, bool) or not isinstance(pieces, int) or not 0 <= pieces <= MAX_PIECES:
            raise InvalidCount(f"{denomination}: {pieces!r} is not a number of pieces", denomination)
        cleaned[denomination] = pieces
    return cleaned


def count_total(count: dict) -> Decimal:
    """The euros a (clean) count adds up to, a ``Decimal`` with two places."""
    return sum((Decimal(denomination) * pieces for denomination, pieces in count.items()), Decimal("0.00"))
