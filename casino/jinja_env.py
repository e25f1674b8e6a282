"""The Jinja2 environment of the pages drawn after every entry (the console's body).

Django's own templates draw every other page. The console is redrawn after each entry a
dealer makes, and Jinja2 renders its body several times faster (it compiles templates to
Python). The layouts around it (``base.html``, the fetched layout) stay Django templates,
so the page keeps one navigation, one set of messages and one ``<head>``.

Translations use Django's catalogues and active language: ``_("text")`` is Django's
``gettext`` (or, passed in the context by a view that draws often, ``gettext_in(language)``,
which looks each string up once per process) and formats with ``|format(name=value)``.
That is the one form Django's ``makemessages`` also reads in a template, so
``makemessages`` keeps the console's strings. Plural strings are translated in the view
(``ngettext``). The ``floatformat`` filter is Django's, localized the same way, and each
amount is formatted once per process and language.
"""

import functools

from django.template.defaultfilters import floatformat
from django.templatetags.static import static
from django.urls import get_script_prefix, reverse
from django.utils.translation import get_language, gettext
from jinja2 import ChainableUndefined, Environment


def url(name, *args, **kwargs):
    """``reverse(name, args=args, kwargs=kwargs)``: Django's ``{% url %}`` for Jinja2,
    each address worked out once per process (and script prefix)."""
    return _reverse(get_script_prefix(), name, args, tuple(sorted(kwargs.items())))


@functools.lru_cache(maxsize=4096)
def _reverse(prefix, name, args, kwargs):
    return reverse(name, args=args or None, kwargs=dict(kwargs) or None)


@functools.cache
def _catalogue(language):
    return {}


def gettext_in(language):
    """Django's ``gettext`` for a render in ``language``, the active language: each
    string is looked up once per process and language.

    Args:
        language: the active language's code (``get_language()``).
    Returns:
        a function ``str -> str``.
    """
    known = _catalogue(language)

    def translate(message):
        try:
            return known[message]
        except KeyError:
            known[message] = text = gettext(message)
            return text
    return translate


def floatformat_in_language(value, arg=-1):
    """Django's ``floatformat`` filter in the active language, each ``(value, arg)``
    worked out once per process and language (the console shows the same few amounts —
    the table's limits, the stakes — on every draw).

    Args:
        value: a number (``Decimal`` euros, int …); arg: as for ``floatformat`` (``"2g"``:
            two places, grouped).
    Returns:
        the SafeString ``floatformat`` returns.
    """
    try:
        return _floatformat(get_language(), value, arg)
    except TypeError:  # an unhashable value: as Django does it
        return floatformat(value, arg)


@functools.lru_cache(maxsize=4096)
def _floatformat(language, value, arg):
    # Equal numbers (Decimal("5"), Decimal("5.00"), 5) share an entry: floatformat shows
    # them alike. ``language`` is the active one and keys the entry.
    return floatformat(value, arg)


class Attrs(dict):
    """A dict whose keys a Jinja2 template reads with a dot (``panel.phase``) at once.

    Jinja2 reads ``x.name`` as ``getattr(x, "name")`` first, then ``x["name"]``: on a plain
    dict every such read fails once, raising AttributeError, before it finds the key.
    The console's body reads dozens of keys per draw. A missing key reads as undefined,
    as on a dict; keys that are dict methods' names (``items``) read as the methods, as on
    a dict.
    """

    __slots__ = ()

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def environment(**options):
    """The Jinja2 ``Environment`` of ``TEMPLATES``' Jinja2 backend (``OPTIONS["environment"]``).

    Args:
        options: Django's Jinja2 backend's options (loader, autoescape, auto_reload …).
    Returns:
        jinja2.Environment with ``url``, ``static``, ``_`` (gettext) and the
        ``floatformat`` filter; a missing variable or attribute is empty, as in Django's
        templates (``ChainableUndefined``).
    """
    options["undefined"] = ChainableUndefined
    env = Environment(**options)
    env.globals.update(url=url, static=static, _=gettext)
    env.filters["floatformat"] = floatformat_in_language
    return env
