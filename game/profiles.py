"""Rule profiles: the four named profiles of rules.md and per-table overrides.

A table plays one named profile, optionally with overrides of single options:
``{"profile": "reglamento", "deck": "spanish-36", "side_bets": true}``. An unknown
profile or option, or a value of the wrong type, raises ``InvalidRules``.
[rules.md "The named profiles"]
"""

from dataclasses import dataclass, field, fields
from decimal import Decimal, InvalidOperation

from game.errors import InvalidRules, gettext_noop, show

EXCHANGE_FOURS = ("off", "optional", "mandatory")
DECK_NAMES = ("spanish-40", "spanish-36", "french-40")


@dataclass(frozen=True, slots=True)
class Profile:
    """The options that decide how a hand is played and paid.

    Multipliers are whole numbers; ``bank_draws_below`` is in half-points (6 points ->
    12) or None; ``one_card_stand_max`` is a whole number of minimum bets or None;
    ``commission_rate`` is a ``Decimal`` share in [0, 1).
    Build one with ``Profile.from_rules``; the field defaults are ``reglamento``'s.
    """

    name: str = "reglamento"
    deck: str = "spanish-40"
    fixed_stake: bool = False
    one_card_stand_max: int | None = None
    raise_on_stand: bool = True
    natural_pays: int = 2
    natural_pays_first_only: bool = False
    bank_natural_collects: int = 1
    bank_natural_vs_natural: int = 1
    max_hands: int | str | None = "by_players"
    split_pairs: bool = False
    exchange_fours: str = "optional"
    fusilar: bool = True
    fusilar_pays: int = 4
    muerto: bool = False
    loca: bool = False
    loca_calls: bool = False
    side_bets: bool = False
    bank_draws_below: int | None = None
    bank_chases_natural: bool = False
    face_up: bool = False
    bank_passes_on_natural: bool = True
    commission_rate: Decimal = Decimal("0")
    #: The overrides given over the named profile, as written (for writing records back).
    overrides: dict = field(default_factory=dict, compare=False, hash=False)

    @classmethod
    def from_rules(cls, rules):
        """Build the profile a record's or table's ``rules`` names.

        Args:
            rules: a profile name (``"tradicional"``) or a dict with ``"profile"`` and any
                option overrides, as in a hand record.
        Returns:
            Profile.
        Raises:
            InvalidRules: unknown profile or option, or an option of the wrong type.
        """
        if type(rules) is str:
            rules = {"profile": rules}
        if type(rules) is not dict:
            raise InvalidRules(
                "rules", gettext_noop("rules must be a profile name or an object with a profile, not {value}"),
                value=show(rules))
        if "profile" not in rules:
            raise InvalidRules("rules", gettext_noop("rules must name a profile ({names})"),
                               names=", ".join(PROFILES))
        name = rules["profile"]
        base = PROFILES.get(name) if type(name) is str else None
        if base is None:
            raise InvalidRules("profile", gettext_noop("unknown rule profile {name}; the profiles are {names}"),
                               name=show(name), names=", ".join(PROFILES))
        values = {}
        overrides = {}
        for option, raw in rules.items():
            if option == "profile":
                continue
            check = _OPTION_CHECKS.get(option)
            if check is None:
                raise InvalidRules("option", gettext_noop("unknown rule option {option}"), option=show(option))
            values[option] = check(option, raw)
            overrides[option] = raw
        return base.replace(name=name, overrides=overrides, **values)

    def replace(self, **changes):
        """A copy with some fields changed."""
        current = {name: getattr(self, name) for name in _FIELD_NAMES}
        current.update(changes)
        return Profile(**current)

    @property
    def rules(self):
        """The ``rules`` object of a hand record for this profile: name plus overrides."""
        return {"profile": self.name, **self.overrides}

    def max_hands_for(self, seat_count):
        """How many hands one seat may hold after splits, or None for no limit.

        ``"by_players"``: 3 hands with up to 3 seats, 2 with 4–5 seats, 1 with 6 or more.
        [rules.md "Split", seed 001 "Abrirse"]
        """
        if self.max_hands == "by_players":
            return 3 if seat_count <= 3 else 2 if seat_count <= 5 else 1
        return self.max_hands


_FIELD_NAMES = tuple(f.name for f in fields(Profile))


def _bool(option, raw):
    if type(raw) is not bool:
        raise InvalidRules("option", gettext_noop("rule option {option} must be true or false, not {value}"),
                           option=option, value=show(raw))
    return raw


def _multiplier(option, raw):
    if type(raw) is not int or raw < 1:
        raise InvalidRules("option", gettext_noop("rule option {option} must be a whole number of at least 1, not {value}"),
                           option=option, value=show(raw))
    return raw


def _choice(choices):
    def check(option, raw):
        if type(raw) is not str or raw not in choices:
            raise InvalidRules("option", gettext_noop("rule option {option} must be one of {choices}, not {value}"),
                               option=option, choices=", ".join(choices), value=show(raw))
        return raw
    return check


def _max_hands(option, raw):
    if raw is None or raw == "by_players" and type(raw) is str:
        return raw
    if type(raw) is int and raw >= 1:
        return raw
    raise InvalidRules("option", gettext_noop('rule option max_hands must be a whole number of at least 1, null or "by_players", not {value}'),
                       value=show(raw))


def _whole_or_null(option, raw):
    """A whole number from 1, or null (no limit): ``one_card_stand_max``."""
    if raw is None or type(raw) is int and raw >= 1:
        return raw
    raise InvalidRules("option", gettext_noop("rule option {option} must be a whole number of at least 1 or null, not {value}"),
                       option=option, value=show(raw))


def _points_limit(option, raw):
    """Points as a whole number (6) or a string ("6", "6.5") -> half-points; or null."""
    if raw is None:
        return None
    half = None
    if type(raw) is int:
        half = 2 * raw
    elif type(raw) is str:
        try:
            value = Decimal(raw)
        except InvalidOperation:
            value = None
        if value is not None and value.is_finite() and (value * 2) == (value * 2).to_integral_value():
            half = int(value * 2)
    if half is None or not 1 <= half <= 15:
        raise InvalidRules("option", gettext_noop("rule option {option} must be points from 0.5 to 7.5 or null, not {value}"),
                           option=option, value=show(raw))
    return half


def _rate(option, raw):
    value = None
    if type(raw) is int:
        value = Decimal(raw)
    elif type(raw) is str:
        try:
            value = Decimal(raw)
        except InvalidOperation:
            value = None
    if value is None or not value.is_finite() or not Decimal(0) <= value < Decimal(1):
        raise InvalidRules("option", gettext_noop('rule option {option} must be a decimal string from "0" to below "1", not {value}'),
                           option=option, value=show(raw))
    return value


_OPTION_CHECKS = {
    "deck": _choice(DECK_NAMES),
    "fixed_stake": _bool,
    "one_card_stand_max": _whole_or_null,
    "raise_on_stand": _bool,
    "natural_pays": _multiplier,
    "natural_pays_first_only": _bool,
    "bank_natural_collects": _multiplier,
    "bank_natural_vs_natural": _multiplier,
    "max_hands": _max_hands,
    "split_pairs": _bool,
    "exchange_fours": _choice(EXCHANGE_FOURS),
    "fusilar": _bool,
    "fusilar_pays": _multiplier,
    "muerto": _bool,
    "loca": _bool,
    "loca_calls": _bool,
    "side_bets": _bool,
    "bank_draws_below": _points_limit,
    "bank_chases_natural": _bool,
    "face_up": _bool,
    "bank_passes_on_natural": _bool,
    "commission_rate": _rate,
}

#: The option names a table may override.
OPTION_NAMES = tuple(_OPTION_CHECKS)

_reglamento = Profile()

#: The named profiles of rules.md's table. [000, 001, 003, 004, 001 §10]
PROFILES = {
    "tradicional": _reglamento.replace(
        name="tradicional", fixed_stake=True, raise_on_stand=False,
        bank_natural_collects=2, bank_natural_vs_natural=4, max_hands=None,
        exchange_fours="off", fusilar=False),
    "reglamento": _reglamento,
    "profesional": _reglamento.replace(
        name="profesional", one_card_stand_max=2, raise_on_stand=False,
        natural_pays_first_only=True, max_hands=1, exchange_fours="off", fusilar=False,
        muerto=True, loca=True, bank_passes_on_natural=False),
    "americana": _reglamento.replace(
        name="americana", max_hands=1, exchange_fours="off", fusilar=False,
        bank_draws_below=12, face_up=True),
}

#: Options a named profile gained after hands were stored under it, each with the value
#: it had before: ``{profile: {option: earlier value}}`` (profesional's
#: ``one_card_stand_max: 2``). [seed 003]
EARLIER_VALUES = {"profesional": {"one_card_stand_max": None}}


def pin_earlier_values(rules):
    """A stored hand's ``rules`` with ``EARLIER_VALUES`` written in, so that it replays
    as it was played although its profile has changed since.

    A hand keeps the ``rules`` value it was played under (``tables.models.Hand.rules``:
    its table's, a profile's name and overrides, when it was opened), and every replay
    of it (the audit, the record exported, the chips at risk) rebuilds its ``Profile``
    from that value. A hand stored before a profile gained an option was legal under the
    option's earlier value: it replays with that value as an override of its own
    (``{"profile": "profesional", "one_card_stand_max": null}``). The stored rules never
    change (a guard in PostgreSQL): ``game.record.replay_as_played`` pins them where the
    new value refuses one of the hand's events, and the record exported carries the
    pinned rules. An option the rules already override is left as it is.

    Args:
        rules: a rules value as stored: a profile name or ``{"profile": …, options…}``.
    Returns:
        a new dict with the earlier values added where the profile has some not
        overridden yet; otherwise ``rules`` itself (another profile, an invalid value).
    """
    name = rules if type(rules) is str else rules.get("profile") if type(rules) is dict else None
    earlier = EARLIER_VALUES.get(name) if type(name) is str else None
    pinned = {"profile": name} if type(rules) is str else dict(rules) if earlier else None
    if not earlier or earlier.keys() <= pinned.keys():
        return rules
    return {**pinned, **{option: value for option, value in earlier.items() if option not in pinned}}
