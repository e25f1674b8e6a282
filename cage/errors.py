"""The cage's refusals: ``ledger.errors.LedgerError``s, so the cashier's forms show them on
the field they name, and nothing is written."""

from ledger.errors import LedgerError


class DrawerError(LedgerError):
    """No open drawer for a slip; a second drawer; a bad count; a close not signed by a
    cage supervisor other than the cashier."""

    code = "drawer"


class AmlRefused(LedgerError):
    """A movement that takes a patron's gaming day to the due-diligence threshold (or, in
    the US profile, above the currency transaction report's) without his identity on file.

    Attributes:
        attempt: the refused movement's fields for an ``AmlRefusal`` (dict), or None;
        recorded: the id of the ``AmlRefusal`` written for it, or None
        (``cage.services.aml.records_refusals``).
    """

    code = "aml_identity"

    def __init__(self, message, *, params=None, field=None, attempt=None):
        super().__init__(message, params=params, field=field)
        self.attempt = attempt
        self.recorded = None


class IdentityError(LedgerError):
    """An identity record with a field missing or malformed."""

    code = "identity"


class ReviewError(LedgerError):
    """A compliance officer's review without a note."""

    code = "review"
