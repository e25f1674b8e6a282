"""The console's stake as a dealer types it: a decimal comma or point, and, as at the cage,
thousands grouped in the reader's format."""
from decimal import Decimal

import pytest
from django import forms
from django.utils import translation

from tables.forms.console import parse_stake


@pytest.mark.parametrize(("typed", "stake"), [
    ("10", "10.00"), ("12,50", "12.50"), ("12.50", "12.50"), ("12,5 €", "12.50"),
    ("1.000,50", "1000.50"), ("1 000,50", "1000.50"), ("1\xa0000", None)])
def test_a_stake_is_read_as_the_dealer_writes_it(typed, stake):
    with translation.override("es"):
        if stake is None:
            with pytest.raises(forms.ValidationError):
                parse_stake(typed)
        else:
            assert parse_stake(typed) == Decimal(stake)


@pytest.mark.parametrize("typed", ["", "0", "1.000", "12.345", "doce", "1.00.0,5"])
def test_anything_else_is_refused_with_a_message(typed):
    with translation.override("es"), pytest.raises(forms.ValidationError) as refused:
        parse_stake(typed)
    assert refused.value.messages[0]
