"""What every API view shares: JSON bodies, the error JSON, the schema conventions,
pagination, and the role permissions chosen per action."""

from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser

from api.errors import api_exception_handler
from api.schema import ApiAutoSchema


class ApiPagination(PageNumberPagination):
    """``?page=`` from 1 and ``?page_size=`` (50 by default, at most 200)."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


class ApiViewMixin:
    """Mixed into every API view (before the DRF class).

    ``action_permissions`` maps a viewset's action (or, in a plain view, the HTTP method)
    to its permission (``IsCashier | IsAuditor``); ``permission`` is the default. ``refusal_field`` names the request field
    a service's refusal is about when the refusal names none.
    """

    parser_classes = [JSONParser]
    pagination_class = ApiPagination
    schema = ApiAutoSchema()
    action_permissions: dict = {}
    permission = None
    refusal_field = None

    def get_permissions(self):
        action = getattr(self, "action", None) or getattr(getattr(self, "request", None), "method", None)
        permission = self.action_permissions.get(action, self.permission)
        if permission is None:
            return super().get_permissions()
        return [permission()]

    def get_exception_handler(self):
        return api_exception_handler

    def initial(self, request, *args, **kwargs):
        if request.method == "POST":
            # Read (and keep) the raw body before authentication may consume the stream:
            # the Idempotency-Key's digest is over these bytes.
            request._request.body  # noqa: B018
        super().initial(request, *args, **kwargs)


def validated(serializer_class, request, **kwargs):
    """The ``validated_data`` of ``serializer_class`` on the request's body (400 if not)."""
    serializer = serializer_class(data=request.data, context={"request": request}, **kwargs)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
