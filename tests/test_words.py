"""Words the floor read wrong: one date and time form per language everywhere, no
"(es)" plurals, empty lists that say what is empty, a country's name as it is spelt."""

from datetime import UTC, date, datetime

import pytest
from django.template import Context, Template
from django.urls import reverse
from django.utils import translation

from casino import formatting
from tests.factories import UserFactory

MOMENT = datetime(2026, 11, 28, 4, 8, 28, tzinfo=UTC)  # 05:08:28 in Madrid

FORMS = {"es": ("28/11/2026", "28/11/2026 05:08", "05:08:28"), "en": ("28 Nov 2026", "28 Nov 2026 05:08", "05:08:28")}


@pytest.mark.parametrize("language", ["es", "en"])
def test_one_date_and_one_time_form_per_language(language):
    day, moment, time = FORMS[language]
    page = Template('{{ m|date:"DATETIME_FORMAT" }}|{{ m|date:"SHORT_DATETIME_FORMAT" }}|{{ d|date }}|'
                    '{{ d|date:"SHORT_DATE_FORMAT" }}|{{ m|time:"TIME_FORMAT" }}')
    with translation.override(language):
        shown = page.render(Context({"m": MOMENT, "d": date(2026, 11, 28)})).split("|")
        assert shown == [moment, moment, day, day, time]
        assert formatting.instant(MOMENT) == formatting.instant(MOMENT, "SHORT_DATETIME_FORMAT") == moment
        assert formatting.csv_instant(MOMENT) == moment and formatting.day(date(2026, 11, 28)) == day
    assert "a.m." not in moment and "Nov." not in moment


def test_trinidad_and_tobago_is_spelt_right_in_spanish():
    from django_countries import countries

    with translation.override("es"):
        assert dict(countries)["TT"] == "Trinidad y Tobago"


#: English message -> its Spanish (read through the catalogue, not marked here).
SPANISH = {"No distribution yet.": "Ningún reparto todavía.", "no exception": "ninguna excepción",
           "No bank tenure yet.": "Ninguna banca todavía.", "table drop box": "caja del drop de la mesa"}


def test_the_words_of_the_boxes_and_the_reports_in_spanish():
    with translation.override("es"):
        assert {english: translation.gettext(english) for english in SPANISH} == SPANISH


@pytest.mark.django_db
def test_the_tronc_page_says_no_distribution_yet(client):
    client.force_login(UserFactory(username="jefe", roles=["pit_supervisor"]))
    page = client.get(reverse("boxes:tronc")).content.decode()
    assert "Ningún reparto todavía." in page and "Ninguna todavía" not in page


def test_no_spanish_message_hedges_its_plural():
    """No "sesión(es)", "mano(s)": a count is said with its real plural (ngettext) or
    put after a colon."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    hedged = []
    for po in [*root.glob("locale/es/LC_MESSAGES/django.po"), *root.glob("*/locale/es/LC_MESSAGES/django.po")]:
        translated = False  # inside a msgstr (its continuation lines too)
        for line in po.read_text(encoding="utf-8").splitlines():
            if line.startswith("msgstr"):
                translated = True
            elif not line.startswith('"'):
                translated = False
            if translated and re.search(r"\w\((s|es)\)", line):
                hedged.append(f"{po.relative_to(root)}: {line}")
    assert hedged == []


def test_a_missing_figure_is_what_the_caller_asks_for():
    """A figure that is not there reads as the caller says (an alert's ``—``), never as an
    empty cell where a dash was promised; a figure that is there in the reader's format."""
    with translation.override("es"):
        assert formatting.number(None) == formatting.number("") == ""
        assert formatting.number(None, missing="—") == formatting.number("", missing="—") == "—"
        assert formatting.number("1991.383", missing="—") == formatting.number("1991.38") == "1\u00a0991,38"
        assert formatting.number("n/a", missing="—") == "n/a"


@pytest.mark.parametrize("value, places, shown", [
    ("0.1307", 3, "0,131"), ("12.345", 2, "12,35"), ("-1.999", 2, "-2,00"), ("2.675", 2, "2,68"),
    ("7.5", 0, "8"), ("1991.38", 2, "1\u00a0991,38")])
def test_a_figure_is_rounded_not_cut(value, places, shown):
    """Django's number_format cuts the digits beyond ``places``; a figure is rounded half up."""
    with translation.override("es"):
        assert formatting.number(value, places) == shown
