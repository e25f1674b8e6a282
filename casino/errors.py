"""The base of every refusal a service raises: a Django ``ValidationError`` (a form shows
it on the field named by ``field``) whose message says what was refused and why.
Nothing was written. ``str(error)`` is the message."""

import functools

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


def attempts_recorded(service):
    """Decorate a service whose refusals may carry an attempt to keep (an exception with
    ``record_attempt()``: the cage's AML refusals, the patrons' admission refusals): the
    attempt is written after the service's own transaction was rolled back, then the
    refusal goes on to the caller.

    A service that calls a decorated one inside its own transaction rolls that record back
    too: its own wrapper finds it gone and writes it again (``record_attempt`` checks)."""

    @functools.wraps(service)
    def recorded(*args, **kwargs):
        try:
            return service(*args, **kwargs)
        except Refusal as refused:
            record = getattr(refused, "record_attempt", None)
            if record is not None:
                record()
            raise

    return recorded
