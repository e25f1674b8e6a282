"""Admission through the API: a buy-in at the cage or at a table for a patron on the
exclusion register, or without identity on file, is refused as on the pages (a 400
naming the patron and the reason, nothing posted, the refusal recorded)."""

import pytest
from django.utils import translation

from boxes.models import TableBuyIn
from cage.models import CashierSlip
from patrons.admission import self_exclusion_add
from patrons.models import AdmissionRefusal, Player
from tests.api.conftest import error_of
from tests.factories import UserFactory


@pytest.fixture
def excluded_luis(mesa):
    compliance = UserFactory(username="cumple", roles=["compliance_officer"])
    return self_exclusion_add(entered_by=compliance, document_number=mesa.players["luis"].document_number)


def test_a_cage_buy_in_of_an_excluded_patron_is_refused(api, mesa, excluded_luis):
    slips = CashierSlip.objects.count()
    with translation.override("es"):
        response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "50.00"},
                                       HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 400, response.content
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("player", "admission_excluded")
    assert "luis figura en el registro de exclusiones" in error["message"], error
    assert CashierSlip.objects.count() == slips
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.entry, refusal.attempted_by.username) == ("cage_buy_in", excluded_luis, "caja1")


def test_a_table_buy_in_of_an_excluded_patron_is_refused(api, mesa, excluded_luis):
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/buy-ins/", {"player": "luis", "amount": "50.00"})
    assert response.status_code == 400, response.content
    assert error_of(response)["rule"] == "admission_excluded"
    assert not TableBuyIn.objects.exists()
    assert AdmissionRefusal.objects.get().where == "table_buy_in"


def test_a_buy_in_without_identity_is_refused(api, mesa):
    Player.objects.filter(code="luis").update(nationality="")
    response = api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "50.00"})
    assert response.status_code == 400, response.content
    assert (error_of(response)["field"], error_of(response)["rule"]) == ("player", "admission_no_identity")
    assert AdmissionRefusal.objects.get().missing
