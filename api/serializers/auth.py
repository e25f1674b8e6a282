"""The API's token."""

from rest_framework import serializers


class TokenSerializer(serializers.Serializer):
    """An API token: send it as ``Authorization: Token <token>``."""

    token = serializers.CharField()
