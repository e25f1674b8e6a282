"""``POST /api/auth/token/``: a user's API token from his username and password."""

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api.errors import ErrorSerializer, Refusal, api_exception_handler
from api.parsers import SafeJSONParser
from api.schema import ApiAutoSchema
from api.serializers.auth import TokenSerializer
from api.throttles import TokenAddressThrottle, TokenUsernameThrottle


class LockedOut(Refusal):
    """django-axes locked the user name or the address out (too many failed passwords)."""

    status_code = status.HTTP_429_TOO_MANY_REQUESTS


class TokenView(ObtainAuthToken):
    """The user's token (created on first use): send it as ``Authorization: Token <key>``.

    It takes no ``Idempotency-Key``: it changes nothing a repeat could double (the same
    user always gets the same token, until his password changes: ``api.signals``).

    Guessing is bounded twice: DRF's throttles (``api.throttles``: per address and per
    user name, 429 with ``Retry-After``) and django-axes, which counts failed passwords
    (past ``AXES_FAILURE_LIMIT`` of a user name from an address, or
    ``AXES_ADDRESS_FAILURE_LIMIT`` of any names from it: ``casino.auth.FloorLockoutHandler``)
    and refuses even the right password for ``AXES_COOLOFF_MINUTES`` (429, rule ``locked_out``).
    """

    parser_classes = [SafeJSONParser]
    permission_classes = [AllowAny]
    throttle_classes = [TokenAddressThrottle, TokenUsernameThrottle]
    schema = ApiAutoSchema()

    def get_exception_handler(self):
        return api_exception_handler

    @extend_schema(summary="Get an API token from a username and password", tags=["auth"],
                   request=AuthTokenSerializer,
                   responses={200: TokenSerializer,
                              429: OpenApiResponse(ErrorSerializer, description="too many attempts: "
                                                   "throttled, or locked out after failed passwords")})
    def post(self, request, *args, **kwargs):
        """Check the credentials and answer ``{"token": key}``; 400 for wrong ones, 429
        when locked out or throttled."""
        serializer = self.get_serializer(data=request.data)
        valid = serializer.is_valid()
        # django-axes flags the request (DRF's, which authenticate() was given) when the
        # user name or the address is locked out, before or by this failure.
        if getattr(request, "axes_locked_out", False):
            raise LockedOut(_("Too many failed logins for this user or from this address: access is "
                              "locked for %(minutes)d minutes. Wait and try again, or ask an "
                              "administrator to unlock it.") % {"minutes": cooloff_minutes()},
                            rule="locked_out", field="username")
        if not valid:
            raise ValidationError(serializer.errors)
        token, _created = Token.objects.get_or_create(user=serializer.validated_data["user"])
        return Response({"token": token.key})


def cooloff_minutes():
    """The lock-out's length in whole minutes (``AXES_COOLOFF_TIME``, rounded up)."""
    from axes.helpers import get_cool_off

    cool_off = get_cool_off()
    return -(-int(cool_off.total_seconds()) // 60) if cool_off else 0
