"""Middleware of the project."""

from django.conf import settings
from django.utils import translation


class TableLanguageMiddleware:
    """Spanish by default at the table: the language is the one the user chose with the
    language selector (its cookie), else ``LANGUAGE_CODE``; the browser's
    ``Accept-Language`` is not followed (a tablet's system language is not a choice).

    Replaces Django's ``LocaleMiddleware`` (same place in ``MIDDLEWARE``).
    """

    def __init__(self, get_response):
        self.get_response = get_response
        self.languages = {code for code, _name in settings.LANGUAGES}

    def __call__(self, request):
        chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME)
        language = chosen if chosen in self.languages else settings.LANGUAGE_CODE
        translation.activate(language)
        request.LANGUAGE_CODE = language
        response = self.get_response(request)
        response.headers.setdefault("Content-Language", language)
        return response


class SecurityHeadersMiddleware:
    """The headers every answer of the site carries (the Content-Security-Policy is
    django-csp's, ``CONTENT_SECURITY_POLICY`` in the settings):

    - ``Permissions-Policy``: ``PERMISSIONS_POLICY``, the browser features no page uses
      (camera, microphone, geolocation...) turned off for the site and anything it embeds;
    - ``Cache-Control: no-store`` (Django's ``add_never_cache_headers``) on every page and
      API answer: each shows players' data, their identities, balances and hands, which a
      shared terminal's browser or a proxy must not keep. The static files (served by
      WhiteNoise before this middleware) keep their own caching.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        from django.utils.cache import add_never_cache_headers

        response = self.get_response(request)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        add_never_cache_headers(response)
        return response


class OutOfRangeMiddleware:
    """A page whose write hit a value past what its column holds (PostgreSQL's
    ``numeric_value_out_of_range``, a timestamp's year: Django's ``DataError``) answers
    400 with a page saying nothing was written, not a 500: the service's transaction was
    rolled back. Forms check each amount against its column; this is for what they add up
    to (a balance). The API answers its own JSON (``api.errors``)."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_exception(self, request, exception):
        """The 400 page for a ``DataError``; None (Django's handling) for anything else."""
        from django.db import DataError
        from django.shortcuts import render

        if not isinstance(exception, DataError):
            return None
        return render(request, "400.html", {"out_of_range": True}, status=400)
