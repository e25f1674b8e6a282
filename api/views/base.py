"""What every API view shares: JSON bodies, the error JSON, the schema conventions,
pagination, and the role permissions chosen per action."""

from django.utils.translation import gettext as _
from rest_framework.pagination import PageNumberPagination

from api.errors import Refusal, api_exception_handler
from api.parsers import SafeJSONParser
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

    parser_classes = [SafeJSONParser]
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
        for name, values in request.query_params.lists():
            if _first_unstorable([name, values], ()) is not None:
                refuse_unstorable_text(None if _unstorable(name) else name)
        if request.method == "POST":
            found = _first_unstorable(request.data, ())
            if found is not None:
                refuse_unstorable_text(".".join(found) if _first_unstorable(found, ()) is None else None)


def _unstorable(text):
    if "\x00" in text:
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate, from a "\\ud800" escape in JSON
        return True
    return False


def _first_unstorable(value, path):
    """The path (keys and indexes) to the first string holding a NUL or a lone
    surrogate, as a key or a value; None if there is none."""
    if isinstance(value, str):
        return path if _unstorable(value) else None
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list | tuple):
        items = enumerate(value)
    else:
        return None
    for key, inner in items:
        where = (*path, str(key))
        if isinstance(key, str) and _unstorable(key):
            return where
        found = _first_unstorable(inner, where)
        if found is not None:
            return found
    return None


def refuse_unstorable_text(field):
    """Refuse (400 ``invalid_text``) a request holding a NUL character or a lone surrogate
    in its query or body: no database column stores them, and no name in the game has them.

    Raises:
        Refusal: always; ``field`` is the parameter or the body's dotted path (None if the
        name itself is at fault).
    """
    raise Refusal(_("text may not contain NUL characters or lone surrogates"), rule="invalid_text", field=field)


def validated(serializer_class, request, **context):
    """The ``validated_data`` of ``serializer_class`` on the request's body (400 if not);
    ``context`` is added to the serializer's context."""
    serializer = serializer_class(data=request.data, context={"request": request, **context})
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data
