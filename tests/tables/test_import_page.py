"""The pit's import page through Django's client: the pit supervisor imports, an auditor
reads and posts nothing, a dealer is refused; a file that is not UTF-8 and a ``.json``
record are read as ``manage.py import_hands`` reads them; a refused record writes nothing
of its file."""

import json

from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tables.models import Hand
from tests.hands import record

URL = reverse("tables:hand_import")
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def _file(name, content):
    return {"records": SimpleUploadedFile(name, content, content_type="application/octet-stream")}


def _hand(**fields):
    return record(*P01, seats=("luis", "marta"), **{"table": "Mesa 1", **fields})


def test_who_may_import(client, mesa, staff):
    client.force_login(staff["auditor"])
    assert client.get(URL).status_code == 200
    assert client.post(URL, _file("a.json", json.dumps(_hand()).encode())).status_code == 403
    client.force_login(staff["dealer"])
    assert client.get(URL).status_code == 403
    assert not Hand.objects.exists()


def test_a_json_record_imports_and_a_file_not_utf8_is_refused(client, mesa, staff):
    client.force_login(staff["supervisor"])
    page = client.post(URL, _file("noche.jsonl", b'{"table": "Mesa 1", "bank": "ana\xff"}\n'))
    assert page.context["form"].errors["records"] == [
        "no se puede leer el fichero: no es texto UTF-8 (byte 32) — no se escribió nada del fichero"]
    done = client.post(URL, _file("mano.json", json.dumps(_hand(), indent=2).encode()), follow=True)
    assert "1 mano importada: Mesa 1 (1)" in done.content.decode()
    assert list(Hand.objects.values_list("number", "status")) == [(1, "settled")]


def test_a_refused_record_names_its_line_and_event_and_writes_nothing_of_its_file(client, mesa, staff):
    client.force_login(staff["supervisor"])
    bad = _hand()
    bad["events"][3]["amount"] = "500"  # over the table's maximum of 100
    lines = "\n".join(json.dumps(r) for r in (_hand(), bad)).encode()
    page = client.post(URL, _file("noche.jsonl", lines))
    (refusal,) = page.context["form"].errors["records"]
    assert refusal.startswith("línea 2, anotación 4: ") and refusal.endswith("— no se escribió nada del fichero")
    assert "500,00 €" in refusal, refusal
    assert page.content.decode().count("no se escribió nada del fichero") == 1  # said once
    assert not Hand.objects.exists()
