"""Hand records in: the import (recorded and settled through the console's services) and
the dry-run settlement (nothing written, as ``manage.py settle``)."""

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.errors import Refusal
from api.idempotency import idempotent
from api.permissions import IsAdmin, IsPitSupervisor, IsStaff
from api.serializers.records import HandRecordSerializer, SettlementSerializer
from api.serializers.tables import HandSerializer
from api.views.base import ApiViewMixin, validated
from casino.roles import ADMIN, has_role
from game.payouts import settle
from game.record import play_record
from tables.importing import hand_import_record


class ImportQuerySerializer(serializers.Serializer):
    """``?create_tables=true`` (admin): create the record's table if there is none."""

    create_tables = serializers.BooleanField(required=False, default=False)


class HandRecordImport(ApiViewMixin, APIView):
    """``POST /api/hand-records/``: import one hand record (pit supervisor, admin)."""

    permission = IsPitSupervisor | IsAdmin

    @extend_schema(
        summary="Import a hand record: recorded and settled at its table", tags=["hand records"],
        description="The record names its `table`; its rules and limits must be the table's, its bank the "
                    "table's holder, its `number` (if given) the table's next. The engine checks it first: a "
                    "refusal names the event and the rule, and nothing is written.",
        request=HandRecordSerializer, responses={201: HandSerializer},
        parameters=[ImportQuerySerializer,
                    OpenApiParameter("create_tables", bool, description="admin only: create a missing table "
                                                                        "from the record's rules and limits")])
    @idempotent
    def post(self, request):
        """Check the record with the engine, then import it (``hand_import_record``)."""
        record = validated(HandRecordSerializer, request)
        query = ImportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        create_tables = query.validated_data["create_tables"]
        if create_tables and not has_role(request.user, ADMIN):
            raise Refusal("only an admin creates tables from records", rule="permission_denied",
                          field="create_tables", status_code=status.HTTP_403_FORBIDDEN)
        play_record(record)  # the engine's refusal names the event and the rule
        hand = hand_import_record(record=record, imported_by=request.user, create_tables=create_tables)
        return Response(HandSerializer(hand).data, status=status.HTTP_201_CREATED)


class SettleDryRun(ApiViewMixin, APIView):
    """``POST /api/settle/``: settle a hand record without writing anything (any role)."""

    permission = IsStaff

    @extend_schema(
        summary="Settle a hand record as a dry run (nothing written)", tags=["hand records"],
        description="The settlement `manage.py settle` prints for this record, or the error naming the event "
                    "and the rule. Nothing is written but the Idempotency-Key.",
        request=HandRecordSerializer, responses={200: SettlementSerializer})
    @idempotent
    def post(self, request):
        """Play and settle the record with the engine."""
        record = validated(HandRecordSerializer, request)
        result = settle(play_record(record)).as_dict()
        for key in ("table", "number"):
            if key in record:
                result[key] = record[key]
        return Response(result)
