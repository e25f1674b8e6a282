"""One slip per intention: the one-time token of a slip form, bound to the form drawn.

A slip form (a buy-in, a cash-out) is drawn at an address of its own,
``/cage/buy-in/<token>/``: ``<token>`` is a fresh random id signed for the form's kind
and the cashier who drew it. The slip booked from that form takes the idempotency key
``form:<id>`` (``ledger.services.posting``: a key posts once, enforced by a unique
constraint in PostgreSQL). Because the token is in the form's address, not only in a
hidden field, the browser's Back button, a resend, a double tap or a second tab on that
form all come back with the same token: the second send finds the slip already booked
and is shown it instead of booking another. A token drawn for another kind of slip or
another cashier is refused (the form is drawn afresh).
"""

import uuid

from django.core import signing

_SEPARATOR = "."


def _signer(*, kind: str, user) -> signing.Signer:
    return signing.Signer(salt=f"ledger.slip-form:{kind}:{user.pk}", sep=_SEPARATOR)


def draw_token(*, kind: str, user) -> str:
    """A fresh token for a slip form of ``kind`` (``"buy_in"``, ``"cash_out"``) drawn by
    ``user``: ``"<32 hex>.<signature>"``, safe in a URL path."""
    return _signer(kind=kind, user=user).sign(uuid.uuid4().hex)


def form_id(*, token: str, kind: str, user) -> str | None:
    """The random id inside ``token`` if it was drawn for this ``kind`` and ``user``,
    else None (a forged, altered or foreign token)."""
    try:
        value = _signer(kind=kind, user=user).unsign(token)
    except signing.BadSignature:
        return None
    try:
        return uuid.UUID(hex=value).hex
    except ValueError:
        return None


def idempotency_key(form_id: str) -> str:
    """The idempotency key of the slip booked from the form ``form_id``: ``form:<id>``."""
    return f"form:{form_id}"
