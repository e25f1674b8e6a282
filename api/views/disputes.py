"""The dispute desk (``tables`` app) read through the API: disputes of hands and incidents
at the tables, newest first, filtered as the page ``/tables/disputes/`` filters them (a
table, a gaming day, a patron). Read only: the pit supervisor writes through the pages."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from api.filters import DisputeFilter, IncidentFilter
from api.permissions import IsAdmin, IsAuditor, IsPitSupervisor
from api.views.base import ApiViewMixin
from tables.models import Dispute, Incident

#: Who reads the desk: the auditor (read only, as everywhere), the pit, the admin.
DESK_READERS = IsAuditor | IsPitSupervisor | IsAdmin


class DisputeSerializer(serializers.ModelSerializer):
    """A dispute: its hand (id, table, number), the patron's id (null: not given), the
    claim, who opened it and when; once decided, the outcome (``upheld``, ``rejected``),
    the reasons, who decided and when, and ``void_entry``: the sequence of the hand's
    void entry when the decision voided it (null otherwise)."""

    table = serializers.IntegerField(source="hand.table_id", read_only=True)
    table_name = serializers.CharField(source="hand.table.name", read_only=True)
    hand_number = serializers.IntegerField(source="hand.number", read_only=True)
    player = serializers.CharField(source="player.code", read_only=True, allow_null=True, default=None)
    opened_by = serializers.CharField(source="opened_by.username", read_only=True)
    decided_by = serializers.CharField(source="decided_by.username", read_only=True, allow_null=True, default=None)
    void_entry = serializers.IntegerField(source="void.sequence", read_only=True, allow_null=True, default=None)

    class Meta:
        model = Dispute
        fields = ["id", "hand", "table", "table_name", "hand_number", "player", "claim", "opened_by", "opened_at",
                  "status", "outcome", "decision", "decided_by", "decided_at", "void_entry"]


class IncidentSerializer(serializers.ModelSerializer):
    """An incident: its table, kind, hand (id and number, null: none), the patron's id
    (null: none), what happened, who recorded it and when."""

    table_name = serializers.CharField(source="table.name", read_only=True)
    hand_number = serializers.IntegerField(source="hand.number", read_only=True, allow_null=True, default=None)
    player = serializers.CharField(source="player.code", read_only=True, allow_null=True, default=None)
    recorded_by = serializers.CharField(source="recorded_by.username", read_only=True)

    class Meta:
        model = Incident
        fields = ["id", "table", "table_name", "kind", "hand", "hand_number", "player", "text", "recorded_by",
                  "recorded_at"]


@extend_schema_view(
    list=extend_schema(summary="List the disputes, newest first (filters: table, day, player, status, outcome)",
                       tags=["disputes"]),
    retrieve=extend_schema(summary="A dispute and its decision", tags=["disputes"]),
)
class DisputeViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """The disputes of hands (auditor, pit supervisor, admin; read only)."""

    queryset = (Dispute.objects.select_related("hand__table", "player", "opened_by", "decided_by", "void")
                .order_by("-opened_at", "-id"))
    serializer_class = DisputeSerializer
    filterset_class = DisputeFilter
    lookup_value_regex = r"\d+"
    permission = DESK_READERS


@extend_schema_view(
    list=extend_schema(summary="List the incidents at the tables, newest first (filters: table, day, player, kind)",
                       tags=["disputes"]),
    retrieve=extend_schema(summary="An incident", tags=["disputes"]),
)
class IncidentViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """The incidents at the tables (auditor, pit supervisor, admin; read only)."""

    queryset = Incident.objects.select_related("table", "hand", "player", "recorded_by").order_by("-recorded_at", "-id")
    serializer_class = IncidentSerializer
    filterset_class = IncidentFilter
    lookup_value_regex = r"\d+"
    permission = DESK_READERS


