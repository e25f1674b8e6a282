"""The exclusion register's pages (issue 34, item 1's gaps): the register searched by name
or document on /cage/exclusions/ (every load's entries, in force or not), and the
admissions refused downloaded as CSV in the reader's convention."""

import datetime

import pytest
from django.conf import settings as django_settings
from django.urls import reverse

from cage.services.slips import cashier_buy_in
from patrons.admission import exclusion_load, self_exclusion_add
from patrons.errors import AdmissionRefused
from tests.factories import PlayerFactory, UserFactory, open_drawer
from tests.patrons.test_admission import RGIAJ

pytestmark = pytest.mark.django_db


@pytest.fixture
def compliance(db):
    return UserFactory(username="cumplimiento", roles=["compliance_officer"])


@pytest.fixture
def register(compliance):
    first = exclusion_load(content=RGIAJ, file_name="rgiaj.csv", source="rgiaj", loaded_by=compliance)
    exclusion_load(content="documento;nombre\nY7654321G;Ana Pérez Gil\n".encode(), file_name="rgiaj-2.csv",
                   source="rgiaj", loaded_by=compliance)  # supersedes the first
    self_exclusion_add(entered_by=compliance, name="Luis Pérez", date_of_birth=datetime.date(1980, 1, 1))
    return first


def _client(client, user, language="en"):
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = language
    client.force_login(user)
    return client


def _found(page):
    html = page.content.decode()
    return html[html.index('id="register-found"'):html.index("</table>", html.index('id="register-found"'))]


def test_the_register_is_searched_by_name_or_document(client, register, compliance):
    client = _client(client, compliance)
    by_name = _found(client.get(reverse("cage:exclusions"), {"q": "perez"}))  # accents and case aside
    assert "Ana Pérez Gil" in by_name and "Luis Pérez" in by_name and "Pedro" not in by_name
    by_document = _found(client.get(reverse("cage:exclusions"), {"q": "12.345.678-Z"}))
    assert "Pedro" in by_document and "load #" in by_document
    assert "<td>no</td>" in by_document  # the first load is superseded: no longer in force
    none = _found(client.get(reverse("cage:exclusions"), {"q": "Zacarías"}))
    assert "No entry of the register matches" in none
    auditor = UserFactory(username="auditor2", roles=["auditor"])
    assert "Luis Pérez" in _found(_client(client, auditor).get(reverse("cage:exclusions"), {"q": "luis"}))


def test_the_refusals_download_as_csv_in_the_readers_convention(client, register, compliance):
    cashier = UserFactory(username="caja", roles=["cashier"])
    open_drawer(cashier)
    ana = PlayerFactory(code="anap", name="Ana Pérez Gil", document_number="Y7654321G")
    with pytest.raises(AdmissionRefused):
        cashier_buy_in(player=ana, amount=100, posted_by=cashier)
    page = _client(client, compliance, "es").get(reverse("cage:admission_refusals"))
    assert reverse("cage:admission_refusals_csv").encode() in page.content
    response = client.get(reverse("cage:admission_refusals_csv"))
    assert response["Content-Type"].startswith("text/csv")
    assert 'admission-refusals-semicolon.csv' in response["Content-Disposition"]
    lines = response.content.decode().splitlines()
    assert lines[0].startswith("# ") and lines[2].startswith("rechazo;fecha y hora;")
    assert len(lines) == 4 and ";anap;Ana Pérez Gil;Y7654321G;" in lines[3] and "caja" in lines[3]
    assert ";en el registro de exclusiones;" in lines[3], lines[3]
    assert client.get(reverse("cage:admission_refusals_csv")).status_code == 200
    assert _client(client, cashier).get(reverse("cage:admission_refusals_csv")).status_code == 403
