"""Bad input never answers 500 nor prints a traceback (issue 14): JSON nested past any
sense, lone surrogates and NUL characters in JSON and in form fields, amounts past what
the database's columns hold (``numeric(14,2)``), a year-9999 ``started_at``, and
``?format=json`` on a PDF's address each get a clear 4xx naming the field, and nothing
is written."""

import json

import pytest
from django.test import Client

from ledger.models import Transaction
from reports.models import Report
from tables.models import Hand
from tests.api.conftest import error_of
from tests.hands import record

pytestmark = pytest.mark.django_db

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def raw_post(api, path, body, **headers):
    return api.client.post(path, body, content_type="application/json",
                           headers={"Idempotency-Key": "k-" + str(abs(hash(body)))[:20], **headers})


def nested(depth):
    return "[" * depth + "]" * depth


@pytest.mark.parametrize("depth", [40, 900, 5_000, 100_000])
@pytest.mark.parametrize("path", ["/api/cashier/buy-in/", "/api/hand-records/", "/api/settle/",
                                  "/api/reports/requests/"])
def test_json_nested_too_deep_is_a_400(api, mesa, path, depth):
    role = {"/api/cashier/buy-in/": "cashier", "/api/reports/requests/": "auditor"}.get(path, "supervisor")
    body = '{"player": "luis", "amount": "5", "events": ' + nested(depth) + "}"
    response = raw_post(api[role], path, body)
    assert response.status_code == 400, response.content[:300]
    assert error_of(response)["rule"] in ("parse_error", "invalid", "nesting", "record")


def test_json_nested_too_deep_on_the_token_endpoint_is_a_400(db):
    response = Client().post("/api/auth/token/", '{"username": ' + nested(100_000) + "}",
                             content_type="application/json")
    assert response.status_code == 400


@pytest.mark.parametrize("text", ["\\ud800", "lu\\udfffis", "\\u0000"])
def test_lone_surrogates_and_nul_in_json_are_a_400_naming_the_field(api, mesa, text):
    before = Transaction.objects.count()
    response = raw_post(api["cashier"], "/api/cashier/buy-in/", '{"player": "' + text + '", "amount": "5"}')
    assert response.status_code == 400 and error_of(response)["field"] == "player"
    response = raw_post(api["supervisor"], "/api/hand-records/",
                        json.dumps(record(*P01, seats=["luis", "marta"], table="Mesa 1"))
                        .replace('"Mesa 1"', '"Mesa ' + text + '"'))
    assert response.status_code == 400 and error_of(response)["field"] == "table"
    assert Transaction.objects.count() == before


@pytest.mark.parametrize("text", ["\\ud800", "\\u0000"])
def test_lone_surrogates_and_nul_on_the_token_endpoint_are_a_400(db, text):
    response = Client().post("/api/auth/token/", '{"username": "au' + text + '", "password": "x' + text + '"}',
                             content_type="application/json")
    assert response.status_code == 400, response.content[:300]


@pytest.mark.parametrize("amount", ["1000000000000", "99999999999999999", "1e400", "123456789012.345"])
def test_an_amount_past_the_column_is_a_400_naming_the_field(api, mesa, amount):
    before = Transaction.objects.count()
    response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": amount})
    assert response.status_code == 400 and error_of(response)["field"] == "amount"
    response = api["supervisor"].post(f"/api/tables/{mesa.table.pk}/bank/transfer/",
                                      {"holder": "luis", "capital": amount})
    assert response.status_code == 400 and error_of(response)["field"] == "capital"
    assert Transaction.objects.count() == before


def test_sums_past_the_column_are_a_400_not_a_500(api, mesa):
    """Twelve-digit amounts each fit; the balance they add up to would not."""
    big = "999999999999.00"
    answers = [api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": big}) for _ in range(3)]
    assert all(a.status_code in (201, 400) for a in answers), [a.status_code for a in answers]
    refused = [error_of(a) for a in answers if a.status_code == 400]
    assert refused and all(e["field"] == "amount" for e in refused)


@pytest.mark.parametrize("field, value", [("min_bet", "99999999999999999"), ("max_bet", "1e20"),
                                          ("min_bet", "NaN"), ("max_bet", "Infinity")])
def test_a_records_limits_past_the_column_are_a_400(api, mesa, field, value):
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1")
    body[field] = value
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code == 400, response.content[:300]
    assert Hand.objects.count() == 0
    assert api["dealer"].post("/api/settle/", body).status_code == 400


@pytest.mark.parametrize("started_at", ["9999-12-31T23:59:59-05:00", "9999-12-31T23:59:59+00:00",
                                        "0001-01-01T00:00:00+05:00", "2026-13-45T99:00:00+01:00"])
def test_a_started_at_past_the_calendar_is_a_400_naming_it(api, mesa, started_at):
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1", started_at=started_at)
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code in (201, 400), response.content[:300]
    if response.status_code == 400:
        assert error_of(response)["field"] == "started_at", response.json()
    assert api["dealer"].post("/api/settle/", body).status_code in (200, 400)


@pytest.mark.parametrize("query", ["created_after=9999-12-31T23:59:59-05:00", "page=99999999999999999999",
                                   "page_size=-1", "created_before=0000-01-01"])
def test_filters_out_of_range_are_no_500(api, mesa, query):
    for path in ("/api/hands/", "/api/reports/requests/", "/api/players/", "/api/slips/"):
        response = api["auditor"].get(f"{path}?{query}")
        assert response.status_code in (200, 400, 404), (path, response.status_code)


def test_format_json_on_a_pdf_or_csv_address_is_a_406_not_a_500(api, mesa, django_capture_on_commit_callbacks):
    from tables import services

    with django_capture_on_commit_callbacks(execute=True):
        services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=mesa.supervisor)
    report = Report.objects.get(shift__table=mesa.table)
    assert api["auditor"].get(f"/api/reports/{report.pk}/pdf/").status_code == 200
    for path in ("pdf", "csv"):
        response = api["auditor"].client.get(f"/api/reports/{report.pk}/{path}/?format=json")
        assert response.status_code == 406, (path, response.status_code)
        assert error_of(response)["rule"] == "not_acceptable"
    missing = api["auditor"].client.get("/api/reports/999999/pdf/?format=json")
    assert missing.status_code == 404


@pytest.mark.parametrize("amount", ["５.00", "５", "1٥.00"])
def test_an_amount_with_other_digits_than_0_to_9_is_a_400_naming_the_field(api, mesa, amount):
    """Python reads a full-width "５" as 5: an amount is ASCII digits, in every door."""
    before = Transaction.objects.count()
    response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": amount})
    assert response.status_code == 400 and error_of(response)["field"] == "amount"
    bet = [line.replace("luis bet 10", "luis bet " + amount) for line in P01]
    response = api["supervisor"].post("/api/hand-records/", record(*bet, seats=["luis", "marta"], table="Mesa 1"))
    assert response.status_code == 400, response.json()
    assert error_of(response)["event"] == 4 and "importe" in error_of(response)["message"]
    response = api["supervisor"].post("/api/settle/", record(*P01, seats=["luis", "marta"], min_bet=amount))
    assert response.status_code == 400 and "min_bet" in json.dumps(error_of(response))
    assert Transaction.objects.count() == before and not Hand.objects.exists()


def test_a_nul_in_a_records_bank_is_a_400_naming_the_field(api, mesa):
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1", bank="ban\u0000ca")
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code == 400 and error_of(response)["field"] == "bank"
    assert not Hand.objects.exists()
