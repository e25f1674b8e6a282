"""What a bank owes at the cage before it plays: its capital (a tenure the pit opened,
``deposit_required``) or the rebuild the pit ordered, deposited there by its syndicate.

The cage keeps the deposits (its slips) and registers how to read them
(``register``, in the cage app's ``AppConfig.ready``), so that the tables ask without
importing the cage. Without a cage nothing is owed. [Melilla casino rules 2014 art. 52:
"the bank's money is deposited at the cage before play"]
"""

_readers = []


def register(reader) -> None:
    """Set the reader of the deposits: an object with ``awaiting_deposit(tenure) ->
    [row]`` and ``outstanding_rebuild(tenure) -> BankRebuild | None`` (the cage's
    ``cage.services.slips``)."""
    _readers[:] = [reader]


def awaiting_deposit(tenure) -> list[dict]:
    """The members of ``tenure`` who still owe part of their deposit: ``[{"player":
    Player, "percent", "due", "deposited", "owing": Decimal euros, "rebuild": BankRebuild
    | None}]`` in the syndicate's order; empty when the bank may play."""
    return _readers[0].awaiting_deposit(tenure) if _readers else []


def outstanding_rebuild(tenure):
    """The tenure's latest ``BankRebuild`` if its deposits do not yet cover it (its
    ``deposited`` set, Decimal euros), else None."""
    return _readers[0].outstanding_rebuild(tenure) if _readers else None
