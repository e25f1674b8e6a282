"""The boxes' refusals: a ``ValidationError`` naming the field at fault; nothing written."""

from django.core.exceptions import ValidationError


class BoxError(ValidationError):
    """Base of every refusal of a boxes service.

    Attributes:
        field: the form field the refusal is about (``"second_counter"``, ``"amount"``) or None.
    """

    code = "boxes"

    def __init__(self, message, *, params=None, field=None):
        super().__init__(message, code=self.code, params=params)
        self.field = field

    def __str__(self):
        return " ".join(self.messages)
