from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The ``api`` app: DRF views under /api/, the Idempotency-Key store."""

    name = "api"
    verbose_name = "API"

    def ready(self):
        """Connect the receiver that rotates a user's token when his password changes."""
        from api import signals  # noqa: F401
