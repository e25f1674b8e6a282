"""The API's own data: the ``Idempotency-Key`` of every POST and the response it got."""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class IdempotencyKey(models.Model):
    """One POST made with an ``Idempotency-Key``: a repeat of the same request (same user,
    key, method, path and body) is answered with ``status`` and ``response`` without being
    carried out again; the same key with another request is refused (409).

    Written in the same database transaction as the service call it records, so a key
    exists exactly when its request's effects do. ``body_sha256`` is the SHA-256 (hex) of
    the request's raw body; ``path`` includes the query string; ``response`` is the body's
    JSON text (empty for no body).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.CASCADE, related_name="api_idempotency_keys",
                             verbose_name=_("user"))
    key = models.CharField(_("idempotency key"), max_length=255)
    method = models.CharField(_("method"), max_length=8)
    path = models.TextField(_("path"))
    body_sha256 = models.CharField(_("body SHA-256"), max_length=64)
    status = models.PositiveSmallIntegerField(_("response status"))
    # JSON text with every non-ASCII character escaped: PostgreSQL's jsonb refuses a NUL
    # character, and a refusal's message may quote one from the request.
    response = models.TextField(_("response body (JSON)"), blank=True, default="")
    created_at = models.DateTimeField(_("created at"), default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("idempotency key")
        verbose_name_plural = _("idempotency keys")
        constraints = [
            models.UniqueConstraint(fields=["user", "key"], name="api_idempotency_key_unique_per_user"),
        ]

    def __str__(self):
        return f"{self.user_id} · {self.key} · {self.method} {self.path} → {self.status}"
