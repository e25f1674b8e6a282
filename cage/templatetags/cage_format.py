"""The cage's template tags: the reader's number format for the count's script."""

from django import template
from django.utils.formats import get_format

register = template.Library()


@register.simple_tag
def thousand_separator():
    """The active language's thousands separator as Django prints amounts (``str``: a
    no-break space in Spanish, ``,`` in English), for a script that adds up a count in the
    page's own format (the browser's ``Intl`` writes ``1.250,00 €`` in Spanish)."""
    return get_format("THOUSAND_SEPARATOR")
