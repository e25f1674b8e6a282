"""The ledger: players and their chips, accounts and statements, bank tenures and their
shares, the cashier's slips and what the cage sends in.
"""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.serializers.fields import AmountField, PlayerCodeField
from cage.models import CashierSlip, SlipVoid
from ledger.models import Account
from patrons.models import Player
from tables.models import BankTenure


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
    tenure = serializers.SerializerMethodField(help_text="the bank tenure whose account it is, or null")

    class Meta:
        model = Account
        fields = ["id", "kind", "label", "player", "tenure", "balance", "is_open", "created_at"]

    @extend_schema_field({"type": "integer", "nullable": True})
    def get_tenure(self, account):
        return account.tenure.pk if account.kind == Account.Kind.TENURE else None


class StatementLineSerializer(serializers.Serializer):
    """One entry of a statement, newest first, with the running balance just after it."""

    entry = serializers.IntegerField(source="entry.id")
    transaction = serializers.IntegerField(source="transaction.id")
    kind = serializers.CharField(source="transaction.kind")
    reference = serializers.CharField(source="transaction.reference",
                                      help_text="the posting's plain key, as stored (e.g. ``slip 000021``)")
    cause = serializers.JSONField(source="transaction.cause", read_only=True,
                                  help_text="what caused it, as data: ``{\"kind\": \"slip\", \"number\": 21}`` "
                                            "(ledger/references.py lists the kinds)")
    reference_text = serializers.CharField(source="transaction.reference_words", read_only=True,
                                           help_text="what caused it, in the request's language")
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


class SlipVoidSerializer(serializers.ModelSerializer):
    """A slip's void: who (a cage supervisor), when, why, and the reversing transaction."""

    voided_by = serializers.CharField(source="voided_by.username", read_only=True)

    class Meta:
        model = SlipVoid
        fields = ["reason", "voided_by", "voided_at", "reversal"]


class SlipSerializer(serializers.ModelSerializer):
    """A numbered cashier's slip (buy-in or cash-out) and its ledger transaction."""

    player = serializers.CharField(source="player.code", read_only=True)
    issued_by = serializers.CharField(source="issued_by.username", read_only=True)
    reference = serializers.CharField(read_only=True)
    balance = serializers.SerializerMethodField(help_text="the player's chips now (euros)")
    balance_after = serializers.DecimalField(max_digits=14, decimal_places=2, read_only=True,
                                             help_text="the player's chips just after the slip, as at issue (euros)")
    void = SlipVoidSerializer(read_only=True, allow_null=True, default=None,
                              help_text="the void by a cage supervisor and its reversal, or null")

    class Meta:
        model = CashierSlip
        fields = ["number", "reference", "kind", "player", "amount", "transaction", "issued_at", "issued_by",
                  "balance", "balance_after", "void"]

    @extend_schema_field({"type": "string", "format": "decimal", "pattern": r"^-?\d+\.\d{2}$"})
    def get_balance(self, slip):
        from ledger.selectors import player_balance

        return f"{player_balance(player=slip.player):.2f}"


class CashierInputSerializer(serializers.Serializer):
    """A buy-in or a cash-out: the player's id and the amount in euros."""

    player = PlayerCodeField()
    amount = AmountField(help_text="euros above zero, at most the cage's maximum per slip "
                                   "(settings.CAGE_SLIP_MAXIMUM, 100000.00 by default)")

    def validate_amount(self, amount):
        """Refused above the cage's maximum per slip, as the forms and the services do."""
        from cage.services.slips import slip_maximum

        if amount > slip_maximum():
            raise serializers.ValidationError(f"at most {slip_maximum():.2f} per slip (the cage's maximum)",
                                              code="max_value")
        return amount


class ChipTransferInputSerializer(serializers.Serializer):
    """A chip transfer recorded by the pit: both players' ids, the amount in euros, why."""

    giver = PlayerCodeField(help_text="the player id who gives the chips")
    receiver = PlayerCodeField(help_text="the player id who receives them")
    amount = AmountField()
    reason = serializers.CharField(max_length=500, help_text="why the chips change hands")


class ChipTransferSerializer(serializers.Serializer):
    """A recorded chip transfer: its ledger transaction and both players' chips now."""

    transaction = serializers.IntegerField(source="pk", help_text="the ledger transaction's id")
    giver = serializers.CharField(source="detail.giver")
    receiver = serializers.CharField(source="detail.receiver")
    amount = serializers.CharField(source="detail.amount", help_text="euros, two decimals")
    reason = serializers.CharField(source="memo")
    posted_at = serializers.DateTimeField()
    posted_by = serializers.CharField(source="posted_by.username")
    balances = serializers.SerializerMethodField(help_text="each player's chips now (euros)")

    @extend_schema_field({"type": "object", "additionalProperties": {
        "type": "string", "format": "decimal", "pattern": r"^-?\d+\.\d{2}$"}})
    def get_balances(self, txn):
        return {entry.account.player.code: f"{entry.account.balance:.2f}"
                for entry in txn.entries.select_related("account__player").order_by("id")}


class BankDepositInputSerializer(CashierInputSerializer):
    """A bank deposit at the cage: the open tenure's id, the syndicate member's id and the
    cash he deposits for his share of the bank's capital (euros; at most the cage's
    maximum per slip, and what he still owes: the service checks that)."""

    tenure = serializers.PrimaryKeyRelatedField(queryset=BankTenure.objects.all(),
                                                help_text="the bank tenure's id (``GET /api/cashier/bank-deposits/``)")


class BankDepositSlipSerializer(SlipSerializer):
    """A ``bank_deposit`` slip: as any slip, with its tenure."""

    tenure = serializers.IntegerField(source="tenure_id", read_only=True)
    rebuild = serializers.IntegerField(source="rebuild.number", read_only=True, allow_null=True, default=None,
                                       help_text="the rebuild's number it pays for; null: the bank's capital")

    class Meta(SlipSerializer.Meta):
        fields = [*SlipSerializer.Meta.fields, "tenure", "rebuild"]


class DepositOwedSerializer(serializers.Serializer):
    """What one syndicate member owes of a bank's deposit (euros)."""

    player = serializers.CharField(source="player.code")
    percent = serializers.DecimalField(max_digits=5, decimal_places=2, coerce_to_string=True)
    due = serializers.DecimalField(max_digits=14, decimal_places=2, coerce_to_string=True)
    deposited = serializers.DecimalField(max_digits=14, decimal_places=2, coerce_to_string=True)
    owing = serializers.DecimalField(max_digits=14, decimal_places=2, coerce_to_string=True)


class AwaitingBankSerializer(serializers.Serializer):
    """An open bank awaiting its deposits at the cage, with who owes what."""

    tenure = serializers.IntegerField()
    table = serializers.CharField()
    holder = serializers.CharField()
    capital = serializers.DecimalField(max_digits=14, decimal_places=2, coerce_to_string=True)
    rebuild = serializers.IntegerField(allow_null=True, help_text="the rebuild's number the deposits are for; "
                                                                  "null: for the bank's capital")
    amount = serializers.DecimalField(max_digits=14, decimal_places=2, coerce_to_string=True,
                                      help_text="what is to be deposited: the capital, or the rebuild's amount")
    members = DepositOwedSerializer(many=True, help_text="every member of the syndicate, paid up or not")
