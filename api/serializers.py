"""The API's serializers: input serializers check the shape of a request and hand their
``validated_data`` to a service; output serializers say what a response holds.

Amounts are ``Decimal`` euros written as strings with two decimals (``"10.00"``); an
amount sent in is a string (or an integer) of euros with at most two decimals, never a
float. Hands, events and hand records are judged by the rules engine (which names the
event and the rule), so their serializers check only that they are JSON objects.
"""

import re
from decimal import Decimal

from django.contrib.auth import get_user_model
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from casino.roles import DEALER, has_role
from ledger.models import Account, BankTenure, CashierSlip
from tables.engine.record import FORMAT
from tables.models import Hand, HandEvent, Player, Shift, Table
from tables.services import pending_bank_holder

# ---------------------------------------------------------------------------------------
# OpenAPI descriptions of the game's JSON (hand-record.md)

AMOUNT = re.compile(r"\d{1,12}(\.\d{1,2})?")
EVENT_DOS = ["deal", "bet", "card", "reveal", "stand", "split", "exchange", "fusilar", "muerto", "shuffle",
             "identify"]
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
                 "description": "rank 1-7, 10, 11, 12 then suit O C E B"},
        "amount": AMOUNT_SCHEMA,
        "down": {"type": "boolean", "description": "card: dealt face down"},
        "player": {"type": "string", "description": "bet: a side bet (or a bet on la loca) by this player"},
        "hand": {"type": "integer", "minimum": 1, "description": "identify: the seat's hand number"},
        "natural": {"type": "boolean",
                    "description": "identify: the hand in turn stands on an announced 7½ and shows this card"},
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
        "loca": {**HAND_STATE_SCHEMA, "nullable": True, "description": "la loca (with its bets), or null"},
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
        if not re.fullmatch(r"\d{1,3}(\.\d{1,2})?", text) or not 0 < Decimal(text) <= 100:
            self.fail("invalid")
        return Decimal(text).quantize(Decimal("0.01"))

    def to_representation(self, value):
        return f"{value:.2f}"


class PlayerCodeField(serializers.SlugRelatedField):
    """A player by his id (``code``), as hand records name him."""

    def __init__(self, **kwargs):
        kwargs.setdefault("queryset", Player.objects.all())
        super().__init__(slug_field="code", **kwargs)


# ---------------------------------------------------------------------------------------
# Tables, shifts, hands


class TableSerializer(serializers.ModelSerializer):
    """A table: its rules, limits and options, and what is going on at it now."""

    rules = RulesField(read_only=True)
    open_shift = serializers.SerializerMethodField(help_text="the open shift's id, or null")
    open_hand = serializers.SerializerMethodField(help_text="the open hand's id, or null")
    bank_holder = serializers.SerializerMethodField(
        help_text="the player id the next hand's bank goes to (after a 7½ takeover, the new holder), or null")

    class Meta:
        model = Table
        fields = ["id", "name", "rules", "min_bet", "max_bet", "bank_cover", "bank_capital", "last_hand_number",
                  "bank_holder", "open_shift", "open_hand", "created_at"]

    @extend_schema_field(OpenApiTypes.STR)
    def get_bank_holder(self, table):
        holder = pending_bank_holder(table)
        return None if holder is None else holder.code

    @extend_schema_field(OpenApiTypes.INT)
    def get_open_shift(self, table):
        shifts = getattr(table, "open_shifts", None)  # prefetched by the view
        if shifts is None:
            shifts = table.shifts.filter(closed_at__isnull=True)
        return next((s.pk for s in shifts), None)

    @extend_schema_field(OpenApiTypes.INT)
    def get_open_hand(self, table):
        hands = getattr(table, "open_hands", None)  # prefetched by the view
        if hands is None:
            hands = table.hands.filter(status=Hand.Status.OPEN)
        return next((h.pk for h in hands), None)


class ShiftSerializer(serializers.ModelSerializer):
    """A dealer's shift at a table."""

    table_name = serializers.CharField(source="table.name", read_only=True)
    dealer = serializers.CharField(source="dealer.username", read_only=True)
    opened_by = serializers.CharField(source="opened_by.username", read_only=True)
    closed_by = serializers.CharField(source="closed_by.username", read_only=True, allow_null=True)
    is_open = serializers.BooleanField(read_only=True)

    class Meta:
        model = Shift
        fields = ["id", "table", "table_name", "dealer", "opened_by", "opened_at", "closed_by", "closed_at",
                  "is_open"]


class ShiftOpenInputSerializer(serializers.Serializer):
    """Open a shift: the table and the dealer (a user with the dealer role, by username)."""

    table = serializers.PrimaryKeyRelatedField(queryset=Table.objects.all())
    dealer = serializers.SlugRelatedField(slug_field="username", queryset=get_user_model().objects.filter(
        is_active=True))

    def validate_dealer(self, user):
        if not has_role(user, DEALER):
            raise serializers.ValidationError(f"{user.username} does not have the dealer role", code="not_dealer")
        return user


class ShareInputSerializer(serializers.Serializer):
    """One member of the bank's syndicate: the player's id and his percentage."""

    player = PlayerCodeField()
    percent = PercentField()


class BankChangeInputSerializer(serializers.Serializer):
    """A bank change between hands (pit supervisor): the new ``holder`` (the buyer, for a
    sale), the ``capital`` the syndicate puts in, a sale's ``price``, and the optional
    syndicate ``shares`` (percentages summing to 100; none: the holder alone)."""

    holder = PlayerCodeField()
    capital = AmountField()
    price = AmountField(required=False, help_text="a sale's price, paid to the old syndicate")
    shares = ShareInputSerializer(many=True, required=False, allow_empty=False)

    def validate(self, attrs):
        if self.context.get("sale") and "price" not in attrs:
            raise serializers.ValidationError({"price": ["a sale has a price"]}, code="required")
        if not self.context.get("sale") and "price" in attrs:
            raise serializers.ValidationError({"price": ["only a sale has a price"]}, code="invalid")
        attrs["shares"] = [(share["player"], share["percent"]) for share in attrs.get("shares") or ()] or None
        return attrs


class HandSerializer(serializers.ModelSerializer):
    """A hand: its number at its table, who played it under which rules, and its
    settlement once settled (as ``manage.py settle`` prints it)."""

    table_name = serializers.CharField(source="table.name", read_only=True)
    bank = serializers.CharField(source="bank.code", read_only=True)
    seats = serializers.ListField(child=serializers.CharField(), read_only=True)
    rules = RulesField(read_only=True)
    settlement = serializers.JSONField(read_only=True, allow_null=True)
    opened_by = serializers.CharField(source="opened_by.username", read_only=True, allow_null=True)

    class Meta:
        model = Hand
        fields = ["id", "table", "table_name", "number", "shift", "status", "version", "bank", "seats", "rules",
                  "min_bet", "max_bet", "opened_by", "opened_at", "settled_at", "settlement", "next_bank",
                  "transaction", "voided_at", "void_reason", "imported"]


class HandOpenInputSerializer(serializers.Serializer):
    """Open the next hand: the seated players' ids in order of play (the bank is the
    table's current holder)."""

    seats = serializers.ListField(child=serializers.CharField(max_length=64), min_length=1, max_length=9)


class EventInputSerializer(serializers.Serializer):
    """One event, and the hand's ``version`` the client last saw: another entry since then
    refuses this one (409 ``stale``); omit it to skip the check."""

    event = EventField()
    expected_version = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True)


class UndoInputSerializer(serializers.Serializer):
    """Undo the latest event in force: why, and the ``version`` last seen."""

    reason = serializers.CharField(max_length=500)
    expected_version = serializers.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True)


class VoidInputSerializer(serializers.Serializer):
    """Void a hand: why (a settled hand's posting is reversed)."""

    reason = serializers.CharField(max_length=500)


class HandEntrySerializer(serializers.ModelSerializer):
    """One entry at the table, never changed: an event, an undo or a void, chained by hash."""

    event = serializers.JSONField(read_only=True)
    entered_by = serializers.CharField(source="entered_by.username", read_only=True, allow_null=True)

    class Meta:
        model = HandEvent
        fields = ["sequence", "kind", "event", "entered_by", "entered_at", "previous_hash", "hash"]


class HandStateSerializer(serializers.Serializer):
    """What the dealer's console shows: the hand, the table as the engine sees it
    (``HandState.describe()``) and what may be entered now (``legal()``, amounts in euros)."""

    hand = HandSerializer()
    state = TableStateField()
    legal = LegalField()


# ---------------------------------------------------------------------------------------
# Hand records and settlements


class HandRecordSerializer(serializers.Serializer):
    """A hand record (``hand-record.md``). Only its being a JSON object is checked here:
    the rules engine checks the rest and names the event and the rule at fault."""

    format = serializers.ChoiceField(choices=[FORMAT])
    rules = RulesField()
    min_bet = serializers.CharField(help_text=AMOUNT_SCHEMA["description"])
    max_bet = serializers.CharField(help_text=AMOUNT_SCHEMA["description"])
    bank = serializers.CharField(max_length=64)
    seats = serializers.ListField(child=serializers.CharField(max_length=64), min_length=1, max_length=9)
    events = serializers.ListField(child=EventField())
    table = serializers.CharField(required=False, help_text="the table's name")
    number = serializers.IntegerField(required=False, min_value=1, help_text="the hand's number at the table")
    started_at = serializers.DateTimeField(required=False)

    def to_internal_value(self, data):
        if not isinstance(data, dict):
            raise serializers.ValidationError({"non_field_errors": ["a hand record is a JSON object"]},
                                              code="record")
        return data


class BetResultSerializer(serializers.Serializer):
    """One settled bet (amounts and points as strings)."""

    player = serializers.CharField()
    seat = serializers.CharField()
    hand = serializers.IntegerField()
    stake = serializers.CharField()
    points = serializers.CharField()
    result = serializers.ChoiceField(choices=["win", "natural", "lose", "bust"])
    multiplier = serializers.IntegerField()
    net = serializers.CharField()


class BankResultSerializer(serializers.Serializer):
    """The bank's holder, points and net after commission."""

    player = serializers.CharField()
    points = serializers.CharField()
    net = serializers.CharField()


class SettlementSerializer(serializers.Serializer):
    """A hand's settlement as ``manage.py settle`` prints it: players' nets (positive =
    the bank pays him), the bank's net, the commission, who holds the bank next."""

    bets = BetResultSerializer(many=True)
    players = serializers.DictField(child=serializers.CharField())
    bank = BankResultSerializer()
    commission = serializers.CharField()
    next_bank = serializers.CharField()
    table = serializers.CharField(required=False)
    number = serializers.IntegerField(required=False)


# ---------------------------------------------------------------------------------------
# The ledger


class PlayerSerializer(serializers.ModelSerializer):
    """A patron: his id in hand records, his name, his chips (``Decimal`` euros)."""

    balance = serializers.DecimalField(max_digits=14, decimal_places=2, read_only=True)

    class Meta:
        model = Player
        fields = ["id", "code", "name", "balance", "created_at"]


class AccountSerializer(serializers.ModelSerializer):
    """A ledger account: a player's chips, a bank tenure, the house, the cage."""

    label = serializers.CharField(read_only=True)
    player = serializers.CharField(source="player.code", read_only=True, allow_null=True)

    class Meta:
        model = Account
        fields = ["id", "kind", "label", "player", "tenure", "balance", "is_open", "created_at"]


class StatementLineSerializer(serializers.Serializer):
    """One entry of a statement, newest first, with the running balance just after it."""

    entry = serializers.IntegerField(source="entry.id")
    transaction = serializers.IntegerField(source="transaction.id")
    kind = serializers.CharField(source="transaction.kind")
    reference = serializers.CharField(source="transaction.reference")
    posted_at = serializers.DateTimeField(source="transaction.posted_at")
    side = serializers.CharField(source="entry.side")
    amount = serializers.DecimalField(source="entry.amount", max_digits=14, decimal_places=2)
    signed = serializers.DecimalField(max_digits=14, decimal_places=2)
    running = serializers.DecimalField(max_digits=14, decimal_places=2)


class StatementSerializer(serializers.Serializer):
    """A page of an account's statement (no total count: ``next`` says if there is more)."""

    account = serializers.IntegerField(source="account.id", allow_null=True, default=None)
    balance = serializers.DecimalField(max_digits=14, decimal_places=2)
    page = serializers.IntegerField(source="page.number")
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = StatementLineSerializer(many=True, source="lines")


class TenureSerializer(serializers.ModelSerializer):
    """A bank tenure: one holder's time with the bank at a table."""

    table_name = serializers.CharField(source="table.name", read_only=True)
    holder = serializers.CharField(source="holder.code", read_only=True)
    seller = serializers.CharField(source="seller.code", read_only=True, allow_null=True)
    account = serializers.IntegerField(source="account.id", read_only=True, allow_null=True)
    balance = serializers.DecimalField(source="account.balance", max_digits=14, decimal_places=2, read_only=True,
                                       allow_null=True)
    is_open = serializers.BooleanField(read_only=True)

    class Meta:
        model = BankTenure
        fields = ["id", "table", "table_name", "holder", "began", "ended", "opened_at", "closed_at", "capital",
                  "price", "seller", "previous", "account", "balance", "is_open"]


class ShareLineSerializer(serializers.Serializer):
    """A syndicate member's share: percent, capital paid in, distribution (actual once
    closed, prospective while open)."""

    player = serializers.CharField(source="player.code")
    percent = serializers.DecimalField(max_digits=5, decimal_places=2)
    capital = serializers.DecimalField(max_digits=14, decimal_places=2)
    distribution = serializers.DecimalField(max_digits=14, decimal_places=2)


class TenureStatementSerializer(serializers.Serializer):
    """A tenure's statement: the tenure, its balance, its syndicate's shares and a page of
    its entries."""

    tenure = TenureSerializer()
    balance = serializers.DecimalField(max_digits=14, decimal_places=2)
    shares = ShareLineSerializer(many=True)
    distribution = serializers.IntegerField(source="distribution.id", allow_null=True, default=None)
    statement = StatementSerializer()


class SlipSerializer(serializers.ModelSerializer):
    """A numbered cashier's slip (buy-in or cash-out) and its ledger transaction."""

    player = serializers.CharField(source="player.code", read_only=True)
    issued_by = serializers.CharField(source="issued_by.username", read_only=True)
    reference = serializers.CharField(read_only=True)
    balance = serializers.SerializerMethodField(help_text="the player's chips now (euros)")

    class Meta:
        model = CashierSlip
        fields = ["number", "reference", "kind", "player", "amount", "transaction", "issued_at", "issued_by",
                  "balance"]

    @extend_schema_field({"type": "string", "format": "decimal", "pattern": r"^-?\d+\.\d{2}$"})
    def get_balance(self, slip):
        from ledger.selectors import player_balance

        return f"{player_balance(player=slip.player):.2f}"


class CashierInputSerializer(serializers.Serializer):
    """A buy-in or a cash-out: the player's id and the amount in euros."""

    player = PlayerCodeField()
    amount = AmountField()


class TokenSerializer(serializers.Serializer):
    """An API token: send it as ``Authorization: Token <token>``."""

    token = serializers.CharField()
