"""``POST /api/auth/token/``: a user's API token from his username and password."""

from drf_spectacular.utils import extend_schema
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.authtoken.views import ObtainAuthToken
from rest_framework.parsers import JSONParser
from rest_framework.permissions import AllowAny

from api.errors import api_exception_handler
from api.schema import ApiAutoSchema
from api.serializers.auth import TokenSerializer


class TokenView(ObtainAuthToken):
    """The user's token (created on first use): send it as ``Authorization: Token <key>``.

    It takes no ``Idempotency-Key``: it changes nothing a repeat could double (the same
    user always gets the same token).
    """

    parser_classes = [JSONParser]
    permission_classes = [AllowAny]
    schema = ApiAutoSchema()

    def get_exception_handler(self):
        return api_exception_handler

    @extend_schema(summary="Get an API token from a username and password", tags=["auth"],
                   request=AuthTokenSerializer, responses={200: TokenSerializer})
    def post(self, request, *args, **kwargs):
        """Check the credentials and answer ``{"token": key}``."""
        return super().post(request, *args, **kwargs)
