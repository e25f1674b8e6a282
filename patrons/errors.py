"""The patrons' refusals (``casino.errors.Refusal``: shown on the field they name)."""

from casino.errors import Refusal


class IdentityError(Refusal):
    """An identity record with a field missing or malformed."""

    code = "identity"
