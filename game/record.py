"""Reading a hand record (``hand-record.md``) into a played ``HandState``.

``play_record`` checks the record's header (fault: event 0), applies its events in order
(fault: that event's number) and checks that the hand is finished (fault: event 0, a
record that ends before the hand is over).
"""

from datetime import UTC, datetime, timedelta
from typing import Final

from game.errors import IllegalEvent, InvalidRules, gettext_noop, show
from game.hand import HandState, parse_amount, valid_player_id
from game.profiles import EARLIER_VALUES, Profile, pin_earlier_values

FORMAT: Final = "siete-y-media/hand-1"
REQUIRED_KEYS: Final = ("format", "rules", "min_bet", "max_bet", "bank", "seats", "events")
OPTIONAL_KEYS: Final = ("table", "number", "started_at")
_KEYS: Final = frozenset(REQUIRED_KEYS + OPTIONAL_KEYS)
_REQUIRED: Final = frozenset(REQUIRED_KEYS)

_profile_cache: Final[dict[object, Profile]] = {}


def profile_for(rules):
    """The ``Profile`` for a record's ``rules`` value, cached (records repeat their rules).

    Raises:
        InvalidRules: as ``Profile.from_rules``.
    """
    try:
        # The values' types are part of the key: True == 1 and hash(True) == hash(1). (A
        # table writes its options in one order; another order is just another entry.)
        key = (rules if type(rules) is str
               else (tuple(rules), tuple(map(type, rules.values())), tuple(rules.values())))
        profile = _profile_cache.get(key)
    except (AttributeError, TypeError):  # not a dict, or an unhashable option value
        return Profile.from_rules(rules)
    if profile is None:
        profile = Profile.from_rules(rules)
        if len(_profile_cache) > 256:
            _profile_cache.clear()
        _profile_cache[key] = profile
    return profile


def replay_as_played(rules, make_state, events):
    """A stored hand's events replayed under the rules it was played under:
    ``(rules, state)``, the rules those of its replay.

    A hand keeps the ``rules`` value of its table when it was opened (a profile's name and
    overrides). A profile that gained an option since (``EARLIER_VALUES``: profesional's
    ``one_card_stand_max: 2``) may refuse an event that was legal when it was entered: such
    a hand, and only such a hand (one entered since was checked against the new value),
    is replayed with the option's earlier value written in (``pin_earlier_values``), as
    recorded. [rules.md "The named profiles"]

    Args:
        rules: the stored rules value; make_state: ``Profile`` -> a fresh ``HandState``
            of the hand; events: its events in force.
    Returns:
        ``(rules, HandState)``: ``rules`` itself, or the pinned rules the hand replays under.
    Raises:
        IllegalEvent: the events do not replay under the rules nor under the pinned ones
            (the error of the stored rules). InvalidRules: as ``profile_for``.
    """
    state = make_state(profile_for(rules))
    try:
        for event in events:
            state.apply(event)
    except IllegalEvent as error:
        pinned = pin_earlier_values(rules)
        name = rules if type(rules) is str else rules.get("profile") if type(rules) is dict else None
        if pinned is rules or error.rule not in EARLIER_VALUES.get(name, {}):
            raise
        state = make_state(profile_for(pinned))
        try:
            for event in events:
                state.apply(event)
        except IllegalEvent:
            raise error from None
        return pinned, state
    return rules, state


def read_header(record, allow_unknown=False):
    """Check a record's fields and return a fresh ``HandState`` for its events.

    Args:
        record: the decoded JSON object of one hand record.
    Returns:
        HandState before its first event.
    Raises:
        IllegalEvent: event 0, naming the field at fault.
    """
    if type(record) is not dict:
        raise IllegalEvent(0, "record", gettext_noop("a hand record is a JSON object"))
    if not _KEYS.issuperset(record):
        key = next(k for k in record if k not in _KEYS)
        raise IllegalEvent(0, "record", gettext_noop("unknown field {key} in the hand record"), key=show(key))
    if not record.keys() >= _REQUIRED:
        key = next(k for k in REQUIRED_KEYS if k not in record)
        raise IllegalEvent(0, "record", gettext_noop("the hand record has no {key}"), key=key)
    if record["format"] != FORMAT:
        raise IllegalEvent(0, "format", gettext_noop('format must be "{format}", not {value}'),
                           format=FORMAT, value=show(record["format"]))
    try:
        profile = profile_for(record["rules"])
    except InvalidRules as error:
        raise IllegalEvent(0, error.rule, error.template, **error.params) from None
    limits = []
    for key in ("min_bet", "max_bet"):
        cents = parse_amount(record[key])
        if cents is None:
            raise IllegalEvent(0, key, gettext_noop('{key} must be an amount like "5.00", not {value}'),
                               key=key, value=show(record[key]))
        limits.append(cents)
    if type(record["events"]) is not list:
        raise IllegalEvent(0, "events", gettext_noop("events must be a list"))
    table = record.get("table")
    if "table" in record and (type(table) is not str or not table.strip() or len(table) > 64
                              or not table.isprintable()):
        raise IllegalEvent(0, "table", gettext_noop("table must be the table's name (1–64 printable characters)"))
    number = record.get("number", 1)
    if type(number) is not int or number < 1:
        raise IllegalEvent(0, "number", gettext_noop("number must be a whole number from 1, not {value}"), value=show(number))
    if "started_at" in record:
        _check_started_at(record["started_at"])
    bank = record["bank"]
    if not valid_player_id(bank):
        raise IllegalEvent(0, "bank", gettext_noop("bank must be a player id (1–64 letters, digits, _ - .), not {value}"),
                           value=show(bank))
    return HandState(profile, limits[0], limits[1], bank, record["seats"], allow_unknown=allow_unknown)


def _check_started_at(value):
    if type(value) is str:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            moment = None
        if moment is not None and moment.tzinfo is not None:
            try:  # a moment every time zone can show (not past year 9999 nor before year 1 in UTC ±14 h)
                (moment - timedelta(days=1)).astimezone(UTC)
                (moment + timedelta(days=1)).astimezone(UTC)
                return
            except OverflowError:
                pass
    raise IllegalEvent(0, "started_at", gettext_noop("started_at must be an ISO 8601 time with its offset, not {value}"),
                       value=show(value))


def play_record(record):
    """Check and play a whole hand record.

    Returns:
        HandState, complete (the record ends where the hand may end).
    Raises:
        IllegalEvent: the first fault, with its event number (0 outside the events, or
        for a record that ends before the hand is over).
    """
    state = read_header(record)
    state.play(record["events"])
    check_complete(state)
    return state


def check_complete(state):
    """Raise ``IllegalEvent`` (event 0, rule ``unfinished``) unless ``state``, a record's
    hand after its last event, may end there (``HandState.complete``). Who has not
    finished is in the template (the deal, the bank, la loca) or its parameters (a
    seat's ``player`` and hand ``number``), never an English phrase in a parameter: the
    shell words the whole message in the reader's language."""
    if state.complete:
        return
    if state.actor is None:
        raise IllegalEvent(0, "unfinished", gettext_noop("the record ends before the hand is over: the deal has "
                                                         "not finished"))
    if state.actor == "bank":
        raise IllegalEvent(0, "unfinished", gettext_noop("the record ends before the hand is over: the bank has "
                                                         "not finished"))
    if state.actor == "loca":
        raise IllegalEvent(0, "unfinished", gettext_noop("the record ends before the hand is over: la loca has "
                                                         "not finished"))
    raise IllegalEvent(0, "unfinished", gettext_noop("the record ends before the hand is over: {player}'s hand "
                                                     "{number} has not finished"),
                       player=state.actor, number=state.current_hand().number)
