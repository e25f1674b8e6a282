"""A user's API token dies with his password: when the password changes (his own change,
a reset, an administrator's), the token is deleted, so a token taken before no longer
authenticates; ``POST /api/auth/token/`` with the new password gives a new one. Sessions are already ended by Django (the session's hash of the password)."""

from django.conf import settings
from django.db.models.signals import post_save, pre_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token


@receiver(pre_save, sender=settings.AUTH_USER_MODEL)
def note_password_change(sender, instance, update_fields=None, **kwargs):
    """Mark ``instance`` (a user about to be saved) whose stored password hash changes.

    A save limited to fields other than ``password`` (``last_login`` at each login) is not
    read: one query only when the password may have changed."""
    if instance.pk is None or (update_fields is not None and "password" not in update_fields):
        return
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", flat=True).first()
    instance._api_token_stale = stored is not None and stored != instance.password


@receiver(post_save, sender=settings.AUTH_USER_MODEL)
def rotate_token_after_password_change(sender, instance, created, **kwargs):
    """Delete the API token of a user whose password just changed (in the same
    transaction as the save)."""
    if not created and getattr(instance, "_api_token_stale", False):
        Token.objects.filter(user=instance).delete()
        instance._api_token_stale = False
