"""The patrons' refusals (``casino.errors.Refusal``: shown on the field they name)."""

from casino.errors import Refusal


class IdentityError(Refusal):
    """An identity record with a field missing or malformed."""

    code = "identity"


class AdmissionRefused(Refusal):
    """A patron refused at admission (``patrons.admission``): on the exclusion register,
    without his identity on file, or under age. Nothing of what was attempted was
    written.

    Attributes:
        reason: ``AdmissionRefusal.Reason`` (``excluded``, ``no_identity``, ``minor``);
        attempt: the ``AdmissionRefusal``'s fields (dict), written by ``record_attempt``
        after the refused service's transaction was rolled back
        (``casino.errors.attempts_recorded``); recorded: the id written, or None.
    """

    code = "admission"

    def __init__(self, message, *, params=None, field=None, reason="", attempt=None):
        super().__init__(message, params=params, field=field)
        self.reason = reason
        self.code = f"admission_{reason}" if reason else "admission"
        self.attempt = attempt
        self.recorded = None

    def record_attempt(self) -> None:
        """Write the refused attempt as an ``AdmissionRefusal`` unless it is written
        already (a caller's transaction that rolled it back has it written again)."""
        from patrons.admission import admission_refusal_record
        from patrons.models import AdmissionRefusal

        if self.attempt is not None and (
                self.recorded is None or not AdmissionRefusal.objects.filter(pk=self.recorded).exists()):
            self.recorded = admission_refusal_record(**self.attempt).pk


class ExclusionLoadError(Refusal):
    """A register's file refused whole (a line without a document nor a name and date of
    birth, a date that does not read, the same file as the source's register in force):
    nothing of it was loaded."""

    code = "exclusion_load"
