"""The monthly statements (``reports.statements``) read through the API: for an accounting
system or the regulator's portal, each version with its figures and its signature. Read
only: the auditor asks for one and signs it on the page ``/reports/statements/``."""

from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from api.permissions import IsAuditor
from api.views.base import ApiViewMixin
from reports.models import MonthlyStatement


class MonthlyStatementSerializer(serializers.ModelSerializer):
    """A monthly statement: its ``month`` (its first day), ``version``, ``last_day`` (the
    last gaming day counted), ``status`` (``pending``, ``running``, ``done``, ``failed``)
    and ``progress`` (0–100); once done, ``figures`` (``{"month": {"now", "before"}}``,
    each with ``casino``, ``tables``, ``profiles``: drop, handle, commission, tips,
    banks_result as strings of euros with two places, hold a percent string or null);
    once signed, ``signed_by``, ``signed_at``, ``signature`` (HMAC-SHA256, hex) and
    ``key_id``."""

    status = serializers.CharField(read_only=True)
    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True,
                                         default=None)
    signed_by = serializers.CharField(source="signed_by.username", read_only=True, allow_null=True, default=None)
    figures = serializers.JSONField(read_only=True)

    class Meta:
        model = MonthlyStatement
        fields = ["id", "month", "version", "last_day", "status", "progress", "figures", "requested_by",
                  "requested_at", "computed_at", "signed_by", "signed_at", "signature", "key_id"]


@extend_schema_view(
    list=extend_schema(summary="List the monthly statements, newest month and version first", tags=["reports"]),
    retrieve=extend_schema(summary="A monthly statement: its figures and its signature", tags=["reports"]),
)
class MonthlyStatementViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """The monthly statements (auditor; read only)."""

    queryset = MonthlyStatement.objects.select_related("requested_by", "signed_by").order_by("-month", "-version")
    serializer_class = MonthlyStatementSerializer
    lookup_value_regex = r"\d+"
    permission = IsAuditor
