"""The house's figures in the shift report (issue 17): the commission recomputed per hand
from the rate against the posted one (a difference is an exception, hence an alert), the
house's hold % (commission / handle), each bank tenure's float at the shift's open and
close, the sale price received; shown on the page and in the CSV."""

from decimal import Decimal

from django.db import connection
from django.urls import reverse

from reports.services import report_request, report_run
from reports.shift import shift_report
from reports.texts import exception_text
from tables import services
from tables.models import Hand
from tests.factories import deposit_bank
from tests.reports.conftest import P01, import_shift

RULES = {"profile": "profesional", "side_bets": True, "commission_rate": "0.05", "bank_natural_collects": 2}
#: Bank −5 (no commission), then bank +60: commission 3.00 at 5 %.
HANDS = [
    (["luis", "marta"], ["luis deal 5O", "marta deal 3C", "bank deal 2E", "loca deal 12O", "luis bet 10",
                         "luis bet 10 by pepe", "luis card 2B", "luis stand", "marta bet 20", "marta card 1O",
                         "loca bet 5 by rosa", "marta stand", "loca card 6O", "loca stand", "bank card 4E",
                         "bank stand"]),
    (["luis", "marta"], ["luis deal 5O", "marta deal 3C", "bank deal 7E", "loca deal 2O", "luis bet 10",
                         "luis card 1B", "luis stand", "marta bet 20", "marta card 2C", "marta stand",
                         "loca stand", "bank card 11E"]),
]


def test_the_commission_recomputed_from_the_rate_agrees_and_the_house_hold_is_commission_over_handle(staff):
    table = import_shift("Mesa H", HANDS, staff, rules=RULES)
    report = shift_report(table.shifts.get())
    house = report["house"]
    assert house["commission"]["posted"] == house["commission"]["recomputed"] == "3.00"
    assert (house["commission"]["differ"], house["commission"]["difference"]) == (0, "0.00")
    assert house["commission"]["rates"] == [{"rules": RULES, "rate": "0.05"}]
    assert house["house_hold_percent"] == "4.00"  # 3 / 75, where the holder's hold is 73.33
    assert report["exceptions"] == []


def test_a_posted_commission_that_the_rate_does_not_give_is_an_exception(staff):
    table = import_shift("Mesa H", HANDS, staff, rules=RULES)
    second = Hand.objects.get(table=table, number=2)
    with connection.cursor() as cursor:  # a settlement changed behind the service's back
        cursor.execute("SET LOCAL session_replication_role = replica")  # no trigger fires
        cursor.execute("UPDATE tables_hand SET settlement = jsonb_set(settlement, '{commission}', '\"2.50\"') "
                       "WHERE id = %s", [second.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    report = shift_report(table.shifts.get())
    assert report["house"]["commission"]["posted"] == "2.50"
    found = [e for e in report["exceptions"] if e["code"] == "commission_recomputed"]
    assert found == [{"code": "commission_recomputed", "posted": "2.50", "recomputed": "3.00",
                      "difference": "0.50", "count": 1, "numbers": [2]}]
    assert "3,00 €" in exception_text(found[0]) and "#2" in exception_text(found[0])  # in Spanish, the reader's


def test_each_tenure_s_float_at_the_shift_s_open_and_close(played):
    """ana's bank (100.00) wins 10, loses 30 and passes to luis on his 7½ (80.00 at its
    close); luis's opens with its capital and wins 30; the voided hand leaves nothing."""
    shift = played.close()
    floats = {row["holder"]: row for row in shift_report(shift)["house"]["tenures"]}
    ana, luis = floats["ana"], floats["luis"]
    assert (ana["float_open"], ana["float_close"], ana["closed_in_shift"]) == ("100.00", "80.00", True)
    assert ana["sale_price"] is None and not ana["opened_in_shift"]
    capital = Decimal(luis["float_open"])
    assert luis["opened_in_shift"] and capital > 0
    assert Decimal(luis["float_close"]) == capital + 30 and not luis["closed_in_shift"]


def test_the_sale_price_received_and_the_page_and_csv_show_the_house(mesa, client, staff):
    mesa.hand(["luis", "marta"], P01)  # ana's bank +10.00
    tenure = mesa.table.bank_tenures.get(closed_at__isnull=True)
    services.table_bank_sell(table=mesa.table, buyer=tenure.table.hands.first().bets.get(player__code="marta").player,
                             price=Decimal("150.00"), capital=Decimal("50.00"), by=staff["supervisor"])
    deposit_bank(mesa.table)
    shift = mesa.close()
    request = report_request(kind="shift", table=mesa.table, shift=shift, requested_by=None)
    report = report_run(request_id=request.pk).report
    rows = {row["holder"]: row for row in report.result["house"]["tenures"]}
    assert (rows["ana"]["float_open"], rows["ana"]["float_close"]) == ("100.00", "110.00")
    assert (rows["ana"]["sale_price"], rows["ana"]["buyer"]) == ("150.00", "marta")
    assert (rows["marta"]["float_open"], rows["marta"]["float_close"]) == ("50.00", "50.00")
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:report", args=[report.pk])).content.decode()
    house = page.split('id="house"')[1].split("</section>")[0]
    assert "Retención de la casa" in house and "150,00 € (marta)" in house and "110,00 €" in house
    csv = client.get(reverse("reports:report_csv", args=[report.pk])).content.decode()
    assert "150,00" in csv and "precio de venta recibido" in csv.lower()
