"""The cage's refusals: ``ledger.errors.LedgerError``s, so the cashier's forms show them on
the field they name, and nothing is written."""

from ledger.errors import LedgerError, PostingRefused


class DrawerError(LedgerError):
    """No open drawer for a slip; a second drawer; a bad count; a close not signed by a
    cage supervisor other than the cashier."""

    code = "drawer"


class AmlRefused(PostingRefused):
    """A movement that takes a patron's gaming day to the due-diligence threshold (or, in
    the US profile, above the currency transaction report's) without his identity on file.

    Attributes:
        attempt: the refused movement's fields for an ``AmlRefusal`` (dict), or None;
        recorded: the id of the ``AmlRefusal`` written for it, or None
        (``record_attempt``).
    """

    code = "aml_identity"

    def __init__(self, message, *, params=None, field=None, attempt=None):
        super().__init__(message, params=params, field=field)
        self.attempt = attempt
        self.recorded = None

    def record_attempt(self) -> None:
        """Write the refused movement as an ``AmlRefusal`` unless it is written already
        (a service calling a refused one inside its own transaction rolled that record
        back: it is written again)."""
        from cage.models import AmlRefusal
        from cage.services.aml import aml_refusal_record

        if self.attempt is not None and (
                self.recorded is None or not AmlRefusal.objects.filter(pk=self.recorded).exists()):
            self.recorded = aml_refusal_record(**self.attempt).pk


class ReviewError(LedgerError):
    """A compliance officer's review without a note."""

    code = "review"
