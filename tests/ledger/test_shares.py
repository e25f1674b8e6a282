"""Splitting a bank's balance among its syndicate: to the cent, by largest remainder."""
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.shares import InvalidShares, split_by_shares


@st.composite
def percents(draw):
    """1 to 9 percentages with two decimals, each above 0, summing to exactly 100."""
    n = draw(st.integers(min_value=1, max_value=9))
    cuts = sorted(draw(st.lists(st.integers(min_value=1, max_value=9999), min_size=n - 1, max_size=n - 1,
                                unique=True)))
    bounds = [0, *cuts, 10000]
    return [Decimal(high - low).scaleb(-2) for low, high in zip(bounds, bounds[1:], strict=False)]


@given(total=st.integers(min_value=-10**12, max_value=10**12), shares=percents())
def test_parts_sum_to_the_total_and_each_is_within_a_cent_of_its_exact_share(total, shares):
    parts = split_by_shares(total, shares)
    assert len(parts) == len(shares)
    assert sum(parts) == total
    for part, percent in zip(parts, shares, strict=True):
        assert abs(Fraction(part) - Fraction(total) * Fraction(percent) / 100) < 1


@given(total=st.integers(min_value=0, max_value=10**9), shares=percents())
def test_a_negative_total_is_the_mirror_of_the_positive_one(total, shares):
    assert split_by_shares(-total, shares) == [-part for part in split_by_shares(total, shares)]


def test_largest_remainder_gives_the_left_over_cent_to_the_largest_fraction():
    # 100.00 in thirds: 33.33 each and one cent left over, to the first of the equal remainders.
    assert split_by_shares(10000, [Decimal("33.33"), Decimal("33.33"), Decimal("33.34")]) == [3333, 3333, 3334]
    # 1.00 by 50.5 / 49.5: exact 50.5 and 49.5 cents; remainders tie, the earlier share wins.
    assert split_by_shares(100, [Decimal("50.50"), Decimal("49.50")]) == [51, 49]
    # 0.10 by 10/20/70: exact 1, 2, 7 cents.
    assert split_by_shares(10, [Decimal(10), Decimal(20), Decimal(70)]) == [1, 2, 7]
    # 0.07 by 60/40: exact 4.2 and 2.8: the cent left over goes to the .8.
    assert split_by_shares(7, [Decimal(60), Decimal(40)]) == [4, 3]


@pytest.mark.parametrize("shares", [[], [Decimal(50), Decimal(49)], [Decimal(101), Decimal(-1)],
                                    [Decimal("33.333"), Decimal("66.667")], [100.0], [Decimal(0), Decimal(100)]])
def test_shares_that_do_not_make_a_syndicate_are_refused(shares):
    with pytest.raises(InvalidShares):
        split_by_shares(100, shares)


def test_a_float_total_is_refused():
    with pytest.raises(TypeError):
        split_by_shares(10.0, [Decimal(100)])
