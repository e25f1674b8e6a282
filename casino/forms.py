"""What every desk's forms share: a service's refusal shown where the reader looks; amounts
and counts typed with the digits 0–9 only."""

from django import forms
from django.utils.translation import gettext_lazy as _

ASCII_DIGITS = frozenset("0123456789")


def refuse_other_digits(value) -> None:
    """Refuse a typed number written with digits other than 0–9.

    Python's ``Decimal`` and ``int`` read any Unicode decimal digit (a full-width "５", an
    Arabic-Indic "٥") as its value, so "５.00" would be booked as 5.00 and stored as typed.

    Args:
        value: what was typed (any value; only a ``str`` is looked at).
    Raises:
        forms.ValidationError: (code ``ascii_digits``) the text holds another digit.
    """
    if isinstance(value, str) and any(char.isdigit() and char not in ASCII_DIGITS for char in value):
        raise forms.ValidationError(_("Write the number with the digits 0 to 9: “%(value)s” has others."),
                                    code="ascii_digits", params={"value": value})


class AsciiIntegerField(forms.IntegerField):
    """``forms.IntegerField`` that refuses digits other than 0–9 (``refuse_other_digits``)."""

    def to_python(self, value):
        refuse_other_digits(value)
        return super().to_python(value)


def add_refusal(form, error, fields: dict | None = None) -> None:
    """Show a service's refusal on the form: on the field it names (``Refusal.field``, or
    each field of a ``ValidationError``'s ``message_dict``; ``fields`` renames a service's
    field to the form's), else above the form.

    Args:
        form: a bound Django form; error: the refusal (``casino.errors.Refusal`` or any
        ``ValidationError``).
    """
    fields = fields or {}
    if hasattr(error, "error_dict"):
        for name, messages in error.message_dict.items():
            name = fields.get(name, name)
            form.add_error(name if name in form.fields else None, messages)
        return
    name = getattr(error, "field", None)
    name = fields.get(name, name)
    form.add_error(name if name in form.fields else None, error)
