"""The ledger: players and their chips, accounts, statements with running balances, bank
tenures and their syndicates, cashier slips; buy-ins and cash-outs (cashier); chip
transfers between players (pit supervisor).

Reads: players by any role (the console seats them); accounts, statements, tenures and
slips by the cashier, the auditor and the admin. Writes: the cashier, through
``ledger.services``.
"""

import hashlib
from decimal import Decimal

from django.db.models import Value
from django.db.models.functions import Coalesce
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.utils.urls import remove_query_param, replace_query_param

from api.filters import AccountFilter, PlayerFilter, SlipFilter, TenureFilter
from api.idempotency import idempotent
from api.permissions import IsAdmin, IsAuditor, IsCashier, IsPitSupervisor, IsStaff
from api.serializers.ledger import (
    AccountSerializer,
    AwaitingBankSerializer,
    BankDepositInputSerializer,
    BankDepositSlipSerializer,
    CashierInputSerializer,
    ChipTransferInputSerializer,
    ChipTransferSerializer,
    PlayerSerializer,
    SlipSerializer,
    StatementSerializer,
    TenureSerializer,
    TenureStatementSerializer,
)
from api.views.base import ApiViewMixin, validated
from cage.models import CashierSlip
from cage.services.slips import (
    banks_awaiting_deposits,
    cashier_bank_deposit,
    cashier_buy_in,
    cashier_cash_out,
)
from ledger.chips import chips_transfer
from ledger.models import Account
from ledger.selectors import account_statement, player_statement
from patrons.models import Player
from tables.bank.statements import tenure_statement
from tables.models import BankTenure

LEDGER_READERS = IsCashier | IsAuditor | IsAdmin
PAGE_PARAMETER = OpenApiParameter("page", {"type": "integer", "minimum": 1, "maximum": 10**7},
                                  description="the statement's page, from 1 (newest entries first)")
ZERO = Decimal("0.00")
MAX_PAGE = 10**7  # beyond, the offset would overflow the database's bigint


def statement_data(statement, request):
    """A ``Statement`` page with ``next``/``previous`` links (no total count)."""
    url = request.build_absolute_uri()
    number = statement.page.number
    statement.next = replace_query_param(url, "page", number + 1) if statement.page.has_next else None
    if number <= 1:
        statement.previous = None
    elif number == 2:
        statement.previous = remove_query_param(url, "page")
    else:
        statement.previous = replace_query_param(url, "page", number - 1)
    return StatementSerializer(statement).data


def ledger_key(request):
    """The ledger's own idempotency key for a cashier POST: its user and
    ``Idempotency-Key``, hashed to fit (a second posting is refused by the ledger too)."""
    digest = hashlib.sha256(f"{request.user.pk}:{request.headers['Idempotency-Key']}".encode()).hexdigest()
    return f"api:{digest}"


class StatementPageSerializer(serializers.Serializer):
    """``?page=``: a statement's page, from 1."""

    page = serializers.IntegerField(min_value=1, max_value=MAX_PAGE, required=False, default=1)


def page_of(request):
    """The ``?page=`` of a statement, checked (400 naming ``page`` if it is no page number)."""
    query = StatementPageSerializer(data=request.query_params)
    query.is_valid(raise_exception=True)
    return query.validated_data["page"]


@extend_schema_view(
    list=extend_schema(summary="List the players with their chips", tags=["ledger"]),
    retrieve=extend_schema(summary="A player and his chips", tags=["ledger"]),
)
class PlayerViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Patrons by their id (``code``), with their chips."""

    queryset = Player.objects.annotate(balance=Coalesce("account__balance", Value(ZERO))).order_by("code")
    serializer_class = PlayerSerializer
    filterset_class = PlayerFilter
    lookup_field = "code"
    lookup_value_regex = r"[\w.\-]{1,64}"
    permission = IsStaff
    action_permissions = {"statement": LEDGER_READERS}

    @extend_schema(summary="A player's chips statement, newest first, with running balance", tags=["ledger"],
                   parameters=[PAGE_PARAMETER], responses={200: StatementSerializer}, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def statement(self, request, code=None):
        """A page of the player's chips statement (50 lines)."""
        return Response(statement_data(player_statement(player=self.get_object(), page=page_of(request)), request))


@extend_schema_view(
    list=extend_schema(summary="List the ledger's accounts", tags=["ledger"]),
    retrieve=extend_schema(summary="An account and its balance", tags=["ledger"]),
)
class AccountViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Every account: players' chips, bank tenures, the house, the cage."""

    queryset = Account.objects.select_related("player", "tenure").order_by("id")
    serializer_class = AccountSerializer
    filterset_class = AccountFilter
    lookup_value_regex = r"\d+"
    permission = LEDGER_READERS

    @extend_schema(summary="An account's statement, newest first, with running balance", tags=["ledger"],
                   parameters=[PAGE_PARAMETER], responses={200: StatementSerializer}, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def statement(self, request, pk=None):
        """A page of the account's statement (50 lines)."""
        return Response(statement_data(account_statement(account=self.get_object(), page=page_of(request)),
                                       request))


@extend_schema_view(
    list=extend_schema(summary="List the bank tenures", tags=["ledger"]),
    retrieve=extend_schema(summary="A bank tenure", tags=["ledger"]),
)
class TenureViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Bank tenures: who held the bank at which table, with what capital."""

    queryset = BankTenure.objects.select_related("table", "holder", "seller", "account").order_by("-opened_at", "-id")
    serializer_class = TenureSerializer
    filterset_class = TenureFilter
    lookup_value_regex = r"\d+"
    permission = LEDGER_READERS

    @extend_schema(summary="A tenure's statement: syndicate shares, distribution, entries", tags=["ledger"],
                   parameters=[PAGE_PARAMETER], responses={200: TenureStatementSerializer}, filters=False)
    @action(detail=True, methods=["get"], pagination_class=None, filterset_class=None)
    def statement(self, request, pk=None):
        """The tenure's balance, its syndicate's capital and distribution, a page of entries."""
        view = tenure_statement(tenure=self.get_object(), page=page_of(request))
        data = TenureStatementSerializer(view).data
        data["statement"] = statement_data(view.statement, request)
        return Response(data)


@extend_schema_view(
    list=extend_schema(summary="List the cashier slips, newest first", tags=["cashier"]),
    retrieve=extend_schema(summary="A cashier slip by its number", tags=["cashier"]),
)
class SlipViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Numbered cashier slips (buy-ins and cash-outs)."""

    queryset = CashierSlip.objects.select_related("player", "issued_by", "void__voided_by").order_by("-number")
    serializer_class = SlipSerializer
    filterset_class = SlipFilter
    lookup_field = "number"
    lookup_value_regex = r"\d+"
    permission = LEDGER_READERS


class CashierViewSet(ApiViewMixin, viewsets.GenericViewSet):
    """The cage: a buy-in (cash in, chips out) and a cash-out (chips in, cash out)."""

    permission = IsCashier
    serializer_class = CashierInputSerializer
    queryset = CashierSlip.objects.none()  # for the schema: the actions post through the services

    def _slip(self, request, service):
        data = validated(CashierInputSerializer, request)
        slip = service(player=data["player"], amount=data["amount"], posted_by=request.user,
                       idempotency_key=ledger_key(request))
        return Response(SlipSerializer(slip).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Buy-in: chips for cash (cashier)", tags=["cashier"], request=CashierInputSerializer,
                   responses={201: SlipSerializer})
    @action(detail=False, methods=["post"], url_path="buy-in", refusal_field="amount")
    @idempotent
    def buy_in(self, request):
        """Post a buy-in and issue its numbered slip."""
        return self._slip(request, cashier_buy_in)

    @extend_schema(summary="Cash-out: cash for chips (cashier)", tags=["cashier"], request=CashierInputSerializer,
                   responses={201: SlipSerializer})
    @action(detail=False, methods=["post"], url_path="cash-out", refusal_field="amount")
    @idempotent
    def cash_out(self, request):
        """Post a cash-out (refused above the player's chips) and issue its slip."""
        return self._slip(request, cashier_cash_out)

    @extend_schema(summary="The banks awaiting their deposits at the cage, with who owes what (cashier)",
                   tags=["cashier"], request=None, responses={200: AwaitingBankSerializer(many=True)})
    @action(detail=False, methods=["get"], url_path="bank-deposits", pagination_class=None, refusal_field="tenure")
    def bank_deposits(self, request):
        """The open banks whose capital (or the rebuild the pit ordered) is not yet deposited, by table: each
        member of the syndicate with his share due, deposited and still owing
        (``ledger.services.deposits_owed``), as the cage's page lists them."""
        rows = []
        for tenure, members in banks_awaiting_deposits():
            rebuild = members[0]["rebuild"]
            rows.append({"tenure": tenure.pk, "table": tenure.table.name, "holder": tenure.holder.code,
                         "capital": tenure.capital, "rebuild": rebuild.number if rebuild else None,
                         "amount": rebuild.amount if rebuild else tenure.capital, "members": members})
        return Response(AwaitingBankSerializer(rows, many=True).data)

    @extend_schema(summary="A bank deposit: a syndicate member's cash for his share of the bank (cashier)",
                   tags=["cashier"], request=BankDepositInputSerializer, responses={201: BankDepositSlipSerializer})
    @bank_deposits.mapping.post
    @idempotent
    def bank_deposit(self, request):
        """Book a ``bank_deposit`` slip against the cashier's open drawer
        (``ledger.services.cashier_bank_deposit``): refused (409 naming ``tenure``,
        ``player`` or ``amount``) for a closed bank, one not awaiting deposits, a player
        not of its syndicate, or above what he still owes; 409 without an open drawer."""
        data = validated(BankDepositInputSerializer, request)
        slip = cashier_bank_deposit(tenure=data["tenure"], player=data["player"], amount=data["amount"],
                                             posted_by=request.user, idempotency_key=ledger_key(request))
        return Response(BankDepositSlipSerializer(slip).data, status=status.HTTP_201_CREATED)


class ChipTransferViewSet(ApiViewMixin, viewsets.GenericViewSet):
    """Chips handed from one player to another, recorded by the pit supervisor
    (``ledger.services.chips_transfer``)."""

    permission = IsPitSupervisor
    serializer_class = ChipTransferInputSerializer

    @extend_schema(summary="Chip transfer between two players (pit supervisor)", tags=["pit"],
                   request=ChipTransferInputSerializer, responses={201: ChipTransferSerializer})
    @action(detail=False, methods=["post"], url_path="transfer", refusal_field="amount")
    @idempotent
    def transfer(self, request):
        """Post the transfer: refused above what the giver holds less what he has at risk
        in open hands, or between the same player."""
        data = validated(ChipTransferInputSerializer, request)
        txn = chips_transfer(giver=data["giver"], receiver=data["receiver"], amount=data["amount"],
                                      reason=data["reason"], posted_by=request.user,
                                      idempotency_key=ledger_key(request))
        return Response(ChipTransferSerializer(txn).data, status=status.HTTP_201_CREATED)
