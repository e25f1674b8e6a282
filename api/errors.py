"""Every refusal of the API as one JSON shape naming the field, the event and the rule:

    {"error": {"field": "event", "event": 4, "rule": "turn", "message": "..."}}

``field`` is the request's field at fault (or null), ``event`` the event's number in the
hand or record (counted from 1; 0 for a fault outside the events; null when no event is
concerned), ``rule`` a stable code for programs (the engine's rule, the ledger's or the
tables' refusal code, or DRF's error code), ``message`` the sentence for people, in the
request's language. A serializer's refusal also carries ``fields``: every field's
messages.

Statuses: 400 a request the rules refuse (an illegal event, a bad amount, a record that
does not fit), 401/403 authentication and roles, 404, 409 a conflict with the current
state (the hand changed or is closed, no shift, the bank cannot change now, a ledger key
already posted, an ``Idempotency-Key`` reused with another request), 413 a body too
large. Nothing is written when an error is answered.
"""

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import DataError
from django.http import Http404
from django.utils.translation import gettext as _
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler as drf_exception_handler

from cage.errors import AmlRefused, DrawerError
from game.errors import EngineError, IllegalEvent
from game.record import REQUIRED_KEYS
from ledger.errors import (
    AlreadyPosted,
    AlreadyReversed,
    CoverExceeded,
    InsufficientChips,
    LedgerError,
    NotReversible,
    TenureError,
)
from tables.errors import (
    BankNotReady,
    HandNotOpen,
    NoShift,
    RecordRefused,
    RuleBroken,
    StaleHand,
    TableError,
    engine_message,
)

CONFLICTS = (StaleHand, HandNotOpen, NoShift, BankNotReady, AlreadyPosted, AlreadyReversed, NotReversible,
             TenureError, InsufficientChips, CoverExceeded, DrawerError, AmlRefused)
RECORD_FIELDS = frozenset(REQUIRED_KEYS) | {"table", "number", "started_at"}


def error_body(*, message, rule, field=None, event=None, fields=None):
    """The API's error JSON (see the module's docstring)."""
    body = {"field": field, "event": event, "rule": rule, "message": str(message)}
    if fields is not None:
        body["fields"] = fields
    return {"error": body}


class Refusal(exceptions.APIException):
    """A refusal of the API itself (not of a service), already in the error shape."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, message, *, rule, field=None, event=None, status_code=None):
        super().__init__(detail=message, code=rule)
        self.rule, self.field, self.event = rule, field, event
        if status_code is not None:
            self.status_code = status_code


class ErrorDetailSerializer(serializers.Serializer):
    """What was refused: the field, the event's number, the rule's code and the message."""

    field = serializers.CharField(allow_null=True, help_text="the request's field at fault, or null")
    event = serializers.IntegerField(allow_null=True, help_text="the event's number from 1; 0 outside the "
                                                                "events; null when no event is concerned")
    rule = serializers.CharField(help_text="a stable code of the rule broken (engine, ledger, tables or DRF)")
    message = serializers.CharField(help_text="the refusal in the request's language")
    fields = serializers.DictField(required=False, help_text="a serializer's messages for every field")


class ErrorSerializer(serializers.Serializer):
    """The body of every error response."""

    error = ErrorDetailSerializer()


def _first_field(detail, path=()):
    """The dotted path (``"event.card"``, None for the whole body) and the first message
    of a DRF ``ValidationError.detail`` (or of its codes)."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if value in ({}, []):
                continue
            inner = path if key == api_settings.NON_FIELD_ERRORS_KEY else (*path, str(key))
            return _first_field(value, inner)
        return (".".join(path) or None), ""
    if isinstance(detail, list):
        for index, value in enumerate(detail):
            if isinstance(value, dict | list):
                if value:
                    return _first_field(value, (*path, str(index)))
                continue
            return (".".join(path) or None), value
        return (".".join(path) or None), ""
    return (".".join(path) or None), detail


def _engine_field(error, default):
    if error.event:
        return default or "events"
    return error.rule if error.rule in RECORD_FIELDS else default


def _response(status_code, **body):
    return Response(error_body(**body), status=status_code)


#: DRF's messages that do not name their field ("This field is required."): the API's
#: error message names it.
_BARE = frozenset(("required", "null", "blank"))


def api_exception_handler(exc, context):
    """DRF's exception handler for the API's views: the domain's refusals and DRF's own
    errors as the API's error JSON; anything else is left to propagate (a 500)."""
    view = context.get("view")
    default_field = getattr(view, "refusal_field", None)
    if isinstance(exc, Refusal):
        return _response(exc.status_code, message=exc.detail, rule=exc.rule, field=exc.field, event=exc.event)
    if isinstance(exc, RuleBroken):
        return _response(status.HTTP_400_BAD_REQUEST, message=exc, rule=exc.rule,
                         field=exc.field or default_field, event=exc.event)
    if isinstance(exc, RecordRefused):
        return _response(status.HTTP_400_BAD_REQUEST, message=exc, rule=getattr(exc, "rule", exc.code),
                         field="events" if exc.event else exc.field, event=exc.event)
    if isinstance(exc, IllegalEvent):
        return _response(status.HTTP_400_BAD_REQUEST, message=engine_message(exc),
                         rule=exc.rule, field=_engine_field(exc, default_field), event=exc.event)
    if isinstance(exc, EngineError):  # InvalidRules
        return _response(status.HTTP_400_BAD_REQUEST, message=engine_message(exc),
                         rule=exc.rule, field="rules")
    if isinstance(exc, TableError | LedgerError):
        code = status.HTTP_409_CONFLICT if isinstance(exc, CONFLICTS) else status.HTTP_400_BAD_REQUEST
        return _response(code, message=exc, rule=exc.code, field=exc.field or default_field,
                         event=getattr(exc, "event", None))
    if isinstance(exc, DjangoValidationError):  # the reports' ReportError has a field too
        field = getattr(exc, "field", None)
        if field is None and hasattr(exc, "error_dict"):
            field = next(iter(exc.error_dict), None)
        return _response(status.HTTP_400_BAD_REQUEST, message=" ".join(exc.messages),
                         rule=getattr(exc, "code", None) or "invalid", field=field)
    if isinstance(exc, DataError):
        # A value, or a balance it adds to, past what its column holds (numeric(14,2): below
        # a trillion euros; a timestamp's years): the service's transaction rolled back.
        return _response(status.HTTP_400_BAD_REQUEST, rule="out_of_range", field=default_field,
                         message=_("a value is past what the database can hold (amounts: below "
                                   "1,000,000,000,000.00); nothing was written"))
    if isinstance(exc, RequestDataTooBig):
        return _response(status.HTTP_413_REQUEST_ENTITY_TOO_LARGE, message=_("the request body is too large"),
                         rule="too_large")
    if isinstance(exc, exceptions.ValidationError):
        field, message = _first_field(exc.detail)
        _path, code = _first_field(exc.get_codes())
        if field and code in _BARE:  # "This field is required." says which field
            message = _("%(field)s: %(message)s") % {"field": field, "message": message}
        return _response(status.HTTP_400_BAD_REQUEST, message=message, rule=str(code or "invalid"),
                         field=field, fields=exc.detail if isinstance(exc.detail, dict) else None)
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, Http404):
        rule, message = "not_found", _("not found")
    elif isinstance(exc, PermissionDenied):
        rule, message = "permission_denied", _("you do not have the role this needs")
    elif isinstance(exc, exceptions.APIException):
        rule, message = exc.default_code, exc.detail
        if isinstance(message, list | dict):
            _path, message = _first_field(message)
    else:
        rule, message = "error", str(exc)
    response.data = error_body(message=message, rule=rule)
    return response
