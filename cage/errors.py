"""The cage's refusals: ``ledger.errors.LedgerError``s, so the cashier's forms show them on
the field they name, and nothing is written."""

from ledger.errors import LedgerError


class DrawerError(LedgerError):
    """No open drawer for a slip; a second drawer; a bad count; a close not signed by a
    cage supervisor other than the cashier."""

    code = "drawer"


class AmlRefused(LedgerError):
    """A movement that takes a patron's gaming day to the due-diligence threshold (or, in
    the US profile, above the currency transaction report's) without his identity on file."""

    code = "aml_identity"


class IdentityError(LedgerError):
    """An identity record with a field missing or malformed."""

    code = "identity"


class ReviewError(LedgerError):
    """A compliance officer's review without a note."""

    code = "review"
