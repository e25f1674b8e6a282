"""The OpenAPI schema's conventions, added to every operation by ``ApiAutoSchema``:

- every POST whose handler is ``@idempotent`` takes the required ``Idempotency-Key``
  header (and may answer ``Idempotent-Replayed: true``);
- every operation documents its error responses with the API's error JSON
  (``api.errors.ErrorSerializer``): 400 and 401/403 always, 404 where the path names an
  object, 409 (and 413, 415) for POSTs.
"""

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework.permissions import AllowAny

from api.errors import ErrorSerializer
from api.idempotency import HEADER, MAX_LENGTH

#: drf-spectacular settings of the API's schema (on top of SPECTACULAR_SETTINGS).
SCHEMA_SETTINGS = {
    "COMPONENT_SPLIT_REQUEST": True,
    "SCHEMA_PATH_PREFIX": "/api/",
    "ENUM_NAME_OVERRIDES": {
        "AccountKindEnum": "ledger.models.Account.Kind",
        "SlipKindEnum": "ledger.models.CashierSlip.Kind",
        "EntryKindEnum": "tables.models.HandEvent.Kind",
        "ReportKindEnum": "reports.models.ReportKind",
        "HandStatusEnum": "tables.models.Hand.Status",
        "ReportRequestStatusEnum": "reports.models.ReportRequest.Status",
        "TenureBeganEnum": "ledger.models.BankTenure.Began",
        "TenureEndedEnum": "ledger.models.BankTenure.Ended",
        "AlertKindEnum": "reports.models.AlertKind",
        "AlertStatusEnum": "reports.models.Alert.Status",
        "DisputeStatusEnum": "tables.models.Dispute.Status",
        "DisputeOutcomeEnum": "tables.models.Dispute.Outcome",
        "IncidentKindEnum": "tables.models.Incident.Kind",
    },
}


def api_schema():
    """The API's OpenAPI schema as a dict, as ``/api/schema/`` serves it."""
    from drf_spectacular.generators import SchemaGenerator
    from drf_spectacular.settings import patched_settings

    with patched_settings(SCHEMA_SETTINGS):
        return SchemaGenerator().get_schema(request=None, public=True)


IDEMPOTENCY_PARAMETER = OpenApiParameter(
    HEADER, str, OpenApiParameter.HEADER, required=True,
    description="Any unique text chosen by the client (a UUID), 1-255 visible ASCII characters. The same key "
                "with the same request replays the first response (header Idempotent-Replayed: true) without "
                "doing anything again; the same key with another request is answered 409.",
    pattern=rf"^[!-~]{{1,{MAX_LENGTH}}}$")

ERRORS = {
    400: "Refused: the field, the event and the rule at fault (nothing was written).",
    401: "Not authenticated: send 'Authorization: Token <key>' or log in (session).",
    403: "The user does not hold the role this needs (dealers: only at the table of their open shift).",
    404: "No such object (or not visible to this user), or no such page of a list.",
    409: "Conflict with the current state (the hand changed or is closed, no shift, the bank cannot change "
         "now, a ledger key already posted), or the Idempotency-Key was used for another request.",
    413: "The request body is too large.",
    415: "The body must be JSON (application/json).",
}


class ApiAutoSchema(AutoSchema):
    """drf-spectacular's ``AutoSchema`` with the API's header and error conventions."""

    def _handler(self):
        action = getattr(self.view, "action", None)
        if action:
            return getattr(self.view, action, None)
        return getattr(self.view, self.method.lower(), None)

    def is_idempotent(self):
        """True if this operation's handler takes an ``Idempotency-Key``."""
        return self.method == "POST" and getattr(self._handler(), "idempotent", False)

    def get_override_parameters(self):
        parameters = list(super().get_override_parameters())
        if self.is_idempotent():
            parameters.append(IDEMPOTENCY_PARAMETER)
        return parameters

    def _error_codes(self):
        codes = [400]
        if not any(isinstance(p, AllowAny) for p in self.view.get_permissions()):
            codes += [401, 403]
        if "{" in self.path or self.method == "GET":  # an object, or a page past the end
            codes.append(404)
        if self.method == "POST":
            codes += [409, 413, 415] if self.is_idempotent() else [413, 415]
        return codes

    def _get_response_bodies(self, direction="response"):
        responses = super()._get_response_bodies(direction)
        for code in self._error_codes():
            if str(code) not in responses:
                responses[str(code)] = self._get_response_for_code(
                    OpenApiResponse(ErrorSerializer, description=ERRORS[code]), str(code), None, direction)
        return responses
