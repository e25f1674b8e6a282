"""Hand history: filtered by the casino's days (not UTC's) and exported as CSV in the
reader's format (issue 17)."""

import csv
import io
from datetime import UTC, datetime

import pytest
from django.urls import reverse

from tables import services
from tables.models import Hand

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]  # the bank +10.00


@pytest.fixture
def pit(client, staff):
    client.force_login(staff["supervisor"])
    return client


@pytest.fixture
def three_nights(mesa, staff):
    """Three hands around midnight in Madrid (UTC+1 in November): #1 at 00:30 on the 21st,
    #2 at 23:59 on the 21st, #3 at 00:30 on the 22nd (casino time); #2 voided."""
    first = mesa.play(mesa.open("luis", "marta"), *P01)
    second = mesa.play(mesa.open("luis", "marta"), *P01)
    third = mesa.play(mesa.open("luis", "marta"), *P01)
    services.hand_void(hand=second, reason="baraja equivocada", voided_by=staff["supervisor"])
    for hand, moment in ((first, datetime(2026, 11, 20, 23, 30, tzinfo=UTC)),
                         (second, datetime(2026, 11, 21, 22, 59, tzinfo=UTC)),
                         (third, datetime(2026, 11, 21, 23, 30, tzinfo=UTC))):
        Hand.objects.filter(pk=hand.pk).update(opened_at=moment, settled_at=moment)
    return mesa


def test_the_date_filter_takes_the_casinos_days(pit, three_nights):
    url = reverse("tables:hand_list", args=[three_nights.table.pk])
    day = pit.get(url, {"date_from": "2026-11-21", "date_to": "2026-11-21"})
    assert [h.number for h in day.context["hands"]] == [2, 1]  # UTC's 21st would be #2 and #3
    assert [h.number for h in pit.get(url, {"date_from": "2026-11-22"}).context["hands"]] == [3]
    assert [h.number for h in pit.get(url, {"date_to": "2026-11-20"}).context["hands"]] == []
    html = day.content.decode()
    assert 'type="date"' in html and "hands.csv?date_from=2026-11-21" in html.replace("&amp;", "&")


def test_a_period_that_ends_before_it_begins_is_refused(pit, three_nights):
    url = reverse("tables:hand_list", args=[three_nights.table.pk])
    response = pit.get(url, {"date_from": "2026-11-22", "date_to": "2026-11-21"})
    assert response.status_code == 200 and list(response.context["hands"]) == []
    assert "date_to" in response.context["form"].errors
    export = pit.get(reverse("tables:hand_list_csv", args=[three_nights.table.pk]),
                     {"date_from": "2026-11-22", "date_to": "2026-11-21"})
    assert export.status_code == 400 and "date_to" in export.content.decode()


def test_the_export_in_spanish(pit, three_nights):
    response = pit.get(reverse("tables:hand_list_csv", args=[three_nights.table.pk]),
                       {"date_from": "2026-11-21", "date_to": "2026-11-21"})
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "2026-11-21-2026-11-21-semicolon.csv" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode()), delimiter=";"))
    assert "punto y coma" in rows[0][0]
    header, hands = rows[1], rows[2:]
    assert [row[0] for row in hands] == ["1", "2"]  # oldest first, the casino's day
    first, voided = (dict(zip(header, row, strict=True)) for row in hands)
    assert first["abierto el"] == "21/11/2026 00:30"  # Madrid, not UTC's 23:30
    assert first["neto de la banca €"] == "10,00" and first["lo apostado €"] == "30,00"
    assert voided["estado"] == "anulada" and voided["neto de la banca €"] == "" and voided["apuestas"] == ""
    assert voided["motivo de la anulación"] == "baraja equivocada"


def test_the_export_in_english(pit, three_nights):
    pit.cookies["django_language"] = "en"
    response = pit.get(reverse("tables:hand_list_csv", args=[three_nights.table.pk]))
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert "comma.csv" in response["Content-Disposition"] and len(rows) == 2 + 3
    assert dict(zip(rows[1], rows[2], strict=True))["bank's net €"] == "10.00"


def test_a_dealer_exports_only_his_tables_hands(client, staff, three_nights):
    from tables.models import Table

    other = Table.objects.create(name="Mesa 9", rules="reglamento", min_bet=5, max_bet=100)
    client.force_login(staff["dealer"])
    assert client.get(reverse("tables:hand_list_csv", args=[three_nights.table.pk])).status_code == 200
    assert client.get(reverse("tables:hand_list_csv", args=[other.pk])).status_code == 403
