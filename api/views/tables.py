"""Tables, shifts and hands: what the dealer's console and the pit supervisor's pages do,
through the same services (``tables.services``) and the same roles.

- Any role reads the tables.
- A dealer opens hands, enters events and undoes them only at the table of his open
  shift, and reads only the shifts and hands of that table.
- A pit supervisor opens and closes shifts and voids hands; auditors read everything.
"""

import json
from datetime import UTC, datetime, time, timedelta

from django.db.models import Prefetch
from django.http import StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.utils import timezone
from django.utils.dateparse import parse_date, parse_datetime
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import generics, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import Refusal
from api.filters import HandEntryFilter, HandFilter, ShiftFilter, TableFilter
from api.idempotency import idempotent
from api.permissions import IsAdmin, IsAuditor, IsDealer, IsPitSupervisor, IsStaff, dealer_only
from api.serializers.ledger import TenureSerializer
from api.serializers.records import HandRecordSerializer
from api.serializers.tables import (
    BankChangeInputSerializer,
    DealerReliefInputSerializer,
    DealerReliefSerializer,
    EventInputSerializer,
    HandEntrySerializer,
    HandOpenInputSerializer,
    HandSerializer,
    HandStateSerializer,
    ShiftOpenInputSerializer,
    ShiftSerializer,
    TableSerializer,
    UndoInputSerializer,
    VoidInputSerializer,
)
from api.views.base import ApiViewMixin, validated
from game import format_cents
from game.errors import IllegalEvent
from tables import services
from tables.models import BankTenure, Hand, HandEvent, Shift, Table
from tables.selectors import hand_record

READERS = IsDealer | IsPitSupervisor | IsAuditor | IsAdmin


def legal_data(legal):
    """``HandState.legal()`` as the API shows it: amounts in euros (strings), ranges as
    ``{"min", "max"}``, owed identities as ``{"owner", "hand"}``, a pair to split as
    ``{"seat", "hand"}``."""
    data = legal.as_dict()
    for name in ("bet", "muerto"):
        if data[name] is not None:
            low, high = data[name]
            data[name] = {"min": format_cents(low), "max": format_cents(high)}
    data["loca_raises"] = {player: None if most is None else format_cents(most)
                           for player, most in (data["loca_raises"] or {}).items()}
    data["identities_owed"] = [{"owner": owner, "hand": number} for owner, number in data["identities_owed"] or ()]
    data["to_deal"] = list(data["to_deal"] or ())
    data["side_bet_seats"] = list(data["side_bet_seats"] or ())
    if data["one_card_cap"] is not None:
        data["one_card_cap"] = format_cents(data["one_card_cap"])
    if data["pair_split"] is not None:
        seat, number = data["pair_split"]
        data["pair_split"] = {"seat": seat, "hand": number}
    data["loca_calls"] = list(data["loca_calls"] or ())
    data["loca_responsables"] = list(data["loca_responsables"] or ())
    return data


def console_view(hand):
    """What the console shows for a hand: the hand, the engine's ``describe()`` and
    ``legal()`` of its events in force."""
    state = services.hand_state(hand)
    return {"hand": HandSerializer(hand).data, "state": state.describe(), "legal": legal_data(state.legal())}


def hands_readable_by(user, queryset):
    """Limit hands (or shifts) to the tables of a dealer's open shifts when he reads as a
    dealer only; everyone else reads every table."""
    if not dealer_only(user):
        return queryset
    tables = Shift.objects.filter(current_dealer=user, closed_at__isnull=True).values("table")
    return queryset.filter(table__in=tables)


# ---------------------------------------------------------------------------------------
# Tables


@extend_schema_view(
    list=extend_schema(summary="List the tables", tags=["tables"]),
    retrieve=extend_schema(summary="A table: rules, limits, open shift and hand", tags=["tables"]),
)
class TableViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """The tables, their rules and limits (any role reads them); a table's hands; a
    dealer opens the next hand at the table of his open shift."""

    queryset = Table.objects.prefetch_related(
        Prefetch("shifts", queryset=Shift.objects.filter(closed_at__isnull=True), to_attr="open_shifts"),
        Prefetch("hands", queryset=Hand.objects.filter(status=Hand.Status.OPEN), to_attr="open_hands"),
    ).order_by("name")
    serializer_class = TableSerializer
    filterset_class = TableFilter
    lookup_value_regex = r"\d+"
    permission = IsStaff
    action_permissions = {"bank_draw": IsPitSupervisor, "bank_sell": IsPitSupervisor,
                          "bank_transfer": IsPitSupervisor}

    def _bank_change(self, request, change):
        """Check a bank change's body and make it with ``change`` (a ``tables.services``
        bank service); answers the new tenure."""
        table = self.get_object()
        sale = change is services.table_bank_sell
        data = validated(BankChangeInputSerializer, request, sale=sale)
        who = {"buyer": data["holder"], "price": data["price"]} if sale else {"holder": data["holder"]}
        tenure = change(table=table, capital=data["capital"], shares=data["shares"], by=request.user, **who)
        tenure = BankTenure.objects.select_related("table", "holder", "seller", "account").get(pk=tenure.pk)
        return Response(TenureSerializer(tenure).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Draw for the bank: the table's first tenure (pit supervisor)", tags=["bank"],
                   request=BankChangeInputSerializer, responses={201: TenureSerializer})
    @action(detail=True, methods=["post"], url_path="bank/draw", refusal_field="capital")
    @idempotent
    def bank_draw(self, request, pk=None):
        """The bank drawn for at the start of a session: holder, capital, syndicate."""
        return self._bank_change(request, services.table_bank_draw)

    @extend_schema(summary="Sell the bank between hands (pit supervisor)", tags=["bank"],
                   request=BankChangeInputSerializer, responses={201: TenureSerializer})
    @action(detail=True, methods=["post"], url_path="bank/sell", refusal_field="capital")
    @idempotent
    def bank_sell(self, request, pk=None):
        """The buyer pays the price to the old syndicate and opens his tenure."""
        return self._bank_change(request, services.table_bank_sell)

    @extend_schema(summary="Transfer the bank between hands, without a price (pit supervisor)", tags=["bank"],
                   request=BankChangeInputSerializer, responses={201: TenureSerializer})
    @action(detail=True, methods=["post"], url_path="bank/transfer", refusal_field="capital")
    @idempotent
    def bank_transfer(self, request, pk=None):
        """The old tenure closes (its balance back to its syndicate); the new one opens."""
        return self._bank_change(request, services.table_bank_transfer)


class TableHandsView(ApiViewMixin, generics.ListAPIView):
    """``/api/tables/{id}/hands/``: the table's hands (GET); the dealer of the table's open
    shift opens the next hand (POST)."""

    serializer_class = HandSerializer
    filterset_class = HandFilter
    action_permissions = {"GET": READERS, "POST": IsDealer}
    refusal_field = "seats"

    def table(self):
        """The table of the URL, checked against the user's roles (a dealer: his table)."""
        table = get_object_or_404(Table, pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, table)
        return table

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Hand.objects.none()
        return Hand.objects.filter(table=self.table()).select_related("table", "bank", "opened_by").order_by("-number")

    @extend_schema(summary="The table's hands, newest first", tags=["hands"])
    def get(self, request, *args, **kwargs):
        """The hands of this table (filters as ``/hands/``)."""
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Open the next hand (dealer at his table)", tags=["hands"],
                   request=HandOpenInputSerializer, responses={201: HandStateSerializer}, filters=False)
    @idempotent
    def post(self, request, pk):
        """Open the next hand with the table's bank holder and these seats; answers the
        console's view of the new hand."""
        table = self.table()
        data = validated(HandOpenInputSerializer, request)
        hand = services.hand_open(table=table, seats=data["seats"], opened_by=request.user,
                                  shift=services.dealer_shift(table=table, user=request.user))
        return Response(console_view(hand), status=status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------------------
# Shifts


@extend_schema_view(
    list=extend_schema(summary="List the shifts", tags=["shifts"]),
    retrieve=extend_schema(summary="A shift", tags=["shifts"]),
)
class ShiftViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Dealers' shifts; a pit supervisor opens them, relieves their dealer and closes them."""

    serializer_class = ShiftSerializer
    filterset_class = ShiftFilter
    lookup_value_regex = r"\d+"
    permission = READERS
    action_permissions = {"create": IsPitSupervisor, "close": IsPitSupervisor, "relieve": IsPitSupervisor}

    def get_queryset(self):
        queryset = Shift.objects.select_related("table", "dealer", "current_dealer", "opened_by", "closed_by")
        return hands_readable_by(self.request.user, queryset)

    @extend_schema(summary="Open a dealer's shift at a table (pit supervisor)", tags=["shifts"],
                   request=ShiftOpenInputSerializer, responses={201: ShiftSerializer})
    @idempotent
    def create(self, request):
        """Open a shift: ``{"table": id, "dealer": username}``."""
        data = validated(ShiftOpenInputSerializer, request)
        shift = services.shift_open(table=data["table"], dealer=data["dealer"], opened_by=request.user)
        return Response(ShiftSerializer(shift).data, status=status.HTTP_201_CREATED)

    @extend_schema(summary="Close a shift (pit supervisor)", tags=["shifts"], request=None,
                   responses={200: ShiftSerializer})
    @action(detail=True, methods=["post"])
    @idempotent
    def close(self, request, pk=None):
        """Close the shift; refused while a hand is open at its table."""
        shift = services.shift_close(shift=self.get_object(), closed_by=request.user)
        return Response(ShiftSerializer(shift).data)

    @extend_schema(summary="Relieve the shift's dealer, between hands (pit supervisor)", tags=["shifts"],
                   request=DealerReliefInputSerializer, responses={201: DealerReliefSerializer})
    @action(detail=True, methods=["post"])
    @idempotent
    def relieve(self, request, pk=None):
        """Relieve the shift's current dealer: ``{"dealer": username}`` takes the table
        now; refused while a hand is open, for a closed shift, for the dealer dealing."""
        data = validated(DealerReliefInputSerializer, request)
        relief = services.dealer_relieve(shift=self.get_object(), dealer=data["dealer"], relieved_by=request.user)
        return Response(DealerReliefSerializer(relief).data, status=status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------------------
# Hands


@extend_schema_view(
    list=extend_schema(summary="List the hands", tags=["hands"]),
    retrieve=extend_schema(summary="A hand, with its settlement once settled", tags=["hands"]),
)
class HandViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Hands: the console's state, entering events and undos (the dealer at his table),
    voids (pit supervisor), the hand as a hand record."""

    serializer_class = HandSerializer
    filterset_class = HandFilter
    lookup_value_regex = r"\d+"
    permission = READERS
    action_permissions = {"undo": IsDealer, "void": IsPitSupervisor}

    def get_queryset(self):
        queryset = Hand.objects.select_related("table", "bank", "opened_by", "dealer")
        return hands_readable_by(self.request.user, queryset)

    def filter_queryset(self, queryset):
        if self.action == "list":
            return super().filter_queryset(queryset)
        return queryset

    @extend_schema(summary="What the console shows: the table and the legal actions", tags=["hands"],
                   responses={200: HandStateSerializer})
    @action(detail=True, methods=["get"])
    def state(self, request, pk=None):
        """The hand, ``describe()`` of its table and ``legal()`` (amounts in euros)."""
        return Response(console_view(self.get_object()))

    @extend_schema(summary="Undo the latest event in force (dealer at his table)", tags=["hands"],
                   request=UndoInputSerializer, responses={201: HandStateSerializer})
    @action(detail=True, methods=["post"], refusal_field="reason")
    @idempotent
    def undo(self, request, pk=None):
        """Undo the latest event still in force; the undo is an entry of its own."""
        hand = self.get_object()
        data = validated(UndoInputSerializer, request)
        hand = services.hand_undo(hand=hand, reason=data["reason"], entered_by=request.user,
                                  expected_version=data.get("expected_version"))
        return Response(console_view(hand), status=status.HTTP_201_CREATED)

    @extend_schema(summary="Void a hand (pit supervisor)", tags=["hands"], request=VoidInputSerializer,
                   responses={200: HandSerializer})
    @action(detail=True, methods=["post"], refusal_field="reason")
    @idempotent
    def void(self, request, pk=None):
        """Void the hand; a settled hand's ledger posting is reversed."""
        hand = self.get_object()
        data = validated(VoidInputSerializer, request)
        hand = services.hand_void(hand=hand, reason=data["reason"], voided_by=request.user)
        return Response(HandSerializer(Hand.objects.select_related("table", "bank", "opened_by", "dealer").get(pk=hand.pk)).data)

    @extend_schema(summary="The hand as a hand record (hand-record.md)", tags=["hand records"],
                   responses={200: HandRecordSerializer})
    @action(detail=True, methods=["get"])
    def record(self, request, pk=None):
        """The hand as a hand record, every card named; 409 while a face-down card is
        unnamed."""
        try:
            return Response(hand_record(self.get_object()))
        except IllegalEvent as error:
            raise Refusal(_(error.template).format(**error.params), rule=error.rule, event=error.event,
                          status_code=status.HTTP_409_CONFLICT) from None


class HandEntriesView(ApiViewMixin, generics.ListAPIView):
    """``/api/hands/{id}/events/``: the hand's entries in order (GET); the dealer at the
    hand's table enters an event (POST)."""

    serializer_class = HandEntrySerializer
    filterset_class = HandEntryFilter
    action_permissions = {"GET": READERS, "POST": IsDealer}
    refusal_field = "event"

    def hand(self):
        """The hand of the URL, as the user may see it (a dealer: at his table)."""
        hand = get_object_or_404(hands_readable_by(self.request.user, Hand.objects.select_related("table", "bank")),
                                 pk=self.kwargs["pk"])
        self.check_object_permissions(self.request, hand)
        return hand

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return HandEvent.objects.none()
        return HandEvent.objects.filter(hand=self.hand()).select_related("entered_by").order_by("sequence")

    @extend_schema(summary="The hand's entries (events, undos, voids), in order", tags=["hands"])
    def get(self, request, *args, **kwargs):
        """Every entry made on the hand, never changed, with its chained hash."""
        return super().get(request, *args, **kwargs)

    @extend_schema(summary="Enter an event (dealer at his table)", tags=["hands"], request=EventInputSerializer,
                   responses={201: HandStateSerializer}, filters=False)
    @idempotent
    def post(self, request, pk):
        """Enter one event; the hand is settled and posted to the ledger with the event
        that finishes it. Answers the console's view after the event."""
        hand = self.hand()
        data = validated(EventInputSerializer, request)
        hand = services.hand_record_event(hand=hand, event=data["event"], entered_by=request.user,
                                          expected_version=data.get("expected_version"), source="api")
        return Response(console_view(hand), status=status.HTTP_201_CREATED)


# ---------------------------------------------------------------------------------------
# The audit export: a table's settled hands as JSON Lines


class JSONLinesRenderer(BaseRenderer):
    """``application/jsonl``: one JSON value per line (an error is one line too)."""

    media_type = "application/jsonl"
    format = "jsonl"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


@extend_schema_field({"type": "string", "description": "a date (2024-05-31) or an ISO 8601 datetime"})
class MomentField(serializers.Field):
    """An ISO 8601 datetime, or a date meaning its midnight in the casino's time zone (for
    ``end``, the midnight after it: the whole day is included)."""

    default_error_messages = {"invalid": "a date (2024-05-31) or a datetime (2024-05-31T22:00:00+02:00)"}

    def __init__(self, *, end=False, **kwargs):
        self.end = end
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        text = str(data).strip()
        try:
            # A bare date first: parse_datetime would read "2024-05-31" as its midnight.
            day = parse_date(text)
            moment = None if day is not None else parse_datetime(text)
        except ValueError:
            self.fail("invalid")
        if moment is None and day is None:
            self.fail("invalid")
        if moment is None:
            moment = datetime.combine(day, time.min)
            if self.end:
                moment += timedelta(days=1)
        try:
            if timezone.is_naive(moment):
                moment = timezone.make_aware(moment)
            return moment.astimezone(UTC)  # PostgreSQL refuses offsets beyond ±15:59
        except (OverflowError, ValueError):
            self.fail("invalid")

    def to_representation(self, value):
        return value.isoformat()


class ExportQuerySerializer(serializers.Serializer):
    """The period of the export: hands opened from ``from`` (inclusive) until ``to``
    (exclusive for a datetime; a date includes its whole day). Both optional."""

    def get_fields(self):
        return {"from": MomentField(required=False, help_text="first moment (a date or an ISO datetime)"),
                "to": MomentField(end=True, required=False,
                                  help_text="end of the period: a date includes that day; a datetime is excluded")}


class TableHandsExport(ApiViewMixin, APIView):
    """``GET /api/tables/{id}/hands.jsonl``: the audit replay's input."""

    permission = IsPitSupervisor | IsAuditor | IsAdmin
    renderer_classes = [JSONLinesRenderer, JSONRenderer]

    @extend_schema(
        summary="A table's settled hands over a period, as JSON Lines of hand records", tags=["hand records"],
        description="One hand record per line (hand-record.md), settled hands only (voided ones are left out), "
                    "in the order of their numbers, filtered on when each hand opened. `manage.py settle` "
                    "settles the file to exactly the ledger's postings of those hands: the audit replay.",
        parameters=[ExportQuerySerializer,
                    OpenApiParameter("id", int, OpenApiParameter.PATH, description="the table's id")],
        responses={(200, "application/jsonl"): OpenApiTypes.STR})
    def get(self, request, pk):
        """Stream the table's settled hands of the period, one hand record a line."""
        table = Table.objects.filter(pk=pk).first()
        if table is None:
            raise Refusal(_("there is no table %(id)s") % {"id": pk}, rule="not_found",
                          status_code=status.HTTP_404_NOT_FOUND)
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        hands = Hand.objects.filter(table=table, status=Hand.Status.SETTLED).select_related("table", "bank")
        if "from" in query.validated_data:
            hands = hands.filter(opened_at__gte=query.validated_data["from"])
        if "to" in query.validated_data:
            hands = hands.filter(opened_at__lt=query.validated_data["to"])
        lines = (json.dumps(hand_record(hand), ensure_ascii=False, separators=(",", ":")) + "\n"
                 for hand in hands.order_by("number").iterator(chunk_size=500))
        response = StreamingHttpResponse(lines, content_type="application/jsonl; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="table-{table.pk}-hands.jsonl"'
        return response
