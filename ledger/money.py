"""Euros and cents at the ledger's boundary: the engine counts integer cents, the
database and the forms ``Decimal`` euros with two places. Never a float. (An amount shown
to a reader: ``casino.formatting.money``.)"""

from decimal import Decimal

CENT = Decimal("0.01")


def euros(cents):
    """Integer cents as ``Decimal`` euros: ``1050 -> Decimal("10.50")``.

    Raises:
        TypeError: if ``cents`` is not an int (a float or a bool is refused).
    """
    if isinstance(cents, bool) or not isinstance(cents, int):
        raise TypeError(f"cents is an int, not {cents!r}")
    return Decimal(cents).scaleb(-2)


def cents(amount):
    """``Decimal`` euros as integer cents: ``Decimal("10.50") -> 1050``.

    Raises:
        TypeError: if ``amount`` is not a Decimal or int (a float is refused).
        ValueError: if ``amount`` has more than two decimals or is not finite.
    """
    if isinstance(amount, bool) or not isinstance(amount, Decimal | int):
        raise TypeError(f"an amount is a Decimal of euros, not {amount!r}")
    amount = Decimal(amount)
    if not amount.is_finite() or amount != amount.quantize(CENT):
        raise ValueError(f"an amount has at most two decimals, not {amount}")
    return int(amount.scaleb(2))
