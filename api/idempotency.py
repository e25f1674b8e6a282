"""``Idempotency-Key``: every POST of the API carries one, so that a client that did not
hear the answer may send the same request again without doing it twice.

- A repeat (same user, same key, same method, path and body) is answered with the first
  response, status and body, and the header ``Idempotent-Replayed: true``; nothing is
  done again.
- The same key with another method, path or body is refused with 409
  (``idempotency_key_reused``).
- A POST without the header is refused with 400 (``idempotency_key_required``): a
  tablet that retries must be able to do so safely, so the key is not optional.

The key is stored (``api.models.IdempotencyKey``) in the same database transaction as the
service call, so a key exists exactly when its request's effects were committed. Two
concurrent requests with one key: the second waits on the first's key row, then its own
work is rolled back and it gets the first's response. A request refused by the rules
(400, 404, 409) is kept like a success (a repeat is refused the same way); a refusal of
authentication or role (401, 403), a throttle (429) or a server error is not kept.
"""

import hashlib
import json
from functools import wraps

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response

from api.errors import Refusal
from api.models import IdempotencyKey
from ledger.errors import PostingRefused
from patrons.errors import AdmissionRefused

HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
MAX_LENGTH = 255
NOT_KEPT = {status.HTTP_401_UNAUTHORIZED, status.HTTP_403_FORBIDDEN, status.HTTP_429_TOO_MANY_REQUESTS}


class _Raced(Exception):
    """A concurrent request with the same key committed first."""


def request_key(request):
    """The request's ``Idempotency-Key``, checked: 1–255 visible ASCII characters.

    Raises:
        Refusal: 400 ``idempotency_key_required`` or ``idempotency_key_invalid``.
    """
    key = request.headers.get(HEADER)
    if key is None or not key.strip():
        raise Refusal(_("every POST needs an Idempotency-Key header (any unique text, e.g. a UUID): "
                        "sending the same key again replays the first answer"),
                      rule="idempotency_key_required", field=HEADER)
    if len(key) > MAX_LENGTH or not all("!" <= char <= "~" for char in key):
        raise Refusal(_("the Idempotency-Key is 1 to 255 visible ASCII characters without spaces"),
                      rule="idempotency_key_invalid", field=HEADER)
    return key


def body_digest(request):
    """SHA-256 (hex) of the request's raw body."""
    return hashlib.sha256(request._request.body).hexdigest()


def _replay(stored, request, digest):
    if (stored.method, stored.path, stored.body_sha256) != (request.method, request.get_full_path(), digest):
        raise Refusal(_("the Idempotency-Key %(key)s was already used for another request (%(method)s %(path)s "
                        "with another body): use a new key for a new request")
                      % {"key": stored.key, "method": stored.method, "path": stored.path},
                      rule="idempotency_key_reused", field=HEADER, status_code=status.HTTP_409_CONFLICT)
    data = json.loads(stored.response) if stored.response else None
    return Response(data, status=stored.status, headers={REPLAYED_HEADER: "true"})


def _kept(response):
    return response.status_code < 500 and response.status_code not in NOT_KEPT


def as_json(data):
    """The response's data as ASCII JSON text (no NUL or lone surrogate reaches the database)."""
    if data is None:
        return ""
    return json.dumps(json.loads(JSONRenderer().render(data)), ensure_ascii=True, separators=(",", ":"))


def idempotent(handler):
    """Decorate a view's POST handler (``def post(self, request, ...)`` or a viewset
    action) with the ``Idempotency-Key`` contract of this module.

    Runs after authentication and the view's permissions (the key belongs to the user).
    The handler runs in a savepoint inside the transaction that stores the key; its
    exceptions become responses through the view's exception handler, so that refusals
    are kept too (and a posting check's refused attempt, ``PostingRefused.record_attempt``,
    an admission's, ``AdmissionRefused.record_attempt``,
    rolled back with the savepoint, is written again).
    """

    @wraps(handler)
    def wrapper(self, request, *args, **kwargs):
        key = request_key(request)
        digest = body_digest(request)
        try:
            with transaction.atomic():
                stored = IdempotencyKey.objects.select_for_update().filter(user=request.user, key=key).first()
                if stored is not None:
                    return _replay(stored, request, digest)
                try:
                    with transaction.atomic():
                        response = handler(self, request, *args, **kwargs)
                except Exception as exc:  # noqa: BLE001 - handle_exception re-raises what it does not answer
                    if isinstance(exc, PostingRefused | AdmissionRefused):
                        exc.record_attempt()  # its record went with the savepoint: kept again
                    response = self.handle_exception(exc)
                if _kept(response):
                    try:
                        with transaction.atomic():
                            IdempotencyKey.objects.create(
                                user=request.user, key=key, method=request.method, path=request.get_full_path(),
                                body_sha256=digest, status=response.status_code, response=as_json(response.data))
                    except IntegrityError:
                        raise _Raced from None
                return response
        except _Raced:
            stored = IdempotencyKey.objects.get(user=request.user, key=key)
            return _replay(stored, request, digest)

    wrapper.idempotent = True
    return wrapper
