"""The ledger's refusals. Each is a Django ``ValidationError`` (a form shows it on the
field named by ``field``) whose message says what was refused and why, with amounts in
euros. ``str(error)`` is the message."""

from casino.errors import Refusal


class LedgerError(Refusal):
    """Base of every refusal of a ledger service; nothing was written.

    Attributes:
        field: the form field the refusal is about (``"amount"``, ``"player"``) or None.
    """

    code = "ledger"


class InvalidAmount(LedgerError):
    """An amount that is not Decimal euros above zero with at most two decimals."""

    code = "invalid_amount"


class UnknownPlayer(LedgerError):
    """A settlement names a player code with no ``Player``."""

    code = "unknown_player"


class AlreadyPosted(LedgerError):
    """A transaction with this idempotency key exists: the first posting stands.

    Attributes:
        idempotency_key: the key; transaction_id: the existing transaction's id (or None
        if it was being committed concurrently).
    """

    code = "already_posted"

    def __init__(self, message, *, params=None, idempotency_key="", transaction_id=None):
        super().__init__(message, params=params)
        self.idempotency_key = idempotency_key
        self.transaction_id = transaction_id


class AlreadyReversed(LedgerError):
    """The transaction was reversed already; ``reversal_id`` is that reversal."""

    code = "already_reversed"

    def __init__(self, message, *, params=None, reversal_id=None):
        super().__init__(message, params=params)
        self.reversal_id = reversal_id


class NotReversible(LedgerError):
    """A reversal itself, or a posting on a tenure already closed, cannot be reversed."""

    code = "not_reversible"


class InsufficientChips(LedgerError):
    """A player's chips do not cover a cash-out, a bank capital or a bank price."""

    code = "insufficient_chips"


class CoverExceeded(LedgerError):
    """``bank_cover`` ("banca limitada"): the hand's stakes exceed what the tenure holds."""

    code = "cover_exceeded"


class TenureError(LedgerError):
    """A bank tenure that is closed, a table that already has an open tenure, a
    settlement whose bank is not the tenure's holder, an unknown way to begin or end."""

    code = "tenure"


class InvalidSyndicate(LedgerError):
    """Syndicate shares that are not distinct players with percentages summing to 100."""

    code = "invalid_syndicate"


class VoidRefused(LedgerError):
    """A slip's void that the cage's rules refuse: not a cage supervisor, the cashier who
    issued the slip, no reason given."""

    code = "void_refused"


class InvalidTransfer(LedgerError):
    """A chip transfer between the same player, or without a reason."""

    code = "invalid_transfer"


class PostingRefused(LedgerError):
    """A posting refused by a check registered with ``ledger.posting.register_check`` (the
    cage's anti-money-laundering rules). ``record_attempt`` writes what was refused, after
    the refused service's transaction was rolled back (``ledger.posting.refusals_recorded``);
    here it writes nothing."""

    code = "refused"

    def record_attempt(self) -> None:
        """Write the refused attempt for the record (a subclass's; nothing here)."""
