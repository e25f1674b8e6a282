"""The base of every refusal a service raises: a Django ``ValidationError`` (a form shows
it on the field named by ``field``) whose message says what was refused and why.
Nothing was written. ``str(error)`` is the message."""

from django.core.exceptions import ValidationError


class Refusal(ValidationError):
    """A service's refusal; nothing was written.

    Attributes:
        field: the form field the refusal is about (``"amount"``, ``"player"``) or None.
    """

    code = "refused"

    def __init__(self, message, *, params=None, field=None):
        super().__init__(message, code=self.code, params=params)
        self.field = field

    def __str__(self):
        return " ".join(self.messages)
