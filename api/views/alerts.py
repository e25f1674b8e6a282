"""The auditors' alerts and the statistical review (``reports`` app): list and
read alerts, acknowledge one with a note (auditor, through ``reports.alerts.alert_acknowledge``,
the service the page uses), and the review's figures for a table and a period (read only,
computed on request as the page ``/reports/review/`` does)."""

from datetime import date

from django.utils import timezone
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import ErrorSerializer, Refusal
from api.filters import AlertFilter
from api.idempotency import idempotent
from api.permissions import AcknowledgesAlerts, IsAdmin, IsAuditor
from api.views.base import ApiViewMixin, validated
from casino import periods
from reports.alerts import NOTE_MIN, AlertError, alert_acknowledge, alert_ongoing, alert_updates
from reports.detection import MissingTheory
from reports.evidence import evidence_hands_url
from reports.journal import journal_day, journal_json
from reports.models import Alert
from reports.statistics import ALPHA
from reports.texts import alert_text
from reports.views.review import (
    ReviewForm,
    missing_theory_text,
    pooled_figures,
    review_figures,
    theory_requested,
)

ALERT_READERS = IsAuditor | IsAdmin


class AlertChangeSerializer(serializers.Serializer):
    """One change of an alert: opened (by the system) or acknowledged (who, when, the note)."""

    action = serializers.CharField()
    by = serializers.CharField(source="by.username", allow_null=True, default=None)
    at = serializers.DateTimeField()
    note = serializers.CharField()


class OngoingSerializer(serializers.Serializer):
    """An alert's later findings joined to it while open: ``count``, the latest's
    ``latest_at``, ``latest_run`` (its pooled review's id), ``latest_text`` (in the
    request's language) and ``latest_evidence`` (structured, as ``evidence``)."""

    count = serializers.IntegerField()
    latest_at = serializers.DateTimeField()
    latest_run = serializers.IntegerField(allow_null=True)
    latest_text = serializers.CharField()
    latest_evidence = serializers.JSONField()


class AlertEvidenceSerializer(serializers.Serializer):
    """One later finding joined to an open alert: when, by which pooled review, its
    figures in words and its evidence."""

    found_at = serializers.DateTimeField()
    run = serializers.IntegerField(source="run_id", allow_null=True)
    text = serializers.CharField()
    evidence = serializers.JSONField()


class AlertSerializer(serializers.ModelSerializer):
    """An alert: its finding (``kind``, ``code``, ``subject``), its place (table, shift,
    report), its status, ``text`` (the finding in words, in the request's language) and
    ``evidence`` (structured: ids of hands, bets, tenures; figures as numbers; hand ids
    cut to 200 with ``hand_total`` their full count)."""

    text = serializers.SerializerMethodField()
    table_name = serializers.CharField(source="table.name", read_only=True, allow_null=True, default=None)
    ongoing = serializers.SerializerMethodField()

    class Meta:
        model = Alert
        fields = ["id", "kind", "code", "subject", "status", "table", "table_name", "shift", "report", "opened_at",
                  "text", "evidence", "ongoing"]

    def get_text(self, alert) -> str:
        return alert_text(alert.kind, alert.code, alert.evidence)

    @extend_schema_field(OngoingSerializer(allow_null=True))
    def get_ongoing(self, alert) -> dict | None:
        """Null, or the later findings of the alert's group joined to it while it was open
        (``reports.alerts.alert_raise``): their count, the latest's time, figures in words
        and evidence (the alert's own ``evidence`` stays the first finding's)."""
        ongoing = alert_ongoing(alert)  # its updates prefetched by the view
        if ongoing is None:
            return None
        latest = ongoing["latest"]
        return {"count": ongoing["count"],
                "latest_at": serializers.DateTimeField().to_representation(latest.found_at),
                "latest_run": latest.run_id, "latest_text": latest.text, "latest_evidence": latest.evidence}


class AlertDetailSerializer(AlertSerializer):
    """An alert with its history (``changes``, oldest first) and ``hands_url``: the hand
    history page filtered to exactly its evidence's hands (absolute when the request is
    known; null when its evidence names no hands a filter selects:
    ``reports.evidence.evidence_hands_url``)."""

    changes = serializers.SerializerMethodField()
    hands_url = serializers.SerializerMethodField()
    updates = serializers.SerializerMethodField()

    class Meta(AlertSerializer.Meta):
        fields = [*AlertSerializer.Meta.fields, "changes", "hands_url", "updates"]

    @extend_schema_field(AlertEvidenceSerializer(many=True))
    def get_updates(self, alert) -> list[dict]:
        """Every later finding joined to the alert, oldest first (``ongoing`` sums them)."""
        return AlertEvidenceSerializer(alert_updates(alert), many=True).data

    def get_hands_url(self, alert) -> str | None:
        url = evidence_hands_url(alert)
        request = self.context.get("request")
        return request.build_absolute_uri(url) if url and request is not None else url

    def get_changes(self, alert) -> list[dict]:
        return AlertChangeSerializer(alert.changes.select_related("by").order_by("at", "id"), many=True).data


class AcknowledgeInputSerializer(serializers.Serializer):
    """The auditor's note: what he checked and what he found (at least 5 characters)."""

    note = serializers.CharField(max_length=4000, trim_whitespace=True,
                                 help_text=f"what was checked and what was found (at least {NOTE_MIN} characters)")


@extend_schema_view(
    list=extend_schema(summary="List the alerts, newest first (filters: status, kind, table)", tags=["alerts"]),
    retrieve=extend_schema(summary="An alert with its evidence and history", tags=["alerts"]),
)
class AlertViewSet(ApiViewMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet):
    """The auditors' alerts: read by the auditor and the admin, acknowledged by an auditor."""

    queryset = Alert.objects.select_related("table", "report").prefetch_related("updates").order_by("-opened_at", "-id")
    filterset_class = AlertFilter
    lookup_value_regex = r"\d+"
    permission = ALERT_READERS
    action_permissions = {"acknowledge": AcknowledgesAlerts}
    refusal_field = "note"

    def get_serializer_class(self):
        return AlertSerializer if self.action == "list" else AlertDetailSerializer

    @extend_schema(summary="Acknowledge an open alert with a note (auditor)", tags=["alerts"],
                   request=AcknowledgeInputSerializer,
                   responses={200: AlertDetailSerializer, 400: ErrorSerializer, 409: ErrorSerializer})
    @action(detail=True, methods=["post"])
    @idempotent
    def acknowledge(self, request, pk=None):
        """Acknowledge the alert (``reports.alerts.alert_acknowledge``): 400 naming ``note``
        when the note is too short; 409 ``already_acknowledged`` when it is not open."""
        alert = self.get_object()
        data = validated(AcknowledgeInputSerializer, request)
        try:
            alert = alert_acknowledge(alert_id=alert.pk, note=data["note"], by=request.user)
        except AlertError as error:
            if error.field == "note":
                raise Refusal(str(error), rule="note_too_short", field="note") from None
            if not Alert.objects.filter(pk=alert.pk, status=Alert.Status.OPEN).exists():
                raise Refusal(str(error), rule="already_acknowledged", field=None,
                              status_code=status.HTTP_409_CONFLICT) from None
            raise Refusal(str(error), rule="alert", field=error.field) from None
        return Response(AlertDetailSerializer(Alert.objects.select_related("table", "report").get(pk=alert.pk),
                                              context=self.get_serializer_context()).data)


REVIEW_PARAMETERS = [
    OpenApiParameter("table", OpenApiTypes.INT, required=True, description="the table's id"),
    OpenApiParameter("date_from", OpenApiTypes.DATE, required=True, description="the first day (casino's time zone)"),
    OpenApiParameter("date_to", OpenApiTypes.DATE, required=True,
                     description="the last day, included (a period is at most 92 days)"),
    OpenApiParameter("shift", OpenApiTypes.INT, description="only this shift's hands"),
    OpenApiParameter("tenure", OpenApiTypes.INT, description="only this bank tenure's hands"),
    OpenApiParameter("dealer", OpenApiTypes.STR, description="only this dealer's hands (his username)"),
    OpenApiParameter("funnel", OpenApiTypes.STR, enum=["tenure", "dealer", "shift"],
                     description="the funnel's groups (default tenure)"),
]


class ReviewView(ApiViewMixin, APIView):
    """The statistical review of a table's hands over a period (auditor, read only)."""

    permission = ALERT_READERS

    @extend_schema(summary="The review's figures for a table and a period (auditor, read only)", tags=["alerts"],
                   parameters=REVIEW_PARAMETERS,
                   responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer, 409: ErrorSerializer})
    def get(self, request):
        """The page ``/reports/review/``'s figures as JSON: ``hands``, ``bets``, ``alpha``,
        ``edge`` (the theory used: the strategy fitted to the hands), ``expectation`` (the
        whole's expected result per unit staked ``per_unit_expected`` ± ``per_unit_band``,
        the ``fit``: the seats' ``stand_at`` and the bank's ``bank_stand_at`` in half-points
        as observed in ``hands`` hands, and ``text``: it in the reader's language),
        ``alerts`` (how many tests alert), ``tests`` (each:
        ``kind`` expected / pair / cards / large_losses, its figures, ``p_value``,
        ``combined_q``, ``combined_alert``, ``hand_ids`` cut to 200 with ``hand_total``;
        money in euros), ``funnel`` (points and control limits, per unit staked) and
        ``pooled``: the latest pooled review over every table (``reports.pooling``;
        ``run`` None before the first: else its ``day``, ``tested``, ``repeated`` (tests left
        out: their bets tested on an earlier night), ``alerts``, ``lines``
        (its alerts, then the lowest q: each ``kind`` pooled / cards / exception,
        ``code``, ``window``, ``from``, ``to``, ``a``, ``b``, ``hands``, ``tables``,
        ``shifts``, figures in euros, ``z``, ``p_value``, ``combined_q``,
        ``combined_alert``, ``hand_ids``) and ``accumulating`` (groups under 30 hands to
        date), and ``waiting``, a later run not done yet).
        400 naming the parameter at fault; 409 ``theory_missing`` when the theory of the
        hands' rules is not stored (nothing is simulated on request)."""
        query = request.query_params.dict()
        query.setdefault("funnel", "tenure")
        form = ReviewForm(query)
        if not form.is_valid():
            field, messages = next(iter(form.errors.items()))
            raise Refusal(" ".join(messages), rule=form.errors.as_data()[field][0].code or "invalid",
                          field=None if field == "__all__" else field)
        data = form.cleaned_data
        try:
            computed = review_figures(data)
        except MissingTheory as missing:
            theory_requested(data)
            raise Refusal(missing_theory_text(missing), rule="theory_missing", field="table",
                          status_code=status.HTTP_409_CONFLICT) from None
        tests = [{**test, "kind": str(test["kind"])} for test in computed["tests"]]
        return Response({"table": data["table"].pk, "date_from": data["date_from"], "date_to": data["date_to"],
                         "shift": data.get("shift"), "tenure": data.get("tenure"),
                         "dealer": data["dealer"].get_username() if data.get("dealer") else None,
                         "hands": computed["hands"], "bets": computed["bets"], "alpha": ALPHA,
                         "edge": computed["edge"], "alerts": sum(1 for t in tests if t["combined_alert"]),
                         "tests": tests, "funnel": computed["funnel"], "funnel_by": data["funnel"],
                         "expectation": computed["expectation"], "pooled": pooled_figures()})


class JournalView(ApiViewMixin, APIView):
    """The accounting journal of a gaming day (auditor, read only): ``reports.journal``."""

    permission = ALERT_READERS

    @extend_schema(summary="A gaming day's accounting journal, reconciled with the ledger (auditor, read only)",
                   tags=["alerts"], parameters=[OpenApiParameter("day", OpenApiTypes.DATE,
                                                                 description="the gaming day (default today's)")],
                   responses={200: OpenApiTypes.OBJECT, 400: ErrorSerializer})
    def get(self, request):
        """``reports.journal.journal_json`` of gaming day ``?day=YYYY-MM-DD``: its entries
        (one per transaction kind, lines per chart account, amounts as strings), the
        totals per account with the ledger's movement, ``faults`` (empty when it
        reconciles). 400 naming ``day`` when it is not a date."""
        text = request.query_params.get("day")
        if text:
            try:
                day = date.fromisoformat(text)
            except ValueError:
                raise Refusal(_("day is a date written YYYY-MM-DD, not %(value)s") % {"value": text[:40]},
                              rule="invalid", field="day") from None
        else:
            day = periods.gaming_day(timezone.now())
        return Response(journal_json(journal_day(day=day)))
