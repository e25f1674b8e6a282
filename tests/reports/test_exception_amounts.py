"""The amounts of a stored exception (strings of euros, ``"1250.50"``) read in the reader's
locale wherever its words are made: es ``1 250,50 €``, en ``1,250.50 €``; in the
exception's text, in an alert's text and on the pages that show them (``/``, the alerts,
an alert, a report)."""

import re

import pytest
from django.urls import reverse
from django.utils import translation

from boxes.services import box_count
from reports.models import Alert, Report
from reports.services import report_request, report_run
from reports.tasks import raise_alerts
from reports.texts import alert_text, exception_text
from tests.factories import UserFactory

DOT_EURO = re.compile(r"\d\.\d\d €")  # 5.00 €, as a machine writes it
COMMA_EURO = re.compile(r"\d,\d\d €")  # 5,00 €, as a Spanish reader writes it

#: Every stored exception whose sentence prints amounts, as its producer stores it (amounts
#: strings of euros with two places), and the amounts it prints.
AMOUNT_EXCEPTIONS = [
    ({"code": "box_variance", "box": "drop", "counted": "1250.50", "expected": "0.00", "variance": "1250.50"},
     ["1250.50", "0.00", "1250.50"]),
    ({"code": "drawer_variance", "drawer": 7, "cashier": "caja1", "supervisor": "pit1",
      "closed_at": "2026-11-28T04:00:00+00:00", "expected": "1081.50", "counted": "1071.50", "variance": "-10.00",
      "tolerance": "5.00"}, ["-10.00", "1081.50", "1071.50", "5.00"]),
    ({"code": "tenure_balance", "tenure": 3, "holder": "ana", "movements": "1250.50", "balance": "1200.00"},
     ["1250.50", "1200.00"]),
    ({"code": "tenure_capital", "tenure": 3, "capital": "1250.50", "ledger": "1200.00"}, ["1250.50", "1200.00"]),
    ({"code": "tenure_result", "tenure": 3, "result": "-1250.50", "ledger": "-1200.00"}, ["-1250.50", "-1200.00"]),
    ({"code": "closed_tenure_holds", "tenure": 3, "balance": "1250.50"}, ["1250.50"]),
    ({"code": "commission_recomputed", "posted": "1250.50", "recomputed": "1251.00", "difference": "0.50",
      "count": 1, "numbers": [2]}, ["1251.00", "1250.50", "0.50"]),
    ({"code": "tenure_differs", "tenure": 3, "holder": "ana", "report": "1250.50", "ledger": "1200.00",
      "difference": "50.50"}, ["1250.50", "1200.00", "50.50"]),
    ({"code": "player_differs", "player": "luis", "report": "1250.50", "ledger": "1200.00", "difference": "50.50"},
     ["1250.50", "1200.00", "50.50"]),
    ({"code": "reconciliation", "what": "bank", "report": "1250.50", "ledger": "1200.00", "difference": "50.50"},
     ["1250.50", "1200.00", "50.50"]),
    ({"code": "settlements_unbalanced", "difference": "1250.50"}, ["1250.50"]),
    ({"code": "voids_not_cancelled", "amount": "1250.50", "accounts": "#4"}, ["1250.50"]),
]
SPANISH = {"1250.50": "1\xa0250,50", "-1250.50": "-1\xa0250,50", "1200.00": "1\xa0200,00", "-1200.00": "-1\xa0200,00",
           "1251.00": "1\xa0251,00", "1081.50": "1\xa0081,50", "1071.50": "1\xa0071,50", "0.00": "0,00",
           "-10.00": "-10,00", "5.00": "5,00", "0.50": "0,50", "50.50": "50,50"}
ENGLISH = {"1250.50": "1,250.50", "-1250.50": "-1,250.50", "1200.00": "1,200.00", "-1200.00": "-1,200.00",
           "1251.00": "1,251.00", "1081.50": "1,081.50", "1071.50": "1,071.50", "0.00": "0.00",
           "-10.00": "-10.00", "5.00": "5.00", "0.50": "0.50", "50.50": "50.50"}


@pytest.mark.parametrize(("item", "amounts"), AMOUNT_EXCEPTIONS, ids=[item["code"] for item, _ in AMOUNT_EXCEPTIONS])
def test_every_amount_of_an_exception_reads_in_the_readers_locale(item, amounts):
    with translation.override("es"):
        spanish = exception_text(item)
        alert = alert_text("exception", item["code"], {"code": item["code"], "count": 1, "items": [item],
                                                       "item_total": 1})
    with translation.override("en"):
        english = exception_text(item)
    assert alert == spanish
    for amount in amounts:
        assert f"{SPANISH[amount]} €" in spanish, spanish
        assert f"{ENGLISH[amount]} €" in english, english
    assert not DOT_EURO.search(spanish), spanish
    assert not COMMA_EURO.search(english), english


def test_a_box_variance_reads_in_spanish_on_the_alert_and_the_report_and_in_english_for_an_english_reader(
        played, staff, client):
    """The drop box of a shift without buy-ins counted 5.00: 5.00 against 0.00 recorded."""
    shift = played.close()
    second = UserFactory(username="pit2", roles=["pit_supervisor"])
    box_count(shift=shift, box="drop", pieces={"5.00": 1}, first_counter=staff["supervisor"], second_counter=second,
              recorded_by=staff["supervisor"])
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)
    report = Report.objects.get(pk=report_run(request_id=request.pk).report.pk)
    assert {"code": "box_variance", "box": "drop", "counted": "5.00", "expected": "0.00",
            "variance": "5.00"} in report.result["exceptions"]  # stored as machine figures, unchanged
    raise_alerts(report.pk)
    alert = Alert.objects.get(kind="exception", code="box_variance")
    client.force_login(staff["auditor"])
    # (the box's own name is "caja del drop" or "caja de drop" as the apps' catalogues merge)
    spanish = "drop contó 5,00 € frente a 0,00 € registrados (diferencia 5,00 €), sin explicar"
    for url in (reverse("home"), reverse("reports:alerts"), reverse("reports:alert", args=[alert.pk]),
                reverse("reports:report", args=[report.pk])):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
        assert spanish in page, url
        assert "contó 5.00 €" not in page and "0.00 € registrados" not in page and "diferencia 5.00 €" not in page, url
    client.cookies["django_language"] = "en"
    english = "the drop box counted 5.00 € against 0.00 € recorded (variance 5.00 €), not explained"
    for url in (reverse("reports:alert", args=[alert.pk]), reverse("reports:report", args=[report.pk])):
        page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
        assert english in page, url
