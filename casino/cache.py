"""The cache on Redis, failing soft: with Redis down the site serves as if the cache were
empty.

What the cache holds here can all be done without it: the sessions are Django's
``cached_db`` (written through to the database, read from it on a miss), DRF's throttles
of the token endpoint count in it (django-axes' lock-outs count in the database). So a
Redis that is down, refusing or slow is a miss, not a 500: each operation answers as an
empty cache would (``get`` its default, ``set`` and ``add`` False, ``has_key`` False), and
logs a warning once per outage. After a failure Redis is left alone for ``RETRY_AFTER``
seconds (no connection attempt per call while it is down), then tried again.
"""

import functools
import logging
import time

from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.redis import RedisCache
from redis.exceptions import RedisError

logger = logging.getLogger(__name__)

#: Seconds Redis is left alone after a failed operation.
RETRY_AFTER = 5.0
#: Seconds to connect, and to wait for an answer, before an operation counts as failed:
#: a host that is down must not hold a request for the operating system's timeouts.
CONNECT_TIMEOUT = 0.5
ANSWER_TIMEOUT = 1.0


def _soft(empty):
    """Wrap a cache operation: on a Redis error (or while Redis is left alone after one),
    answer ``empty(*args, **kwargs)`` instead of raising."""

    def wrap(method):
        @functools.wraps(method)
        def soft(self, *args, **kwargs):
            if time.monotonic() < self._down_until:
                return empty(*args, **kwargs)
            try:
                return method(self, *args, **kwargs)
            except self._errors as error:
                self._failed(method.__name__, error)
                return empty(*args, **kwargs)
        return soft
    return wrap


def _default(key, default=None, *args, **kwargs):
    return default


def _missing(key, *args, **kwargs):
    raise ValueError(f"Key '{key}' not found (the cache is unreachable)")


class FailSoftRedisCache(RedisCache):
    """Django's ``RedisCache`` that answers as an empty cache while Redis is unreachable
    (see the module's docstring). ``LOCATION`` and ``OPTIONS`` as Django's; the socket
    timeouts default to ``CONNECT_TIMEOUT`` and ``ANSWER_TIMEOUT``."""

    def __init__(self, server, params):
        options = params.setdefault("OPTIONS", {})
        options.setdefault("socket_connect_timeout", CONNECT_TIMEOUT)
        options.setdefault("socket_timeout", ANSWER_TIMEOUT)
        super().__init__(server, params)
        self._errors = (RedisError, OSError)
        self._down_until = 0.0

    def _failed(self, operation, error):
        """Leave Redis alone for ``RETRY_AFTER`` seconds; log the outage's first failure."""
        if not self._down_until:
            logger.warning("the cache is unreachable (%s: %s): serving without it, retried every %ss",
                           operation, error, RETRY_AFTER)
        self._down_until = time.monotonic() + RETRY_AFTER

    def _answered(self):
        if self._down_until:
            logger.warning("the cache answers again")
            self._down_until = 0.0

    @_soft(lambda *args, **kwargs: False)
    def add(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().add(key, value, timeout, version)

    @_soft(_default)
    def get(self, key, default=None, version=None):
        value = super().get(key, default, version)
        self._answered()
        return value

    @_soft(lambda *args, **kwargs: False)
    def set(self, key, value, timeout=DEFAULT_TIMEOUT, version=None):
        return super().set(key, value, timeout, version)

    @_soft(lambda *args, **kwargs: False)
    def touch(self, key, timeout=DEFAULT_TIMEOUT, version=None):
        return super().touch(key, timeout, version)

    @_soft(lambda *args, **kwargs: False)
    def delete(self, key, version=None):
        return super().delete(key, version)

    @_soft(lambda *args, **kwargs: {})
    def get_many(self, keys, version=None):
        return super().get_many(keys, version)

    @_soft(lambda *args, **kwargs: False)
    def has_key(self, key, version=None):
        return super().has_key(key, version)

    @_soft(_missing)
    def incr(self, key, delta=1, version=None):
        return super().incr(key, delta, version)

    @_soft(lambda data, *args, **kwargs: list(data))
    def set_many(self, data, timeout=DEFAULT_TIMEOUT, version=None):
        return super().set_many(data, timeout, version)

    @_soft(lambda *args, **kwargs: None)
    def delete_many(self, keys, version=None):
        return super().delete_many(keys, version)

    @_soft(lambda *args, **kwargs: False)
    def clear(self):
        return super().clear()
