"""The Jinja2 environment of the console's body, drawn after every entry a dealer makes.

Django's own templates draw every other page, and the console's page around its body
(``base.html``: one navigation, one ``<head>``). Jinja2 compiles templates to Python and
draws the console's body several times faster than Django's template engine, and it is drawn
after every entry (benchmarks/RESULTS.md).

Translations use Django's catalogues and active language: ``_("text")`` is Django's
``gettext`` and formats with ``|format(name=value)``. That is the one form Django's
``makemessages`` also reads in a template, so ``makemessages`` keeps the console's strings.
Plural strings are translated in the view (``ngettext``). The ``floatformat`` filter is
Django's, localized the same way, and each amount is formatted once per process and
language.
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
