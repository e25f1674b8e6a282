"""The Jinja2 environment of the console's body (casino/jinja_env.py): Django's
translations, addresses and number formats."""

from decimal import Decimal

import pytest
from django.template import engines
from django.utils import translation

from casino.jinja_env import gettext_in


def test_gettext_in_translates_in_its_language_and_keeps_languages_apart():
    with translation.override("es"):
        spanish = gettext_in("es")
        assert spanish("Initial deal") == "Reparto inicial"
        assert spanish("Initial deal") == "Reparto inicial"  # from its memo
    with translation.override("en"):
        assert gettext_in("en")("Initial deal") == "Initial deal"
    with translation.override("es"):
        assert gettext_in("es")("Initial deal") == "Reparto inicial"


def test_a_template_formats_translates_and_escapes_as_the_django_templates_do():
    template = engines["jinja2"].from_string(
        '{{ _("Bets %(low)s–%(high)s €")|format(low=low|floatformat("2g"), high=high|floatformat("2g")) }} '
        '{{ url("tables:console", 7) }} {{ name }} {{ missing.attribute }}|')
    with translation.override("es"):
        text = template.render({"low": Decimal("5"), "high": Decimal("1000"), "name": "<b>ana</b>"})
    assert text == "Apuestas 5,00–1\xa0000,00 € /tables/console/7/ &lt;b&gt;ana&lt;/b&gt; |"


def test_floatformat_is_worked_out_once_per_language():
    from casino.jinja_env import floatformat_in_language

    with translation.override("es"):
        assert floatformat_in_language(Decimal("1250.5"), "2g") == "1\xa0250,50"
        assert floatformat_in_language(Decimal("1250.50"), "2g") == "1\xa0250,50"
        assert floatformat_in_language("12.50", "2") == "12,50"
    with translation.override("en"):
        assert floatformat_in_language(Decimal("1250.5"), "2g") == "1,250.50"
        assert floatformat_in_language("12.50", "2") == "12.50"
        assert floatformat_in_language(Decimal("1.5")) == "1.5"  # the default arg
    with translation.override("es"):
        assert floatformat_in_language(Decimal("1.5")) == "1,5"


def test_attrs_read_with_a_dot_as_a_dict_does():
    from casino.jinja_env import Attrs

    template = engines["jinja2"].from_string("{{ x.phase }}|{{ x.missing }}|{{ x['phase'] }}|{{ x.items()|list|length }}")
    assert template.render({"x": Attrs(phase="play")}) == "play||play|1"
    assert template.render({"x": {"phase": "play"}}) == "play||play|1"
    assert Attrs(a=1).a == 1
    with pytest.raises(AttributeError):
        Attrs(a=1).b  # noqa: B018
