"""The audit trail's secret keys: ``CHAIN_KEY`` (named ``CHAIN_KEY_ID``) signs what is
written now, ``CHAIN_OLD_KEYS`` (``id=key,id=key``) keeps replaced keys for checking. The
keys live in the environment, never in the database; only their ids are stored with what
they signed. Two signers share them: the tables' chain of entries and the hands' openings
(``tables.chain``), and the ledger's postings (``ledger.signing``).
"""

import functools
import hmac

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.signals import setting_changed
from django.dispatch import receiver


def current_key_id() -> str:
    """The id of the key new records are signed with (``CHAIN_KEY_ID``).

    Raises:
        ImproperlyConfigured: no ``CHAIN_KEY`` is set.
    """
    secret(settings.CHAIN_KEY_ID)
    return settings.CHAIN_KEY_ID


@functools.cache
def secret(key_id: str) -> bytes | None:
    """The secret of ``key_id`` (bytes), None when this server does not hold it.

    Kept once read (forgotten when a test changes a ``CHAIN_`` setting): every record
    signed reads it, and each read of Django's lazy settings costs three lookups.

    Raises:
        ImproperlyConfigured: ``key_id`` is the current key's and no ``CHAIN_KEY`` is set.
    """
    if key_id == settings.CHAIN_KEY_ID:
        if not settings.CHAIN_KEY:
            raise ImproperlyConfigured("CHAIN_KEY must be set: it signs the tables' entries and the ledger's postings")
        return settings.CHAIN_KEY.encode()
    old = settings.CHAIN_OLD_KEYS.get(key_id)
    return old.encode() if old else None


def hmac_hex(key: bytes, text: str) -> str:
    """HMAC-SHA256 (64 hex digits) of ``text`` (UTF-8) under ``key``."""
    return hmac.digest(key, text.encode(), "sha256").hex()


@receiver(setting_changed)
def _forget_keys(*, setting, **kwargs):
    """A ``CHAIN_`` setting changed (``override_settings``, pytest-django's ``settings``):
    the keys ``secret`` kept are read again."""
    if setting.startswith("CHAIN_"):
        secret.cache_clear()
