"""The auditors' reports (``reports`` app): start one, follow its progress, read it,
download it as CSV or PDF. Auditors only, as the pages (starting a report is the one
POST an auditor makes; an admin reads them too)."""

from django.db import transaction
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import NotAcceptable
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.response import Response

from api.filters import ReportFilter, ReportRequestFilter
from api.idempotency import as_json, idempotent, request_key
from api.models import IdempotencyKey
from api.permissions import IsAdmin, IsAuditor, StartsReports
from api.views.base import ApiViewMixin, validated
from reports import services
from reports.exports import report_csv, report_pdf
from reports.models import Report, ReportKind, ReportRequest
from tables.models import Shift, Table

REPORT_READERS = IsAuditor | IsAdmin


class ReportRequestSerializer(serializers.ModelSerializer):
    """A request to compute a report: its status (pending, running, done, failed), its
    progress 0–100 and stage, and the stored report once done."""

    requested_by = serializers.CharField(source="requested_by.username", read_only=True, allow_null=True)
    queued = serializers.SerializerMethodField(help_text="sent to the task queue")

    class Meta:
        model = ReportRequest
        fields = ["id", "kind", "key", "table", "shift", "date_from", "date_to", "status", "progress", "stage",
                  "error", "report", "queued", "requested_by", "created_at", "started_at", "finished_at"]

    def get_queued(self, request) -> bool:
        return request.dispatched_at is not None


class ReportRequestInputSerializer(serializers.Serializer):
    """Start a report: ``kind`` ``shift`` (with ``shift``) or ``banks`` (with ``table``,
    ``date_from`` and ``date_to``, the first and last day included)."""

    kind = serializers.ChoiceField(choices=ReportKind.choices)
    table = serializers.PrimaryKeyRelatedField(queryset=Table.objects.all(), required=False,
                                               help_text="the table (for a shift report: its shift's table)")
    shift = serializers.PrimaryKeyRelatedField(queryset=Shift.objects.select_related("table"), required=False)
    date_from = serializers.DateField(required=False)
    date_to = serializers.DateField(required=False)

    def validate(self, attrs):
        if "table" not in attrs:
            if attrs.get("shift") is None:
                raise serializers.ValidationError({"table": ["choose a table (or the shift)"]}, code="required")
            attrs["table"] = attrs["shift"].table
        return attrs


class ReportSerializer(serializers.ModelSerializer):
    """A stored report's version (computing it again adds a version; ``at_close``: the
    shift report stored at the shift's close, which seals its chain head)."""

    table_name = serializers.CharField(source="table.name", read_only=True)

    class Meta:
        model = Report
        fields = ["id", "kind", "key", "table", "table_name", "shift", "date_from", "date_to", "exceptions", "version",
                  "at_close", "computed_at", "seconds"]


class ReportDetailSerializer(ReportSerializer):
    """A stored report with its figures (``result``: the computation's JSON, amounts as
    strings of euros)."""

    result = serializers.JSONField(read_only=True)

    class Meta(ReportSerializer.Meta):
        fields = [*ReportSerializer.Meta.fields, "result"]


class FileRenderer(BaseRenderer):
    """A file's bytes or text as they are; an error (a dict) as JSON."""

    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None):
        if isinstance(data, bytes | str):
            return data
        return JSONRenderer().render(data)


class CSVRenderer(FileRenderer):
    """``text/csv``: a report's CSV."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"


class PDFRenderer(FileRenderer):
    """``application/pdf``: a report's PDF."""

    media_type = "application/pdf"
    format = "pdf"


def _refuse_other_formats(request, renderer):
    """Refuse (406 ``not_acceptable``) a file's address asked for another format
    (``?format=json``, ``Accept: application/json``): the file is only a file; JSON is
    kept for the error answers.

    Raises:
        NotAcceptable: when the negotiated renderer is not ``renderer``.
    """
    if not isinstance(request.accepted_renderer, renderer):
        raise NotAcceptable(_("this address answers only %(media_type)s: ask it without format=json")
                            % {"media_type": renderer.media_type})


def _answer_queued(request, response, request_id):
    """On commit, after the task's send was tried: ``queued`` in the answer, and in the
    answer stored for the Idempotency-Key, says whether the broker took it."""
    response.data["queued"] = services.report_request_queued(request_id)
    IdempotencyKey.objects.filter(user=request.user, key=request_key(request)).update(
        response=as_json(response.data))


def _filename(report, extension):
    table = "".join(c if c.isalnum() else "-" for c in report.table.name).strip("-").lower()
    subject = f"shift-{report.shift_id}" if report.kind == ReportKind.SHIFT else f"{report.date_from}_{report.date_to}"
    return f"report-{report.kind}-{table}-{subject}.{extension}"


@extend_schema_view(
    list=extend_schema(summary="List the report requests, newest first", tags=["reports"]),
    retrieve=extend_schema(summary="A report request: status and progress (poll it)", tags=["reports"]),
)
class ReportRequestViewSet(ApiViewMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin,
                           viewsets.GenericViewSet):
    """Start a report (auditor) and follow its progress."""

    queryset = ReportRequest.objects.select_related("requested_by").order_by("-created_at", "-id")
    serializer_class = ReportRequestSerializer
    filterset_class = ReportRequestFilter
    lookup_value_regex = r"\d+"
    permission = REPORT_READERS
    action_permissions = {"create": StartsReports}

    @extend_schema(summary="Start a report (auditor); it is computed in the background", tags=["reports"],
                   request=ReportRequestInputSerializer, responses={202: ReportRequestSerializer})
    @idempotent
    def create(self, request):
        """Ask for a report (``reports.services.report_request``); a report already being
        computed for the same subject is that request."""
        data = validated(ReportRequestInputSerializer, request)
        queued = services.report_request(kind=data["kind"], table=data["table"], shift=data.get("shift"),
                                         date_from=data.get("date_from"), date_to=data.get("date_to"),
                                         requested_by=request.user)
        response = Response(ReportRequestSerializer(queued).data, status=status.HTTP_202_ACCEPTED)
        # The answer is built inside the Idempotency-Key's transaction, before the task is
        # sent (on commit): ``queued`` is set once the send was tried, here and in the
        # stored answer a retry with the same key replays.
        if transaction.get_connection().in_atomic_block:
            transaction.on_commit(lambda: _answer_queued(request, response, queued.pk))
        return response


@extend_schema_view(
    list=extend_schema(summary="List the stored reports, newest first", tags=["reports"]),
    retrieve=extend_schema(summary="A stored report with its figures", tags=["reports"]),
)
class ReportViewSet(ApiViewMixin, viewsets.ReadOnlyModelViewSet):
    """Stored reports: the figures as JSON, and the CSV and PDF downloads."""

    queryset = Report.objects.select_related("table").order_by("-computed_at", "-id")
    filterset_class = ReportFilter
    lookup_value_regex = r"\d+"
    permission = REPORT_READERS

    def get_queryset(self):
        if self.action == "list":
            return super().get_queryset().defer("result")
        return super().get_queryset()

    def get_serializer_class(self):
        return ReportSerializer if self.action == "list" else ReportDetailSerializer

    @extend_schema(summary="The report as CSV", tags=["reports"], responses={(200, "text/csv"): OpenApiTypes.STR})
    @action(detail=True, methods=["get"], renderer_classes=[CSVRenderer, JSONRenderer])
    def csv(self, request, pk=None):
        """The stored report as a CSV file (a block per section)."""
        report = self.get_object()
        _refuse_other_formats(request, CSVRenderer)
        response = Response(report_csv(report), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{_filename(report, "csv")}"'
        return response

    @extend_schema(summary="The report as PDF", tags=["reports"],
                   responses={(200, "application/pdf"): OpenApiTypes.BINARY})
    @action(detail=True, methods=["get"], renderer_classes=[PDFRenderer, JSONRenderer])
    def pdf(self, request, pk=None):
        """The stored report as a PDF file, with the bank's chart."""
        report = self.get_object()
        _refuse_other_formats(request, PDFRenderer)
        response = Response(report_pdf(report), content_type="application/pdf")
        response["Content-Disposition"] = f'attachment; filename="{_filename(report, "pdf")}"'
        return response
