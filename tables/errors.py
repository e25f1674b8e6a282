"""The tables' refusals. Each is a Django ``ValidationError`` whose message says what was
refused and what to do; nothing was written. ``str(error)`` is the message."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext


class TableError(ValidationError):
    """Base of every refusal of a tables service.

    Attributes:
        field: the form field the refusal is about (``"seats"``, ``"card"``) or None.
    """

    code = "table"

    def __init__(self, message, *, params=None, field=None):
        super().__init__(message, code=self.code, params=params)
        self.field = field

    def __str__(self):
        return " ".join(self.messages)


class RuleBroken(TableError):
    """The engine refused the entry: it breaks a rule of the table's profile.

    Attributes:
        rule: the engine's rule code (``"fixed_stake"``, ``"turn"`` …).
        event: the event's number in the hand (0 for a fault outside the events).
    """

    code = "rule"

    def __init__(self, illegal, *, field=None):
        # The engine's English template, translated here; its parameters are data.
        message = gettext(illegal.template).format(**illegal.params)
        super().__init__(message, field=field)
        self.rule = illegal.rule
        self.event = illegal.event


class StaleHand(TableError):
    """The entry was made on a screen older than the hand: another entry came first.
    Without a message, the usual one: the hand changed since the screen was drawn."""

    code = "stale"

    def __init__(self, message=None, **kwargs):
        if message is None:
            message = gettext("the hand changed since this screen was drawn (another entry came first): reload")
        super().__init__(message, **kwargs)


class HandNotOpen(TableError):
    """The hand is settled or voided: nothing more is entered on it."""

    code = "hand_closed"


class NoShift(TableError):
    """No open shift at the table, or the user is not its dealer."""

    code = "no_shift"


class NotTheDealer(NoShift):
    """The user entering is not the dealer of the table's open shift."""

    code = "not_dealer"


class BankNotReady(TableError):
    """No bank tenure is open at the table, or the bank cannot change now."""

    code = "bank"


class RecordRefused(TableError):
    """An imported hand record that does not fit its table (rules, limits, bank, number).

    Attributes:
        event: the event's number (0 outside the events).
        rule: the engine's rule code when the engine refused the record, else ``"record"``.
    """

    code = "record"

    def __init__(self, message, *, params=None, event=0, rule="record"):
        super().__init__(message, params=params)
        self.event = event
        self.rule = rule
