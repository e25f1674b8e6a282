"""Refusals in the reader's language, whole: the engine's phrases are codes and figures
worded by the shell (no English inside a Spanish refusal), a bare "required" names its
field, and the admin's pages of django-axes (the failed logins) are in Spanish."""

import json
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import translation

from tests.api.conftest import error_of
from tests.factories import UserFactory
from tests.hands import record

ENGLISH = ("the deal", "has not finished", "Expecting", "delimiter", "malformed", "line ", "column ")


def refused_import(tmp_path, text):
    path = tmp_path / "noche.jsonl"
    path.write_text(text)
    with translation.override("es"), pytest.raises(CommandError) as caught:
        call_command("import_hands", str(path), stdout=StringIO())
    return str(caught.value).split(": ", 1)[1]  # after the file, line and event


@pytest.mark.parametrize(("lines", "spanish"), [
    (["luis deal 5O"], "el reparto no ha terminado"),
    (["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10"], "la mano 1 de luis no ha terminado"),
    (["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis stand", "marta bet 10",
      "marta stand"], "la banca no ha terminado"),
])
def test_a_record_that_ends_before_the_hand_is_refused_all_in_spanish(mesa, tmp_path, lines, spanish):
    message = refused_import(tmp_path, json.dumps(record(*lines, seats=["luis", "marta"], table="Mesa 1")) + "\n")
    assert "el registro acaba antes que la mano: " + spanish in message
    assert not [word for word in ENGLISH if word in message], message


def test_malformed_json_is_refused_in_spanish_with_its_line_and_column(mesa, tmp_path):
    message = refused_import(tmp_path, '{"format": "siete-y-media/hand-1" "rules": "reglamento"}\n')
    assert "JSON mal formado en la línea 1, columna 35: falta una coma" in message
    assert not [word for word in ENGLISH if word in message], message


def test_the_api_words_malformed_json_in_the_readers_language(api, mesa):
    response = api["supervisor"].client.post(
        "/api/hand-records/", '{"table": "Mesa 1" "events": []}', content_type="application/json",
        headers={"Idempotency-Key": "malformed-1", "Accept-Language": "es"})
    assert response.status_code == 400
    message = error_of(response)["message"]
    assert "JSON mal formado en la línea 1, columna 20: falta una coma" in message
    assert "Expecting" not in message and "delimiter" not in message


def test_a_required_field_the_api_misses_is_named_in_its_message(api, mesa):
    response = api["cashier"].post("/api/cashier/buy-in/", {"amount": "5"}, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 400
    error = error_of(response)
    assert error["field"] == "player"
    assert error["message"].startswith("player: ") and "requerido" in error["message"]


def test_the_admins_pages_of_failed_logins_are_in_spanish(db):
    AccessAttempt.objects.create(username="pepe", ip_address="10.0.0.7", user_agent="Tablet", http_accept="*/*",
                                 path_info="/accounts/login/", get_data="", post_data="", failures_since_start=2)
    admin = UserFactory(username="jefa", roles=["admin"], is_staff=True, is_superuser=True)
    client = Client(headers={"Accept-Language": "es"})
    client.force_login(admin)
    index = client.get("/admin/").content.decode()
    assert "Intentos de acceso" in index and "Axes" not in index and "Access attempts" not in index
    page = client.get("/admin/axes/accessattempt/").content.decode()
    assert page.count("Hora del intento") >= 1 and "Dirección IP" in page and "Usuario" in page
    for english in ("Attempt Time", "IP Address", "Failed Logins", "Path", "Status", "Expiration"):
        assert english not in page, english
