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
