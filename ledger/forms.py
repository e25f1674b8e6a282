"""An amount of euros as a reader types it in any form (``EurosField``): his language's
decimal mark and grouping, refused with an example rather than guessed."""

import re
from contextlib import contextmanager
from decimal import Decimal

from django import forms
from django.utils.formats import get_format
from django.utils.translation import gettext_lazy as _

from casino import formatting
from casino.forms import refuse_other_digits


def read_grouping(text):
    """``text`` as typed, with its thousands grouping taken out where it is well formed.

    A group separator is the reader's own (a no-break space in Spanish, as the site prints
    ``1 250,00 €``), a space, or the other one of point and comma (``1.250,50`` in Spanish,
    ``1,250.50`` in English).

    Args:
        text: what was typed in an amount field (``str``).
    Returns:
        ``str``: the amount without its grouping (``"1250,50"``, ``"1250.50"``), or ``text``
        stripped when it has none (``"12,50"``; ``"12.50"``, a decimal point, which Django
        accepts in every language).
    Raises:
        ``forms.ValidationError`` (code ``grouping``) when a group separator is there but not
        in groups of three followed by the cents: ``"1.250"`` in Spanish could be 1250 or
        1,25, so it is refused with an example rather than guessed.
    """
    text = text.strip()
    decimal = get_format("DECIMAL_SEPARATOR")
    separators = {get_format("THOUSAND_SEPARATOR"), " ", "\xa0", "\u202f", "," if decimal == "." else "."}
    separators.discard(decimal)
    used = {char for char in text if char in separators}
    if not used or (used == {"."} and re.fullmatch(r"[0-9]+\.[0-9]{1,2}", text)):
        return text
    if len(used) > 1:
        used = {None}  # mixed separators: refused below
    group = re.escape(used.pop() or "?")
    if not re.fullmatch(rf"[0-9]{{1,3}}(?:{group}[0-9]{{3}})+{re.escape(decimal)}[0-9]{{1,2}}", text):
        example = "1.250,50" if decimal == "," else "1,250.50"
        raise forms.ValidationError(
            _("Write the amount as %(example)s or %(plain)s: thousands in groups of three, then the cents."),
            code="grouping", params={"example": example, "plain": example.replace(example[1], "")})
    return re.sub(group, "", text)


#: An amount as Django's ``DecimalField`` should read it once its grouping is out: a sign,
#: digits and at most one decimal mark (a point or a comma), nothing else. ``Decimal`` alone
#: also reads an exponent (``1e5``), underscores (``1_000``), ``NaN`` and ``Infinity``.
_PLAIN_AMOUNT = re.compile(r"[+-]?(?:[0-9]+(?:[.,][0-9]*)?|[.,][0-9]+)")


class EurosField(forms.DecimalField):
    """An amount of euros above zero with at most two decimals, typed in the reader's format
    (``1250,50`` or ``1.250,50`` in Spanish; see ``read_grouping``), cleaned to a ``Decimal``.
    Below one cent it is refused with the least amount in the reader's format (``0,01 €``;
    Django's own message prints the limit as ``0.01`` in every language). Keyword arguments
    as ``forms.DecimalField``'s; the widget asks phones for the decimal keypad."""

    LEAST = Decimal("0.01")

    def __init__(self, **kwargs):
        kwargs.setdefault("label", _("Amount (€)"))
        kwargs.setdefault("widget", forms.TextInput(attrs={"inputmode": "decimal", "autocomplete": "off"}))
        super().__init__(max_digits=12, decimal_places=2, localize=True, **kwargs)
        self.error_messages["invalid"] = _("Enter an amount in euros, such as %(example)s.")

    def bound_data(self, data, initial):
        """What was typed, drawn again in the reader's format once it reads as an amount
        (``20.00`` from a link, or ``1.250,50``, shown as ``20,00`` and ``1250,50`` to a
        Spanish reader); anything else as typed, for him to correct."""
        if data in self.empty_values:
            return data
        try:
            value = self.to_python(data)
        except forms.ValidationError:
            return data
        return value if value is not None and value.is_finite() else data

    def to_python(self, value):
        refuse_other_digits(value)
        if isinstance(value, str):
            value = read_grouping(value)
            if value and not _PLAIN_AMOUNT.fullmatch(value):
                # Decimal would read "1e5" as 100000 and "1_000" as 1000: refused as words are.
                raise self._invalid()
        with self._example_on_invalid():
            return super().to_python(value)

    def _invalid(self):
        return forms.ValidationError(self.error_messages["invalid"], code="invalid",
                                     params={"example": f"1250{get_format('DECIMAL_SEPARATOR')}50"})

    @contextmanager
    def _example_on_invalid(self):
        """Django's "invalid" refusals (words, NaN, infinity) given the example they name."""
        try:
            yield
        except forms.ValidationError as error:
            if getattr(error, "code", None) != "invalid":
                raise
            raise self._invalid() from None

    def validate(self, value):
        with self._example_on_invalid():
            super().validate(value)
        if value is not None and value < self.LEAST:
            raise forms.ValidationError(_("Enter an amount of at least %(least)s."), code="min_value",
                                        params={"least": formatting.money(self.LEAST)})
