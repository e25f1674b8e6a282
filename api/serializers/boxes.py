"""The boxes and the bank's life in the API: what goes in (checked here for shape; the
services check the rules) and what comes out. Amounts are strings of euros with two
decimals."""

from django.contrib.auth import get_user_model
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.fields import AmountField, PlayerCodeField
from boxes.models import BoxCount

MONEY_OUT = {"max_digits": 14, "decimal_places": 2, "coerce_to_string": True}
PIECES_SCHEMA = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0, "maximum": 10**6},
                 "example": {"50.00": 3, "0.50": 4},
                 "description": "pieces by face value: a denomination in euros with two decimals (one of "
                               "settings.BOX_DENOMINATIONS) and how many pieces, 0 to 1,000,000"}


class StaffField(serializers.SlugRelatedField):
    """A staff member by his user name."""

    def __init__(self, **kwargs):
        kwargs.setdefault("queryset", get_user_model().objects.filter(is_active=True))
        super().__init__(slug_field="username", **kwargs)


@extend_schema_field(PIECES_SCHEMA)
class PiecesField(serializers.DictField):
    """``{"50.00": 3}``: the pieces of each denomination (the service checks the values)."""

    def __init__(self, **kwargs):
        super().__init__(child=serializers.IntegerField(min_value=0, max_value=10**6), **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, dict) and any(isinstance(v, bool) for v in data.values()):
            raise serializers.ValidationError("the pieces of a denomination are a whole number", code="invalid")
        return super().to_internal_value(data)


# ---------------------------------------------------------------------------------------
# In


class AuctionOpenInputSerializer(serializers.Serializer):
    """The bank put up for auction at a table without a bank, for ``sessions`` sessions."""

    sessions = serializers.IntegerField(min_value=1, max_value=100, default=1,
                                        help_text="how many sessions the bank is awarded for")


class BidInputSerializer(serializers.Serializer):
    """A bid for the bank: the player's id and the capital he offers (he must hold it)."""

    player = PlayerCodeField()
    amount = AmountField()


class BankAmountInputSerializer(serializers.Serializer):
    """A withdrawal from the bank, or the amount it is rebuilt with."""

    amount = AmountField()


class TableBuyInInputSerializer(serializers.Serializer):
    """Cash for chips at the table: the player's id and the amount (into the drop box)."""

    player = PlayerCodeField()
    amount = AmountField()


class TipInputSerializer(serializers.Serializer):
    """A tip at the table: from a player's chips (his id), or cash straight into the tips
    box (``player`` null or left out)."""

    player = PlayerCodeField(required=False, allow_null=True,
                             help_text="the tipping player's id (chips); null for a cash tip")
    amount = AmountField()


class BoxCountInputSerializer(serializers.Serializer):
    """A box of a closed session counted by two people (neither its dealer)."""

    box = serializers.ChoiceField(choices=BoxCount.Box.values)
    denominations = PiecesField()
    first_counter = StaffField(help_text="the user name of one who counted")
    second_counter = StaffField(help_text="the user name of the other (another person)")


class BoxRecountInputSerializer(serializers.Serializer):
    """The box of a count counted again, superseding it: two counters, the pieces, why."""

    denominations = PiecesField()
    first_counter = StaffField()
    second_counter = StaffField()
    reason = serializers.CharField(max_length=2000, help_text="why the box is counted again")


class VarianceNoteInputSerializer(serializers.Serializer):
    """Why a count differs from the records."""

    text = serializers.CharField(max_length=2000)


# ---------------------------------------------------------------------------------------
# Out


class BidSerializer(serializers.Serializer):
    player = serializers.CharField(source="player.code")
    amount = serializers.DecimalField(**MONEY_OUT)
    recorded_by = serializers.CharField(source="recorded_by.username")
    recorded_at = serializers.DateTimeField()


class AuctionSerializer(serializers.Serializer):
    """A bank auction: its bids, and once awarded its winner, amount, draw and tenure."""

    id = serializers.IntegerField()
    table = serializers.IntegerField(source="table_id")
    sessions = serializers.IntegerField()
    opened_by = serializers.CharField(source="opened_by.username")
    opened_at = serializers.DateTimeField()
    bids = BidSerializer(many=True, source="bids.all")
    awarded_at = serializers.DateTimeField(allow_null=True)
    awarded_by = serializers.CharField(source="awarded_by.username", allow_null=True, default=None)
    winner = serializers.CharField(source="winner.code", allow_null=True, default=None)
    amount = serializers.DecimalField(allow_null=True, **MONEY_OUT)
    draw = serializers.JSONField(help_text="when the highest bids tied: the tied players and the one drawn")
    tenure = serializers.IntegerField(source="tenure_id", allow_null=True)


class BankMovementSerializer(serializers.Serializer):
    """A withdrawal from the bank: the ledger transaction and the bank now."""

    transaction = serializers.IntegerField(source="pk")
    kind = serializers.CharField()
    tenure = serializers.SerializerMethodField()
    amount = serializers.SerializerMethodField()
    bank = serializers.SerializerMethodField(help_text="the tenure's bank now, euros")
    posted_at = serializers.DateTimeField()
    posted_by = serializers.CharField(source="posted_by.username")

    @extend_schema_field({"type": "string", "example": "50.00"})
    def get_amount(self, txn):
        return f"{sum(e.amount for e in txn.entries.all() if e.side == 'D'):.2f}"

    @extend_schema_field({"type": "string", "example": "150.00"})
    @staticmethod
    def _bank(txn):
        return next(entry.account for entry in txn.entries.all() if entry.account.kind == "tenure")

    @extend_schema_field({"type": "integer"})
    def get_tenure(self, txn):
        return self._bank(txn).tenure.pk

    @extend_schema_field({"type": "string", "example": "150.00"})
    def get_bank(self, txn):
        return f"{self._bank(txn).balance:.2f}"


class BankRebuildSerializer(serializers.Serializer):
    """A rebuild ordered by the pit: to be deposited at the cage by the syndicate, each
    member his share (``GET /api/cashier/bank-deposits/`` lists what each owes)."""

    id = serializers.IntegerField()
    tenure = serializers.IntegerField(source="tenure_id")
    number = serializers.IntegerField(help_text="the tenure's rebuilds counted from 1")
    amount = serializers.DecimalField(**MONEY_OUT)
    held = serializers.DecimalField(help_text="what the bank held when it was ordered", **MONEY_OUT)
    ordered_by = serializers.CharField(source="ordered_by.username")
    ordered_at = serializers.DateTimeField()


class GiveUpSerializer(serializers.Serializer):
    tenure = serializers.IntegerField(help_text="the tenure closed")
    transaction = serializers.IntegerField(allow_null=True, help_text="its balance back to its syndicate, or null")


class TableBuyInSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    shift = serializers.IntegerField(source="shift_id")
    player = serializers.CharField(source="player.code")
    amount = serializers.DecimalField(**MONEY_OUT)
    transaction = serializers.IntegerField(source="transaction_id")
    recorded_by = serializers.CharField(source="recorded_by.username")
    recorded_at = serializers.DateTimeField()


class TipSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    shift = serializers.IntegerField(source="shift_id")
    kind = serializers.ChoiceField(choices=["chips", "cash"])
    player = serializers.CharField(source="player.code", allow_null=True, default=None)
    amount = serializers.DecimalField(**MONEY_OUT)
    transaction = serializers.IntegerField(source="transaction_id", allow_null=True)
    recorded_by = serializers.CharField(source="recorded_by.username")
    recorded_at = serializers.DateTimeField()


class VarianceNoteSerializer(serializers.Serializer):
    text = serializers.CharField()
    explained_by = serializers.CharField(source="explained_by.username")
    explained_at = serializers.DateTimeField()


class BoxCountSerializer(serializers.Serializer):
    """A count: by denomination, against the records; a recount names the count it
    supersedes and why; ``latest`` false once a recount superseded it."""

    id = serializers.IntegerField()
    shift = serializers.IntegerField(source="shift_id")
    box = serializers.CharField()
    denominations = serializers.JSONField()
    total = serializers.DecimalField(**MONEY_OUT)
    expected = serializers.DecimalField(allow_null=True, **MONEY_OUT)
    variance = serializers.DecimalField(allow_null=True, **MONEY_OUT)
    first_counter = serializers.CharField(source="first_counter.username")
    second_counter = serializers.CharField(source="second_counter.username")
    recorded_by = serializers.CharField(source="recorded_by.username")
    counted_at = serializers.DateTimeField()
    supersedes = serializers.IntegerField(source="supersedes_id", allow_null=True)
    reason = serializers.CharField()
    latest = serializers.BooleanField(source="is_latest")
    transaction = serializers.IntegerField(source="transaction_id", allow_null=True)
    note = serializers.SerializerMethodField()

    @extend_schema_field(VarianceNoteSerializer(allow_null=True))
    def get_note(self, count):
        note = getattr(count, "note", None)
        return VarianceNoteSerializer(note).data if note is not None else None


class SessionBoxesSerializer(serializers.Serializer):
    """A session's boxes: what the records say (buy-ins, commission, tips) and the counts."""

    shift = serializers.IntegerField()
    buy_ins = serializers.DecimalField(**MONEY_OUT)
    commission = serializers.DecimalField(**MONEY_OUT)
    tips = serializers.DecimalField(**MONEY_OUT)
    counts = BoxCountSerializer(many=True)


class TroncShareSerializer(serializers.Serializer):
    user = serializers.CharField()
    minutes = serializers.IntegerField()
    amount = serializers.DecimalField(**MONEY_OUT)


class TroncPlanSerializer(serializers.Serializer):
    """What a distribution of the undistributed tips would give now."""

    total = serializers.DecimalField(**MONEY_OUT)
    staff_percent = serializers.DecimalField(max_digits=5, decimal_places=2, coerce_to_string=True)
    staff_total = serializers.DecimalField(**MONEY_OUT)
    casino_total = serializers.DecimalField(**MONEY_OUT)
    shares = TroncShareSerializer(many=True)
    counts = serializers.ListField(child=serializers.IntegerField(), help_text="the tips counts it shares out")


class TroncDistributionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    total = serializers.DecimalField(**MONEY_OUT)
    staff_percent = serializers.DecimalField(max_digits=5, decimal_places=2, coerce_to_string=True)
    staff_total = serializers.DecimalField(**MONEY_OUT)
    casino_total = serializers.DecimalField(**MONEY_OUT)
    transaction = serializers.IntegerField(source="transaction_id")
    made_by = serializers.CharField(source="made_by.username")
    made_at = serializers.DateTimeField()
    shares = serializers.SerializerMethodField()

    @extend_schema_field(TroncShareSerializer(many=True))
    def get_shares(self, distribution):
        return [{"user": s.user.username, "minutes": s.minutes, "amount": f"{s.amount:.2f}"}
                for s in distribution.shares.select_related("user")]
