"""The ledger through the API: players and chips, accounts, statements with running
balances, tenures and their syndicates, the cashier's slips."""

from decimal import Decimal

from cage.models import CashierSlip
from ledger.models import Account
from ledger.selectors import player_balance
from tests.api.conftest import error_of


def test_a_buy_in_and_a_cash_out_issue_slips_with_amounts_as_strings(api, mesa):
    response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "100.50"})
    assert response.status_code == 201
    slip = response.json()
    assert (slip["kind"], slip["player"], slip["amount"], slip["balance"]) == ("buy_in", "luis", "100.50", "600.50")
    assert slip["reference"] == f"slip {slip['number']:06d}"
    out = api["cashier"].post("/api/cashier/cash-out/", {"player": "luis", "amount": "600"})
    assert out.status_code == 201 and out.json()["balance"] == "0.50"
    assert player_balance(player=mesa.players["luis"]) == Decimal("0.50")
    got = api["auditor"].get(f"/api/slips/{slip['number']}/").json()
    assert got["amount"] == "100.50" and got["issued_by"] == "caja1"


def test_a_cash_out_above_the_chips_names_the_amount_and_the_balance(api, mesa):
    response = api["cashier"].post("/api/cashier/cash-out/", {"player": "luis", "amount": "500.01"})
    assert response.status_code == 409
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("amount", "insufficient_chips") and "500" in error["message"]
    assert player_balance(player=mesa.players["luis"]) == Decimal("500.00")


def test_amounts_are_strings_with_two_decimals_never_floats(api, mesa):
    slips = CashierSlip.objects.count()
    for amount, rule in ((10.5, "invalid"), ("10.001", "invalid"), ("0", "positive"), ("-5", "positive"), ("5,00", "invalid"),
                         (True, "invalid"), ("1e3", "invalid"), ("NaN", "invalid")):
        response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": amount})
        assert response.status_code == 400, amount
        assert (error_of(response)["field"], error_of(response)["rule"]) == ("amount", rule), amount
    unknown = api["cashier"].post("/api/cashier/buy-in/", {"player": "nadie", "amount": "5"})
    assert unknown.status_code == 400 and error_of(unknown)["field"] == "player"
    assert api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": 7}).status_code == 201
    assert CashierSlip.objects.count() == slips + 1


def test_only_the_cashier_posts_at_the_cage(api, mesa):
    for role in ("dealer", "supervisor", "auditor"):
        response = api[role].post("/api/cashier/buy-in/", {"player": "luis", "amount": "5"})
        assert response.status_code == 403, role


def test_players_with_their_chips_and_their_statement(api, mesa):
    api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "20.00"})
    players = api["dealer"].get("/api/players/", q="lui").json()
    assert [(p["code"], p["balance"]) for p in players["results"]] == [("luis", "520.00")]
    assert api["dealer"].get("/api/players/luis/statement/").status_code == 403
    statement = api["auditor"].get("/api/players/luis/statement/").json()
    assert statement["balance"] == "520.00" and statement["page"] == 1 and statement["next"] is None
    assert [(line["kind"], line["signed"], line["running"]) for line in statement["results"]] == [
        ("buy_in", "20.00", "520.00"), ("buy_in", "500.00", "500.00")]
    newest = statement["results"][0]
    number = newest["cause"]["number"]
    assert newest["cause"] == {"kind": "slip", "number": number}
    assert newest["reference_text"] == f"vale {number:06d}" and newest["reference"] == f"slip {number:06d}"
    assert api["cashier"].get("/api/players/nadie/statement/").status_code == 404


def test_statements_page_with_links(api, mesa):
    for _ in range(3):
        api["cashier"].post("/api/cashier/buy-in/", {"player": "rosa", "amount": "1.00"})
    account = Account.objects.get(player=mesa.players["rosa"])
    # 50 lines a page: one page here, and a page past the end is empty.
    first = api["cashier"].get(f"/api/accounts/{account.pk}/statement/").json()
    assert len(first["results"]) == 4 and first["results"][0]["running"] == "503.00"
    past = api["cashier"].get(f"/api/accounts/{account.pk}/statement/", page=3).json()
    assert past["results"] == [] and past["previous"].endswith("page=2")


def test_accounts_and_tenures(api, mesa):
    tenures = api["cashier"].get("/api/tenures/", open="true").json()
    assert tenures["count"] == 1
    tenure = tenures["results"][0]
    assert (tenure["holder"], tenure["capital"], tenure["balance"], tenure["table_name"]) == (
        "ana", "100.00", "100.00", "Mesa 1")
    statement = api["auditor"].get(f"/api/tenures/{tenure['id']}/statement/").json()
    assert statement["balance"] == "100.00"
    assert statement["shares"] == [{"player": "ana", "percent": "100.00", "capital": "100.00",
                                    "distribution": "100.00"}]
    assert statement["statement"]["results"][0]["kind"] == "capital_in"
    kinds = api["auditor"].get("/api/accounts/", kind="tenure").json()
    assert kinds["count"] == 1 and kinds["results"][0]["tenure"] == tenure["id"]
    assert api["auditor"].get("/api/accounts/", player="ana").json()["results"][0]["balance"] == "500.00"
    assert api["dealer"].get("/api/accounts/").status_code == 403
    slips = api["auditor"].get("/api/slips/", player="luis", kind="buy_in").json()
    assert slips["count"] == 1


def test_text_no_database_can_store_is_refused_naming_the_field(api, mesa):
    response = api["cashier"].post("/api/cashier/buy-in/", {"player": "lu\u0000is", "amount": "5"})
    assert response.status_code == 400
    assert (error_of(response)["field"], error_of(response)["rule"]) == ("player", "invalid_text")
    lone = api["cashier"].client.post("/api/cashier/buy-in/", b'{"player": "\\ud800", "amount": "5"}',
                                      content_type="application/json", headers={"Idempotency-Key": "x"})
    assert lone.status_code == 400 and error_of(lone)["field"] == "player"
    query = api["cashier"].get("/api/players/", q="a\u0000")
    assert query.status_code == 400 and error_of(query)["field"] == "q"
