"""A bank's deposit at the cage through the API: the banks awaiting theirs, who owes what,
and the cashier's ``bank_deposit`` slip (``POST /api/cashier/bank-deposits/``). [issue 16:
"The bank's capital is deposited at the cage (a slip from the banker, or from each
syndicate member for his share) before its first hand"]"""

from decimal import Decimal

import pytest

from cage.models import CashierSlip
from ledger.models import Account
from tables import services
from tests.api.conftest import error_of
from tests.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db
URL = "/api/cashier/bank-deposits/"


@pytest.fixture
def syndicate(mesa):
    """Mesa 2 drawn for by pepe with 300.00 (pepe 60 %, rosa 40 %): awaiting deposits."""
    table = TableFactory(name="Mesa 2")
    p = mesa.players
    return services.table_bank_draw(table=table, holder=p["pepe"], capital=Decimal("300.00"),
                                    shares=[(p["pepe"], Decimal("60")), (p["rosa"], Decimal("40"))],
                                    by=mesa.supervisor)


def test_the_banks_awaiting_their_deposits_with_who_owes_what(api, mesa, syndicate):
    response = api["cashier"].get(URL)
    assert response.status_code == 200
    assert response.json() == [{
        "tenure": syndicate.pk, "table": "Mesa 2", "holder": "pepe", "capital": "300.00", "rebuild": None,
        "amount": "300.00",
        "members": [
            {"player": "pepe", "percent": "60.00", "due": "180.00", "deposited": "0.00", "owing": "180.00"},
            {"player": "rosa", "percent": "40.00", "due": "120.00", "deposited": "0.00", "owing": "120.00"}]}]
    assert api["dealer"].get(URL).status_code == 403


def test_a_deposit_books_a_slip_into_the_bank_once_whatever_is_resent(api, mesa, syndicate):
    body = {"tenure": syndicate.pk, "player": "rosa", "amount": "120.00"}
    first = api["cashier"].post(URL, body, key="dep-1")
    assert first.status_code == 201, first.json()
    slip = first.json()
    assert (slip["kind"], slip["player"], slip["amount"], slip["tenure"]) == ("bank_deposit", "rosa", "120.00",
                                                                              syndicate.pk)
    again = api["cashier"].post(URL, body, key="dep-1")
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["number"] == slip["number"]
    assert CashierSlip.objects.filter(tenure=syndicate, kind="bank_deposit").count() == 1
    assert Account.objects.get(tenure=syndicate).balance == Decimal("120.00")
    awaiting = api["cashier"].get(URL).json()
    assert [(m["player"], m["owing"]) for m in awaiting[0]["members"]] == [("pepe", "180.00"), ("rosa", "0.00")]
    api["cashier"].post(URL, {"tenure": syndicate.pk, "player": "pepe", "amount": "180"})
    assert api["cashier"].get(URL).json() == []  # paid up: the bank may play
    assert api["cashier"].post(URL, body, key=None).status_code == 400


@pytest.mark.parametrize(("body", "code", "field"), [
    ({"player": "rosa", "amount": "120.01"}, 409, "amount"),        # above what she owes
    ({"player": "luis", "amount": "10.00"}, 409, "player"),         # not of the syndicate
    ({"player": "nadie", "amount": "10.00"}, 400, "player"),        # no such player
    ({"player": "rosa", "amount": "10.001"}, 400, "amount"),        # three decimals
    ({"player": "rosa", "amount": "-5"}, 400, "amount"),
    ({"player": "rosa", "amount": "100000.01"}, 400, "amount"),     # above the cage's maximum per slip
    ({"player": "rosa"}, 400, "amount"),
])
def test_a_refused_deposit_names_its_field_and_writes_nothing(api, mesa, syndicate, body, code, field):
    response = api["cashier"].post(URL, {"tenure": syndicate.pk, **body})
    assert response.status_code == code, response.json()
    assert error_of(response)["field"] == field
    assert not CashierSlip.objects.filter(kind="bank_deposit", tenure=syndicate).exists()


def test_a_tenure_that_takes_no_deposit_or_does_not_exist_is_named(api, mesa, syndicate):
    played = mesa.table.bank_tenures.get(closed_at__isnull=True)  # mesa's bank: deposited already
    paid_up = api["cashier"].post(URL, {"tenure": played.pk, "player": "ana", "amount": "1.00"})
    assert paid_up.status_code == 409 and error_of(paid_up)["field"] == "player"  # he owes nothing
    assert "ana" in str(paid_up.json())
    missing = api["cashier"].post(URL, {"tenure": 10**9, "player": "rosa", "amount": "1.00"})
    assert missing.status_code == 400 and error_of(missing)["field"] == "tenure"


def test_only_a_cashier_with_an_open_drawer_books_a_deposit(api, mesa, syndicate):
    body = {"tenure": syndicate.pk, "player": "rosa", "amount": "10.00"}
    for role in ("dealer", "supervisor", "auditor"):
        assert api[role].post(URL, body).status_code == 403
    from tests.api.conftest import Api

    closed = Api(UserFactory(username="caja2", roles=["cashier"]))  # no drawer open
    response = closed.post(URL, body)
    assert response.status_code == 409 and "cajón" in error_of(response)["message"]
    assert not CashierSlip.objects.filter(kind="bank_deposit", tenure=syndicate).exists()
