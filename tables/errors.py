"""The tables' refusals. Each is a Django ``ValidationError`` whose message says what was
refused and what to do; nothing was written. ``str(error)`` is the message."""

from django.core.exceptions import ValidationError
from django.utils.translation import gettext, pgettext

from casino import formatting

#: The engine's message parameters that hold an amount ("12.50") or points ("6.5").
_AMOUNT_PARAMS = frozenset(("amount", "bet", "total", "low", "high", "min_bet", "stake"))
#: Parameters that are amounts in one rule's messages only (``limit`` counts hands elsewhere).
_RULE_AMOUNT_PARAMS = {"one_card_stand_max": frozenset(("limit",))}
_POINTS_PARAMS = frozenset(("points", "has"))


def engine_message(error):
    """An engine error's message in the active language, its amounts in the reader's
    locale with the euro sign ("1.250,50 €" in Spanish) and its points as the table
    says them ("6½").

    Args:
        error: an ``EngineError`` (its English ``template`` and text ``params``).
    Returns:
        str.
    """
    params = dict(error.params)
    amounts = _AMOUNT_PARAMS | _RULE_AMOUNT_PARAMS.get(getattr(error, "rule", None), frozenset())
    for name, value in params.items():
        if name in amounts:
            params[name] = formatting.money(value)
        elif name in _POINTS_PARAMS:
            whole, _dot, half = value.partition(".")
            params[name] = ("" if whole == "0" else whole) + "½" if half else whole
        elif name in _SEAT_PARAMS:
            params[name] = _seat(value)
    return gettext(error.template).format(**params)


#: The engine's message parameters that name a seat or a player.
_SEAT_PARAMS = frozenset(("who", "now", "player", "owner", "other"))


def _seat(value):
    """A seat the record names by an English word ("bank", "loca") as the table says it;
    a player's code as it is."""
    if value == "bank":
        return pgettext("seat", "the bank")
    if value == "loca":
        return pgettext("seat", "la loca")
    return value


def unreadable_message(record) -> str:
    """Why a record could not be read (``game.recordfiles.UnreadableRecord``: its code and
    figures), in the active language.

    Args:
        record: an ``UnreadableRecord``.
    Returns:
        str, e.g. "JSON mal formado en la línea 1, columna 9: falta una coma".
    """
    params = record.params
    if record.code == "json":
        fault = {
            "value": gettext("a value is missing"),
            "comma": gettext("a comma is missing"),
            "colon": gettext("a colon is missing"),
            "key": gettext("a key in double quotes is expected"),
            "unterminated": gettext("a string is not closed"),
            "control": gettext("a control character is inside a string"),
            "escape": gettext("an invalid escape (\\) is inside a string"),
            "extra": gettext("there is more text after the record"),
            "number": gettext("a number has too many digits"),
        }.get(params.get("fault"), gettext("it is not valid JSON"))
        if params.get("line") is None:
            return gettext("malformed JSON: %(fault)s") % {"fault": fault}
        return gettext("malformed JSON at line %(line)s, column %(column)s: %(fault)s") % {
            "line": params["line"], "column": params["column"], "fault": fault}
    if record.code == "depth":
        if params.get("field"):
            return gettext("field %(field)s: JSON nested more than %(limit)s levels deep") % params
        return gettext("the record: JSON nested more than %(limit)s levels deep") % params
    if record.code == "missing":
        return gettext("cannot read the file: it does not exist")
    if record.code == "denied":
        return gettext("cannot read the file: permission denied")
    if record.code == "directory":
        return gettext("cannot read the file: it is a directory")
    if record.code == "encoding":
        return gettext("cannot read the file: it is not UTF-8 text (byte %(position)s)") % {
            "position": params["position"]}
    return gettext("cannot read the file (system error %(errno)s)") % {"errno": params.get("errno")}


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
        super().__init__(engine_message(illegal), field=field)
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

    def __init__(self, message, *, params=None, event=0, rule="record", field=None):
        super().__init__(message, params=params, field=field)
        self.event = event
        self.rule = rule


class ChipsNotCovered(TableError):
    """A bet over what the player holds on record, less what he has at risk in open hands
    (this one and any other): refused at entry, naming his holding.

    Attributes:
        player: the bettor's id; holding, at_risk, needed: ``Decimal`` euros (his chips on
        record, what he had at risk in open hands before the bet, what he would have with it).
    """

    code = "chips"

    def __init__(self, *, player, holding, at_risk, needed, field="amount"):
        super().__init__(
            gettext("%(player)s holds %(holding)s in chips, %(at_risk)s of them at risk in open hands: they do not "
                    "cover this bet, which would put %(needed)s at risk"),
            params={"player": player, "holding": formatting.money(holding), "at_risk": formatting.money(at_risk), "needed": formatting.money(needed)},
            field=field)
        self.player, self.holding, self.at_risk, self.needed = player, holding, at_risk, needed


class PlanRefused(TableError):
    """A pit's rotation plan refused: its minutes, a table in another pit's plan, a relief
    dealer unknown or without the dealer role, a pit's name taken."""

    code = "plan_refused"
