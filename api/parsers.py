"""The API's JSON parser: DRF's, refusing JSON nested deeper than ``MAX_DEPTH`` (no
request of the API nests past a handful of levels) with a 400 instead of Python's
``RecursionError`` (a 500), whether the parser or the code after it would have hit it."""

from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

from game.recordfiles import malformed_json
from tables.errors import unreadable_message

#: The deepest nesting of arrays and objects accepted (a hand record needs 4).
MAX_DEPTH = 32


class SafeJSONParser(JSONParser):
    """``application/json``, at most ``MAX_DEPTH`` levels deep (else ``ParseError``,
    400 ``parse_error``)."""

    def parse(self, stream, media_type=None, parser_context=None):
        """The parsed JSON; raises ``ParseError`` for malformed or too deeply nested JSON."""
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError(too_deep()) from None
        except ParseError as error:  # DRF's, Python's English reason inside: worded here instead
            if isinstance(error.__context__, ValueError):
                raise ParseError(unreadable_message(malformed_json(error.__context__))) from None
            raise
        if depth_exceeds(data, MAX_DEPTH):
            raise ParseError(too_deep())
        return data


def too_deep():
    """The refusal's message, in the request's language."""
    return _("JSON nested more than %(depth)d levels deep") % {"depth": MAX_DEPTH}


def depth_exceeds(value, limit):
    """True if ``value`` (parsed JSON) nests arrays and objects more than ``limit`` deep;
    iterative, so any depth is measured without recursion."""
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if isinstance(current, dict):
            children = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children)
    return False
