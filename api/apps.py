from django.apps import AppConfig


class ApiConfig(AppConfig):
    """The ``api`` app: DRF views under /api/, the Idempotency-Key store."""

    name = "api"
    verbose_name = "API"
