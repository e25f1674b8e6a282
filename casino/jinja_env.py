"""The Jinja2 environment of the pages drawn after every entry (the console's body).

Django's own templates draw every other page. The console is redrawn after each entry a
dealer makes, and Jinja2 renders its body several times faster (it compiles templates to
Python). The layouts around it (``base.html``, the fetched layout) stay Django templates,
so the page keeps one navigation, one set of messages and one ``<head>``.

Translations use Django's catalogues and active language: ``_("text")`` is Django's
``gettext`` and formats with ``|format(name=value)``. That is the one form Django's
``makemessages`` also reads in a template, so ``makemessages`` keeps the console's
strings. Plural strings are translated in the view (``ngettext``). The ``floatformat``
filter is Django's, localized the same way.
"""

from django.template.defaultfilters import floatformat
from django.templatetags.static import static
from django.urls import reverse
from django.utils.translation import gettext, ngettext
from jinja2 import ChainableUndefined, Environment


def url(name, *args, **kwargs):
    """``reverse(name, args=args, kwargs=kwargs)``: Django's ``{% url %}`` for Jinja2."""
    return reverse(name, args=args or None, kwargs=kwargs or None)


def environment(**options):
    """The Jinja2 ``Environment`` of ``TEMPLATES``' Jinja2 backend (``OPTIONS["environment"]``).

    Args:
        options: Django's Jinja2 backend's options (loader, autoescape, auto_reload …).
    Returns:
        jinja2.Environment with ``url``, ``static``, ``_`` (gettext), ``ngettext`` and the
        ``floatformat`` filter; a missing variable or attribute is empty, as in Django's
        templates (``ChainableUndefined``).
    """
    options["undefined"] = ChainableUndefined
    env = Environment(**options)
    env.globals.update(url=url, static=static, _=gettext, gettext=gettext, ngettext=ngettext)
    env.filters["floatformat"] = floatformat
    return env
