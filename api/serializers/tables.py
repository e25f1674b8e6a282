"""Tables, shifts and hands: what the tablets and the pit read, and what they send to
open a shift, change the bank, open a hand, enter, undo or void.
"""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.fields import (
    AmountField,
    EventField,
    LegalField,
    PercentField,
    PlayerCodeField,
    RulesField,
    TableStateField,
)
from casino.roles import DEALER, has_role
from tables.models import DealerRelief, Hand, HandEvent, Shift, Table
from tables.services import pending_bank_holder


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

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_bank_holder(self, table):
        holder = pending_bank_holder(table)
        return None if holder is None else holder.code

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_open_shift(self, table):
        shifts = getattr(table, "open_shifts", None)  # prefetched by the view
        if shifts is None:
            shifts = table.shifts.filter(closed_at__isnull=True)
        return next((s.pk for s in shifts), None)

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_open_hand(self, table):
        hands = getattr(table, "open_hands", None)  # prefetched by the view
        if hands is None:
            hands = table.hands.filter(status=Hand.Status.OPEN)
        return next((h.pk for h in hands), None)


class ShiftSerializer(serializers.ModelSerializer):
    """A dealer's shift at a table."""

    table_name = serializers.CharField(source="table.name", read_only=True)
    dealer = serializers.CharField(source="dealer.username", read_only=True)
    current_dealer = serializers.CharField(source="current_dealer.username", read_only=True,
                                           help_text="who deals now: the last relief's relieving dealer, else dealer")
    opened_by = serializers.CharField(source="opened_by.username", read_only=True)
    closed_by = serializers.CharField(source="closed_by.username", read_only=True, allow_null=True)
    is_open = serializers.BooleanField(read_only=True)

    class Meta:
        model = Shift
        fields = ["id", "table", "table_name", "dealer", "current_dealer", "opened_by", "opened_at", "closed_by",
                  "closed_at", "is_open"]


class DealerReliefSerializer(serializers.ModelSerializer):
    """A dealer relieved within a shift: who, by whom, when."""

    relieved = serializers.CharField(source="relieved.username", read_only=True)
    relieving = serializers.CharField(source="relieving.username", read_only=True)
    relieved_by = serializers.CharField(source="relieved_by.username", read_only=True)

    class Meta:
        model = DealerRelief
        fields = ["id", "shift", "relieved", "relieving", "at", "relieved_by"]


class DealerReliefInputSerializer(serializers.Serializer):
    """Relieve a shift's dealer: the relieving dealer (a user with the dealer role, by
    username)."""

    dealer = serializers.SlugRelatedField(slug_field="username", queryset=get_user_model().objects.filter(
        is_active=True))

    def validate_dealer(self, user):
        if not has_role(user, DEALER):
            raise serializers.ValidationError(f"{user.username} does not have the dealer role", code="not_dealer")
        return user


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
    dealer = serializers.CharField(source="dealer.username", read_only=True, allow_null=True,
                                   help_text="who dealt it (the shift's current dealer at its opening)")

    class Meta:
        model = Hand
        fields = ["id", "table", "table_name", "number", "shift", "dealer", "status", "version", "bank", "seats", "rules",
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
