"""The table's boxes and the bank's life through the API, calling the services the pages
call (``ledger.services.bank_life`` through ``tables.services``, ``boxes.services``,
``boxes.tronc``), with the pages' roles:

- the bank's auction (open, bid, award), a withdrawal, a rebuild, the bank given up: a
  pit supervisor (the auditor reads the auction);
- a table buy-in and a tip: the dealer of the table's open session, or a pit supervisor;
- a session's boxes (read: pit supervisor, auditor), a count, a recount, a variance's
  explanation: a pit supervisor;
- the tronc: its plan (pit supervisor, auditor) and its distribution (pit supervisor).

Every POST carries an ``Idempotency-Key`` (``api.idempotency``); the money postings also
get the ledger's own key from it.
"""

from django.db import transaction as db
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.utils import extend_schema
from rest_framework import generics, status
from rest_framework.response import Response

from api.idempotency import idempotent
from api.permissions import IsAuditor, IsDealer, IsPitSupervisor
from api.serializers.boxes import (
    AuctionOpenInputSerializer,
    AuctionSerializer,
    BankAmountInputSerializer,
    BankMovementSerializer,
    BankRebuildSerializer,
    BidInputSerializer,
    BoxCountInputSerializer,
    BoxCountSerializer,
    BoxRecountInputSerializer,
    GiveUpSerializer,
    SessionBoxesSerializer,
    TableBuyInInputSerializer,
    TableBuyInSerializer,
    TipInputSerializer,
    TipSerializer,
    TroncDistributionSerializer,
    TroncPlanSerializer,
    VarianceNoteInputSerializer,
    VarianceNoteSerializer,
)
from api.views.base import ApiViewMixin, validated
from api.views.ledger import ledger_key
from boxes import services as boxes
from boxes.errors import BoxError
from boxes.models import BoxCount
from boxes.tronc import tronc_distribute, tronc_plan
from casino.roles import PIT_SUPERVISOR, has_role
from tables import services as tables
from tables.bank import life as bank_life
from tables.errors import NoShift
from tables.models import BankAuction, BankTenure, Shift, Table

PIT_READERS = IsPitSupervisor | IsAuditor


class BoxesViewMixin(ApiViewMixin):
    """A boxes' refusal that names no field names the view's ``refusal_field``."""

    def handle_exception(self, exc):
        if isinstance(exc, BoxError) and exc.field is None:
            exc.field = self.refusal_field
        return super().handle_exception(exc)


class _TableView(BoxesViewMixin, generics.GenericAPIView):
    """A view under ``/api/tables/{id}/``."""

    queryset = Table.objects.all()

    def table(self):
        table = get_object_or_404(Table, pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, table)
        return table


def _auction_data(auction):
    auction = (BankAuction.objects.select_related("opened_by", "awarded_by", "winner")
               .prefetch_related("bids__player", "bids__recorded_by").get(pk=auction.pk))
    return AuctionSerializer(auction).data


# ---------------------------------------------------------------------------------------
# The bank's life


class AuctionView(_TableView):
    """``/api/tables/{id}/bank/auction/``: the table's open auction (GET, 404 if none);
    a pit supervisor opens one (POST) at a table without a bank."""

    serializer_class = AuctionOpenInputSerializer

    action_permissions = {"GET": PIT_READERS, "POST": IsPitSupervisor}
    refusal_field = "table"

    @extend_schema(summary="The table's open bank auction, with its bids", tags=["bank"],
                   responses={200: AuctionSerializer})
    def get(self, request, pk):
        auction = get_object_or_404(BankAuction, table=self.table(), awarded_at__isnull=True)
        return Response(_auction_data(auction))

    @extend_schema(summary="Put the bank up for auction (pit supervisor)", tags=["bank"],
                   request=AuctionOpenInputSerializer, responses={201: AuctionSerializer})
    @idempotent
    def post(self, request, pk):
        """Open the auction for ``sessions`` sessions: refused if the table has a bank or
        an auction open."""
        data = validated(AuctionOpenInputSerializer, request)
        auction = bank_life.auction_open(table=self.table(), sessions=data["sessions"], opened_by=request.user)
        return Response(_auction_data(auction), status=status.HTTP_201_CREATED)


class BidView(_TableView):
    """``/api/tables/{id}/bank/auction/bids/``: a bid recorded by the pit."""

    serializer_class = BidInputSerializer

    permission = IsPitSupervisor
    refusal_field = "amount"

    @extend_schema(summary="Record a bid for the bank (pit supervisor)", tags=["bank"],
                   request=BidInputSerializer, responses={201: AuctionSerializer})
    @idempotent
    def post(self, request, pk):
        """A player's bid: at least the table's minimum; the winner deposits it at the cage
        before the bank's first hand (not from his chips)."""
        data = validated(BidInputSerializer, request)
        auction = get_object_or_404(BankAuction, table=self.table(), awarded_at__isnull=True)
        bank_life.auction_bid(auction=auction, player=data["player"], amount=data["amount"],
                              recorded_by=request.user)
        return Response(_auction_data(auction), status=status.HTTP_201_CREATED)


class AwardView(_TableView):
    """``/api/tables/{id}/bank/auction/award/``: the highest bid wins, a tie by lot."""

    serializer_class = AuctionSerializer

    permission = IsPitSupervisor
    refusal_field = "auction"

    @extend_schema(summary="Award the bank to the highest bid; a tie drawn by lot (pit supervisor)", tags=["bank"],
                   request=None, responses={200: AuctionSerializer})
    @idempotent
    def post(self, request, pk):
        """Award the open auction: the winner's tenure opens with his bid as capital; a
        tie between the highest bids is drawn by lot and the draw recorded."""
        auction = get_object_or_404(BankAuction, table=self.table(), awarded_at__isnull=True)
        auction = bank_life.auction_award(auction=auction, awarded_by=request.user)
        return Response(_auction_data(auction))


def _movement(txn):
    txn = type(txn).objects.select_related("posted_by").prefetch_related("entries__account").get(pk=txn.pk)
    return BankMovementSerializer(txn).data


class WithdrawView(_TableView):
    """``/api/tables/{id}/bank/withdraw/``: the banker withdraws part of the bank."""

    serializer_class = BankAmountInputSerializer

    permission = IsPitSupervisor
    refusal_field = "amount"

    @extend_schema(summary="The banker withdraws part of the bank, never the stakes in play (pit supervisor)",
                   tags=["bank"], request=BankAmountInputSerializer, responses={201: BankMovementSerializer})
    @idempotent
    def post(self, request, pk):
        data = validated(BankAmountInputSerializer, request)
        txn = tables.table_bank_withdraw(table=self.table(), amount=data["amount"], by=request.user)
        return Response(_movement(txn), status=status.HTTP_201_CREATED)


class RebuildView(_TableView):
    """``/api/tables/{id}/bank/rebuild/``: a wiped-out bank ordered rebuilt, between hands;
    its syndicate deposits the amount at the cage (``POST /api/cashier/bank-deposits/``)
    before the next hand."""

    serializer_class = BankAmountInputSerializer

    permission = IsPitSupervisor
    refusal_field = "amount"

    @extend_schema(summary="Order the bank rebuilt to at least its first amount, deposited at the cage (pit supervisor)",
                   tags=["bank"], request=BankAmountInputSerializer, responses={201: BankRebuildSerializer})
    @idempotent
    def post(self, request, pk):
        data = validated(BankAmountInputSerializer, request)
        rebuild = tables.table_bank_rebuild(table=self.table(), amount=data["amount"], by=request.user)
        return Response(BankRebuildSerializer(rebuild).data, status=status.HTTP_201_CREATED)


class GiveUpView(_TableView):
    """``/api/tables/{id}/bank/give-up/``: the banker gives the bank up, between hands."""

    serializer_class = GiveUpSerializer

    permission = IsPitSupervisor
    refusal_field = "table"

    @extend_schema(summary="The banker gives the bank up (pit supervisor)", tags=["bank"], request=None,
                   responses={200: GiveUpSerializer})
    @idempotent
    def post(self, request, pk):
        table = self.table()
        tenure = BankTenure.objects.filter(table=table, closed_at__isnull=True).first()
        txn = tables.table_bank_give_up(table=table, by=request.user)
        return Response({"tenure": tenure.pk if tenure else None, "transaction": txn.pk if txn else None})


# ---------------------------------------------------------------------------------------
# At the table: buy-ins and tips


class _ConsoleView(_TableView):
    permission = IsDealer | IsPitSupervisor
    refusal_field = "amount"

    def open_shift(self, request):
        """The table's open session; a dealer only at his own (403 otherwise)."""
        table = self.table()
        shift = table.shifts.filter(closed_at__isnull=True).first()
        if shift is None:
            raise NoShift(_no_shift_message(table))
        if shift.current_dealer_id != request.user.pk and not has_role(request.user, PIT_SUPERVISOR):
            self.permission_denied(request, message="a dealer acts only at the table of his open shift")
        return shift


def _no_shift_message(table):
    return _("%(table)s has no open shift: a pit supervisor opens one first") % {"table": table.name}


class TableBuyInView(_ConsoleView):
    """``/api/tables/{id}/buy-ins/``: cash for chips at the table, into its drop box."""

    serializer_class = TableBuyInInputSerializer

    @extend_schema(summary="A table buy-in: chips for cash into the drop box (the dealer, or a pit supervisor)",
                   tags=["boxes"], request=TableBuyInInputSerializer, responses={201: TableBuyInSerializer})
    @idempotent
    def post(self, request, pk):
        data = validated(TableBuyInInputSerializer, request)
        buy_in = boxes.table_buy_in(shift=self.open_shift(request), player=data["player"], amount=data["amount"],
                                    recorded_by=request.user, idempotency_key=ledger_key(request))
        return Response(TableBuyInSerializer(buy_in).data, status=status.HTTP_201_CREATED)


class TipView(_ConsoleView):
    """``/api/tables/{id}/tips/``: a tip at the table, from a player's chips or in cash."""

    serializer_class = TipInputSerializer

    @extend_schema(summary="A tip: a player's chips (or cash) into the tips box (the dealer, or a pit supervisor)",
                   tags=["boxes"], request=TipInputSerializer, responses={201: TipSerializer})
    @idempotent
    def post(self, request, pk):
        """Refused beyond the player's chips less his stakes in open hands (409, naming
        him and his holding)."""
        data = validated(TipInputSerializer, request)
        tip = boxes.table_tip(shift=self.open_shift(request), player=data.get("player"), amount=data["amount"],
                              recorded_by=request.user, idempotency_key=ledger_key(request))
        return Response(TipSerializer(tip).data, status=status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------------------
# A session's boxes


def _counts(shift):
    return list(BoxCount.objects.filter(shift=shift).order_by("box", "id").select_related(
        "first_counter", "second_counter", "recorded_by", "note__explained_by", "superseded_by"))


class SessionBoxesView(BoxesViewMixin, generics.GenericAPIView):
    """``/api/shifts/{id}/boxes/``: the session's records and counts (GET); a count of
    one of its boxes (POST, pit supervisor)."""

    serializer_class = BoxCountInputSerializer

    queryset = Shift.objects.all()
    action_permissions = {"GET": PIT_READERS, "POST": IsPitSupervisor}
    refusal_field = "shift"

    @extend_schema(summary="A session's boxes: what the records say and the counts (latest and superseded)",
                   tags=["boxes"], responses={200: SessionBoxesSerializer})
    def get(self, request, pk):
        shift = get_object_or_404(Shift, pk=pk)
        return Response(SessionBoxesSerializer({
            "shift": shift.pk, "buy_ins": boxes.session_buy_ins(shift), "commission": boxes.session_commission(shift),
            "tips": boxes.session_tips(shift), "counts": _counts(shift)}).data)

    @extend_schema(summary="Count a box of a closed session: two people, neither its dealer (pit supervisor)",
                   tags=["boxes"], request=BoxCountInputSerializer, responses={201: BoxCountSerializer})
    @idempotent
    def post(self, request, pk):
        shift = get_object_or_404(Shift, pk=pk)
        data = validated(BoxCountInputSerializer, request)
        count = boxes.box_count(shift=shift, box=data["box"], pieces=data["denominations"],
                                first_counter=data["first_counter"], second_counter=data["second_counter"],
                                recorded_by=request.user)
        return Response(BoxCountSerializer(count).data, status=status.HTTP_201_CREATED)


class RecountView(BoxesViewMixin, generics.GenericAPIView):
    """``/api/counts/{id}/recount/``: the box counted again, superseding this count."""

    serializer_class = BoxRecountInputSerializer

    queryset = BoxCount.objects.all()
    permission = IsPitSupervisor
    refusal_field = "count"

    @extend_schema(summary="Count a box again, superseding this count, with the reason (pit supervisor)",
                   tags=["boxes"], request=BoxRecountInputSerializer, responses={201: BoxCountSerializer})
    @idempotent
    def post(self, request, pk):
        count = get_object_or_404(BoxCount, pk=pk)
        data = validated(BoxRecountInputSerializer, request)
        recount = boxes.box_recount(count=count, pieces=data["denominations"], reason=data["reason"],
                                    first_counter=data["first_counter"], second_counter=data["second_counter"],
                                    recorded_by=request.user)
        return Response(BoxCountSerializer(recount).data, status=status.HTTP_201_CREATED)


class ExplainView(BoxesViewMixin, generics.GenericAPIView):
    """``/api/counts/{id}/explanation/``: why the count differs from the records."""

    serializer_class = VarianceNoteInputSerializer

    queryset = BoxCount.objects.all()
    permission = IsPitSupervisor
    refusal_field = "text"

    @extend_schema(summary="Explain a count's variance (pit supervisor)", tags=["boxes"],
                   request=VarianceNoteInputSerializer, responses={201: VarianceNoteSerializer})
    @idempotent
    def post(self, request, pk):
        count = get_object_or_404(BoxCount, pk=pk)
        data = validated(VarianceNoteInputSerializer, request)
        note = boxes.variance_explain(count=count, text=data["text"], explained_by=request.user)
        return Response(VarianceNoteSerializer(note).data, status=status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------------------
# The tronc


class TroncView(BoxesViewMixin, generics.GenericAPIView):
    """``/api/tronc/``: what a distribution of the undistributed tips would give now."""

    serializer_class = TroncPlanSerializer

    permission = PIT_READERS

    @extend_schema(summary="The tronc's plan: the undistributed tips split by the configured policy",
                   tags=["boxes"], responses={200: TroncPlanSerializer})
    def get(self, request):
        plan = tronc_plan()
        return Response(TroncPlanSerializer({
            **plan, "counts": [c.pk for c in plan["counts"]],
            "shares": [{"user": u.get_username(), "minutes": m, "amount": a} for u, m, a in plan["shares"]]}).data)


class TroncDistributeView(BoxesViewMixin, generics.GenericAPIView):
    """``/api/tronc/distribute/``: share out the undistributed tips (posted)."""

    serializer_class = TroncDistributionSerializer

    permission = IsPitSupervisor
    refusal_field = "tronc"

    @extend_schema(summary="Share out the tronc: staff pool by minutes worked, the casino's part (pit supervisor)",
                   tags=["boxes"], request=None, responses={201: TroncDistributionSerializer})
    @idempotent
    def post(self, request):
        with db.atomic():
            distribution = tronc_distribute(made_by=request.user)
        return Response(TroncDistributionSerializer(distribution).data, status=status.HTTP_201_CREATED)
