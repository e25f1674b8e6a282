"""The OpenAPI schema and the documentation pages; token and session authentication."""

import re

import pytest
from django.test import Client

from tests.api.conftest import error_of


@pytest.fixture
def schema(db, client):
    response = client.get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    return response.json()


def operations(schema):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            yield path, method, operation


def test_the_schema_is_openapi_3_with_every_area(schema):
    assert schema["openapi"].startswith("3.") and schema["info"]["title"]
    paths = set(schema["paths"])
    for path in ("/api/tables/", "/api/tables/{id}/hands/", "/api/tables/{id}/hands.jsonl", "/api/shifts/",
                 "/api/hands/{id}/state/", "/api/hands/{id}/events/", "/api/hands/{id}/undo/",
                 "/api/hands/{id}/void/", "/api/hands/{id}/record/", "/api/hand-records/", "/api/settle/",
                 "/api/players/{code}/statement/", "/api/tenures/{id}/statement/", "/api/accounts/",
                 "/api/cashier/buy-in/", "/api/cashier/cash-out/", "/api/reports/requests/",
                 "/api/reports/{id}/csv/", "/api/reports/{id}/pdf/", "/api/auth/token/"):
        assert path in paths, path


def test_every_post_but_the_token_takes_a_required_idempotency_key(schema):
    posts = [(path, op) for path, method, op in operations(schema) if method == "post"]
    assert len(posts) >= 10
    for path, operation in posts:
        headers = [p for p in operation.get("parameters", []) if p["in"] == "header"]
        if path == "/api/auth/token/":
            assert headers == []
            continue
        assert [(p["name"], p["required"]) for p in headers] == [("Idempotency-Key", True)], path
        for code in ("400", "401", "403", "409"):
            assert operation["responses"][code]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"}, (path, code)


def test_every_operation_documents_its_errors_and_lists_are_paginated(schema):
    for path, _method, operation in operations(schema):
        assert "400" in operation["responses"], path
        if "{" in path:
            assert "404" in operation["responses"], path
    hands = schema["paths"]["/api/hands/"]["get"]
    names = {p["name"] for p in hands["parameters"]}
    assert {"page", "page_size", "table", "status", "opened_after"} <= names
    assert hands["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith("PaginatedHandList")
    error = schema["components"]["schemas"]["ErrorDetail"]
    assert set(error["required"]) == {"field", "event", "rule", "message"}


def test_money_is_a_string_in_the_schema(schema):
    components = schema["components"]["schemas"]
    assert components["Player"]["properties"]["balance"]["type"] == "string"
    assert components["Slip"]["properties"]["amount"]["type"] == "string"
    assert components["CashierInputRequest"]["properties"]["amount"]["type"] == "string"
    export = schema["paths"]["/api/tables/{id}/hands.jsonl"]["get"]["responses"]["200"]["content"]
    assert "application/jsonl" in export


def test_the_reference_page_works_without_the_network(db, client):
    response = client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/api/hands/{id}/events/" in page and "Idempotency-Key" in page
    assert "<script" not in page and not re.search(r'(src|href)="(https?:)?//', page)  # nothing fetched
    assert client.get("/api/docs/swagger/").status_code == 200
    assert client.get("/api/docs/redoc/").status_code == 200


def test_a_token_from_username_and_password(db, client, staff):
    response = client.post("/api/auth/token/", {"username": "audit1", "password": "secret-pass-1"},
                           content_type="application/json")
    assert response.status_code == 200
    token = response.json()["token"]
    tables = client.get("/api/tables/", headers={"Authorization": f"Token {token}"})
    assert tables.status_code == 200 and tables.json()["count"] == 0
    wrong = client.post("/api/auth/token/", {"username": "audit1", "password": "nope"},
                        content_type="application/json")
    assert wrong.status_code == 400 and error_of(wrong)["rule"]
    bad_token = client.get("/api/tables/", headers={"Authorization": "Token nope"})
    assert bad_token.status_code == 401 and error_of(bad_token)["rule"] == "authentication_failed"


def test_the_pages_session_works_and_its_posts_need_the_csrf_token(db, staff, mesa):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(staff["cashier"])
    assert browser.get("/api/players/luis/").json()["balance"] == "500.00"
    response = browser.post("/api/cashier/buy-in/", {"player": "luis", "amount": "5"},
                            content_type="application/json", headers={"Idempotency-Key": "s-1"})
    assert response.status_code == 403 and "CSRF" in error_of(response)["message"]


def test_any_other_path_or_a_body_that_is_not_json_gets_the_error_json(db, api, mesa):
    missing = api["auditor"].get("/api/nowhere/")
    assert missing.status_code == 404 and error_of(missing)["rule"] == "not_found"
    assert api["auditor"].client.post("/api/nowhere/", {}).status_code == 404
    broken = api["cashier"].client.post("/api/cashier/buy-in/", b"{not json", content_type="application/json",
                                        headers={"Idempotency-Key": "p-1"})
    assert broken.status_code == 400 and error_of(broken)["rule"] == "parse_error"
    form = api["cashier"].client.post("/api/cashier/buy-in/", {"player": "luis", "amount": "5"},
                                      headers={"Idempotency-Key": "p-2"})
    assert form.status_code == 415 and error_of(form)["rule"] == "unsupported_media_type"


def test_what_may_be_null_is_nullable_in_the_schema(schema):
    """A table with no shift or hand open answers null for them (issue 14): the schema
    says so, as Schemathesis checks against every answer."""
    table = schema["components"]["schemas"]["Table"]["properties"]
    for name in ("open_shift", "open_hand", "bank_holder"):
        assert table[name].get("nullable") is True, name
    assert table["open_hand"]["type"] == "integer" and table["bank_holder"]["type"] == "string"
    for name in ("min_bet", "max_bet", "bank_capital"):
        assert table[name]["type"] == "string", name  # amounts as strings


def test_a_quiet_table_answers_null_for_its_shift_and_hand(api, mesa):
    from tables import services

    services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=mesa.supervisor)
    body = api["auditor"].get(f"/api/tables/{mesa.table.pk}/").json()
    assert (body["open_shift"], body["open_hand"]) == (None, None)
    assert isinstance(body["min_bet"], str) and isinstance(body["bank_capital"], str)
