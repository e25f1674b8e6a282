"""Hand records (``hand-record.md``) sent in, and settlements as ``manage.py settle``
prints them.
"""

from rest_framework import serializers

from api.serializers.fields import AMOUNT_SCHEMA, EventField, RulesField
from game.record import FORMAT


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
