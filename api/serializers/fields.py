"""The game's JSON in the OpenAPI schema (``hand-record.md``, ``rules.md``) and the fields
that read it: events, rules, the table's state and legal actions, amounts of euros,
syndicate percentages, players by their id.
"""

import re
from decimal import Decimal

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from patrons.models import Player

#: ASCII digits only (``\d`` would let a full-width "５" through).
AMOUNT = re.compile(r"[0-9]{1,12}(\.[0-9]{1,2})?")
EVENT_DOS = ["deal", "bet", "card", "reveal", "stand", "split", "exchange", "fusilar", "muerto", "shuffle",
             "identify", "loca_call"]
#: La loca's calls (``loca_calls``), the ``call`` of a ``loca_call`` event.
LOCA_CALL_NAMES = ["dobla_quien_quiera", "dobla", "se_planta"]
AMOUNT_SCHEMA = {"type": "string", "pattern": r"^\d{1,12}(\.\d{1,2})?$", "example": "10.00",
                 "description": "euros with at most two decimals, as a string (an integer is accepted too)"}
EVENT_SCHEMA = {
    "type": "object",
    "description": "One event of a hand as in hand-record.md. On the console a face-down card may be "
                   "sent as null and named later (reveal with its card, or identify).",
    "properties": {
        "do": {"type": "string", "enum": EVENT_DOS},
        "seat": {"type": "string", "description": "a seated player id, \"bank\" or \"loca\" (omitted for shuffle)",
                 "example": "luis"},
        "card": {"type": "string", "nullable": True, "example": "7O",
                 "description": "rank 1-7, 10, 11, 12 then suit O C E B; at a French table (deck french-40) "
                                "rank A, 2-7, J, Q, K then suit S H D C"},
        "amount": AMOUNT_SCHEMA,
        "down": {"type": "boolean", "description": "card: dealt face down"},
        "player": {"type": "string", "description": "bet: a side bet (or a bet on la loca) by this player"},
        "hand": {"type": "integer", "minimum": 1, "description": "identify: the seat's hand number"},
        "natural": {"type": "boolean",
                    "description": "identify: the hand in turn stands on an announced 7½ and shows this card"},
        "call": {"type": "string", "enum": LOCA_CALL_NAMES,
                 "description": "loca_call (loca_calls): la loca's call, seat loca"},
        "responsable": {"type": "string",
                        "description": "loca_call: la loca's responsable, one of its bettors, the same in every "
                                       "call of the hand"},
    },
    "required": ["do"],
    "additionalProperties": False,
    "example": {"do": "bet", "seat": "luis", "amount": "10"},
}
RULES_SCHEMA = {
    "oneOf": [
        {"type": "string", "enum": ["tradicional", "reglamento", "profesional", "americana"]},
        {"type": "object", "properties": {"profile": {"type": "string"}}, "required": ["profile"],
         "additionalProperties": True},
    ],
    "description": "a named profile, or {\"profile\": NAME, OPTION: VALUE, ...} (rules.md)",
}


RANGE_SCHEMA = {"type": "object", "nullable": True, "description": "the lowest and highest amount now, euros",
                "properties": {"min": AMOUNT_SCHEMA, "max": AMOUNT_SCHEMA}}
HAND_STATE_SCHEMA = {
    "type": "object",
    "description": "one hand of a seat, of la loca or of the bank",
    "properties": {
        "number": {"type": "integer"},
        "kind": {"type": "string", "enum": ["normal", "fusilado", "muerto-seven", "muerto-card", "loca", "bank"]},
        "cards": {"type": "array", "items": {"type": "object", "properties": {
            "card": {"type": "string", "nullable": True, "description": "null: face down and not named yet"},
            "down": {"type": "boolean"}}}},
        "points": {"type": "string", "example": "7.5"},
        "unknown": {"type": "integer", "description": "cards not named yet"},
        "stake": AMOUNT_SCHEMA,
        "status": {"type": "string", "enum": ["playing", "stood", "bust"]},
    },
}
TABLE_STATE_SCHEMA = {
    "type": "object",
    "description": "the engine's HandState.describe(): the table as the console draws it",
    "properties": {
        "phase": {"type": "string", "enum": ["deal", "play", "over"]},
        "actor": {"type": "string", "nullable": True, "description": "whose turn: a seat's player id, loca, bank"},
        "bank": {**HAND_STATE_SCHEMA, "description": "the bank's hand, with its holder as player"},
        "seats": {"type": "array", "items": {"type": "object", "properties": {
            "player": {"type": "string"}, "exchanges": {"type": "integer"},
            "side_bets": {"type": "object", "additionalProperties": AMOUNT_SCHEMA},
            "hands": {"type": "array", "items": HAND_STATE_SCHEMA}}}},
        "loca": {**HAND_STATE_SCHEMA, "nullable": True, "description": "la loca (with its bets), or null",
                 "properties": {**HAND_STATE_SCHEMA["properties"],
                                "bets": {"type": "object", "additionalProperties": AMOUNT_SCHEMA},
                                "responsable": {"type": "string", "nullable": True,
                                                "description": "loca_calls: its responsable, once named"},
                                "calls": {"type": "integer", "description": "loca_calls: the calls made"},
                                "dobla_quien_quiera": {"type": "boolean",
                                                       "description": "its bettors may raise now"},
                                "dobla": {"type": "boolean", "description": "la loca dobla was called"}}},
        "events": {"type": "integer", "description": "events in force"},
        "stock": {"type": "integer", "description": "cards left in the stock"},
    },
}
LEGAL_SCHEMA = {
    "type": "object",
    "description": "the engine's HandState.legal(): what may be entered now",
    "properties": {
        "phase": {"type": "string", "enum": ["deal", "play", "over"]},
        "to_deal": {"type": "array", "items": {"type": "string"}, "description": "who still gets a deal"},
        "actor": {"type": "string", "nullable": True},
        "hand": {"type": "integer", "nullable": True, "description": "the actor's current hand"},
        "bet": RANGE_SCHEMA,
        "muerto": RANGE_SCHEMA,
        **{name: {"type": "boolean"} for name in (
            "draw", "draw_down", "stand", "reveal", "split", "exchange", "exchange_required", "fusilar",
            "shuffle", "loca_bets_open", "announce", "bank_must_draw", "bank_must_stand", "complete")},
        "side_bet_seats": {"type": "array", "items": {"type": "string"}},
        "loca_raises": {"type": "object", "additionalProperties": {**AMOUNT_SCHEMA, "nullable": True},
                        "description": "each loca bettor: the most he may still add once la loca's turn has "
                                       "begun (null before it: his bets add up to his first stake)"},
        "identities_owed": {"type": "array", "items": {"type": "object", "properties": {
            "owner": {"type": "string"}, "hand": {"type": "integer"}}},
            "description": "hands holding a face-down card to name before settling"},
        "pair_split": {"type": "object", "nullable": True, "properties": {
            "seat": {"type": "string"}, "hand": {"type": "integer"}},
            "description": "split_pairs: a pair over 7½ just drawn, bust unless the next event is its split "
                           "(a split event of that seat), else null"},
        "one_card_cap": {**AMOUNT_SCHEMA, "nullable": True,
                         "description": "one_card_stand_max: the most the hand in turn, holding one card, may "
                                        "carry to stand on it, euros; else null"},
        "loca_calls": {"type": "array", "items": {"type": "string", "enum": LOCA_CALL_NAMES},
                       "description": "loca_calls: the calls la loca's responsable may make now"},
        "loca_responsables": {"type": "array", "items": {"type": "string"},
                              "description": "who may make them: the responsable named, else every bettor on la loca"},
        "loca_responsable": {"type": "string", "nullable": True,
                             "description": "the responsable to propose: the one named, else the biggest bettor"},
    },
}


@extend_schema_field(TABLE_STATE_SCHEMA)
class TableStateField(serializers.JSONField):
    """``HandState.describe()`` as plain data."""

@extend_schema_field(LEGAL_SCHEMA)
class LegalField(serializers.JSONField):
    """``HandState.legal()`` as the API shows it (amounts in euros)."""


@extend_schema_field(EVENT_SCHEMA)
class EventField(serializers.JSONField):
    """An event of ``hand-record.md``: a JSON object, judged by the rules engine."""

    default_error_messages = {"not_object": "an event is a JSON object with do and seat"}

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            self.fail("not_object")
        return super().to_internal_value(data)


@extend_schema_field(RULES_SCHEMA)
class RulesField(serializers.JSONField):
    """A rule profile: a name or an object of options (``rules.md``)."""


@extend_schema_field(AMOUNT_SCHEMA)
class AmountField(serializers.Field):
    """Euros in: a string (or an integer) with at most two decimals, above zero, as a
    ``Decimal``; a float is refused. Out: a string with two decimals."""

    default_error_messages = {
        "invalid": 'an amount is a string of euros with at most two decimals, like "10.00"',
        "positive": "an amount is above zero",
    }

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int):
            self.fail("invalid")
        text = str(data).strip()
        if not AMOUNT.fullmatch(text):
            self.fail("positive" if text.startswith("-") and AMOUNT.fullmatch(text[1:]) else "invalid")
        amount = Decimal(text).quantize(Decimal("0.01"))
        if amount <= 0:
            self.fail("positive")
        return amount

    def to_representation(self, value):
        return f"{value:.2f}"


@extend_schema_field({"type": "string", "pattern": r"^\d{1,3}(\.\d{1,2})?$", "example": "33.33",
                     "description": "a percentage above 0 and at most 100, with at most two decimals"})
class PercentField(serializers.Field):
    """A syndicate share's percentage: a string (or an integer) above 0, at most 100,
    with at most two decimals, as a ``Decimal``."""

    default_error_messages = {"invalid": 'a percentage is a string like "33.33", above 0 and at most 100'}

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, str | int):
            self.fail("invalid")
        text = str(data).strip()
        if not re.fullmatch(r"[0-9]{1,3}(\.[0-9]{1,2})?", text) or not 0 < Decimal(text) <= 100:
            self.fail("invalid")
        return Decimal(text).quantize(Decimal("0.01"))

    def to_representation(self, value):
        return f"{value:.2f}"


class PlayerCodeField(serializers.SlugRelatedField):
    """A player by his id (``code``), as hand records name him."""

    def __init__(self, **kwargs):
        kwargs.setdefault("queryset", Player.objects.all())
        super().__init__(slug_field="code", **kwargs)
