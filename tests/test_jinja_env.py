"""The Jinja2 environment of the console's body (casino/jinja_env.py): Django's
translations, addresses and number formats."""

from decimal import Decimal

from django.template import engines
from django.utils import translation


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
