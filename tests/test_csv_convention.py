"""Every CSV the back-office writes follows one convention (``casino.formatting.csv_text``,
``csv_writer``): a first line naming the separator and the decimal mark, headers in the
reader's language, amounts with his decimal mark, and the separator his spreadsheet opens
(a semicolon where the decimal mark is a comma); the file's name says the separator."""

import csv
import io
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tables.models import Shift
from tests.factories import UserFactory
from tests.tables.conftest import mesa  # noqa: F401, F811

CONVENTIONS = {
    "es": (";", "# Campos separados por punto y coma", "-semicolon.csv",
           {"daily": "mesa", "aml": "jugador", "cagnotte": "cobro"}),
    "en": (",", "# Fields separated by commas", "-comma.csv", {"daily": "table", "aml": "player", "cagnotte": "levy"}),
}


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_registers_csv_follow_the_readers_convention(client, mesa, language):  # noqa: F811
    separator, description, suffix, first_headers = CONVENTIONS[language]
    client.force_login(UserFactory(username="audita", roles=["auditor"]))
    client.cookies["django_language"] = language
    shift = Shift.objects.get(table=mesa.table)
    downloads = {
        "daily": client.get(reverse("boxes:daily"), {"day": timezone.localdate().isoformat(), "format": "csv"}),
        "aml": client.get("/cage/aml/", {"format": "csv"}),
    }
    downloads["cagnotte"] = client.get(reverse("boxes:cagnotte", args=[shift.pk]), {"format": "csv"})
    for name, response in downloads.items():
        assert response.status_code == 200, name
        assert response["Content-Disposition"].endswith(suffix + '"'), (name, response["Content-Disposition"])
        rows = list(csv.reader(io.StringIO(response.content.decode()), delimiter=separator))
        assert rows[0][0].startswith(description), (name, rows[0])
        assert rows[1] == [] and first_headers[name] in [row[0] for row in rows if row], name
        # every amount has the reader's decimal mark (none has the other's)
        other = "." if separator == ";" else ","
        amounts = [cell for row in rows for cell in row if re.fullmatch(r"-?\d+[.,]\d\d", cell)]
        assert (amounts or name == "cagnotte") and not [cell for cell in amounts if other in cell], (name, amounts)
    aml = downloads["aml"].content.decode()
    assert ("luis;500,00;0,00;500,00" if language == "es" else "luis,500.00,0.00,500.00") in aml
