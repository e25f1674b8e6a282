"""DRF throttles of ``POST /api/auth/token/``: how often one address, and how often one
user name, may ask for a token (``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]``, counted in
the cache). They bound guessing on top of django-axes, which locks a user name or an
address out after ``AXES_FAILURE_LIMIT`` failed passwords (``casino/settings/base.py``)."""

import hashlib

from rest_framework.throttling import SimpleRateThrottle


class TokenAddressThrottle(SimpleRateThrottle):
    """At most the ``token_address`` rate (default 20 a minute) of token requests from one
    client address (REMOTE_ADDR, or X-Forwarded-For with ``NUM_PROXIES``); a refusal is
    429 with ``Retry-After``."""

    scope = "token_address"

    def get_cache_key(self, request, view):
        """The cache key of the request's address."""
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class TokenUsernameThrottle(SimpleRateThrottle):
    """At most the ``token_username`` rate (default 10 a minute) of token requests naming
    one user name (case-folded), whatever their address; no throttle without a name."""

    scope = "token_username"

    def get_cache_key(self, request, view):
        """The cache key of the user name asked for (hashed: any text fits a key), or None."""
        data = request.data  # a body that does not parse is refused here (400)
        username = data.get("username") if hasattr(data, "get") else None
        if not isinstance(username, str) or not username:
            return None
        ident = hashlib.sha256(username.casefold().encode("utf-8", "surrogatepass")).hexdigest()
        return self.cache_format % {"scope": self.scope, "ident": ident}
