"""The dispute desk through the API (issue 34, item 4): the auditor lists and reads the
disputes and the incidents, filtered by table, gaming day and patron; nothing is written
through it; a dealer or a cashier cannot read it."""

import pytest
from django.utils import timezone

from casino.periods import gaming_day
from tables import services

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture
def desk(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    upheld = services.dispute_open(hand=hand, claim="the 4 was marta's", opened_by=mesa.supervisor,
                                   player=mesa.players["marta"])
    services.dispute_decide(dispute=upheld, outcome="upheld", decision="misdeal", decided_by=mesa.supervisor,
                            void=True)
    open_one = services.dispute_open(hand=hand, claim="luis was not paid", opened_by=mesa.supervisor,
                                     player=mesa.players["luis"])
    incident = services.incident_record(table=mesa.table, kind="behaviour", text="shouted at the dealer",
                                        recorded_by=mesa.supervisor, player=mesa.players["luis"])
    return hand, upheld, open_one, incident


def test_the_auditor_lists_and_filters_the_disputes(api, mesa, desk):
    hand, upheld, open_one, incident = desk
    auditor = api["auditor"]
    listed = auditor.get("/api/disputes/")
    assert listed.status_code == 200, listed.json()
    assert [d["id"] for d in listed.json()["results"]] == [open_one.pk, upheld.pk]
    one = auditor.get(f"/api/disputes/{upheld.pk}/").json()
    assert (one["hand"], one["table_name"], one["hand_number"], one["player"], one["status"], one["outcome"],
            one["decided_by"], one["opened_by"]) == (hand.pk, "Mesa 1", 1, "marta", "decided", "upheld", "pit1",
                                                      "pit1")
    assert one["void_entry"] == len(P01) + 1
    assert [d["id"] for d in auditor.get("/api/disputes/", player="luis").json()["results"]] == [open_one.pk]
    assert [d["id"] for d in auditor.get("/api/disputes/", status="open").json()["results"]] == [open_one.pk]
    today = gaming_day(timezone.now()).isoformat()
    assert auditor.get("/api/disputes/", day=today, table=mesa.table.pk).json()["count"] == 2
    assert auditor.get("/api/disputes/", day="2001-01-01").json()["count"] == 0
    assert auditor.get("/api/disputes/", day="nope").status_code == 400
    incidents = auditor.get("/api/incidents/", player="luis").json()["results"]
    assert [(i["id"], i["kind"], i["hand"]) for i in incidents] == [(incident.pk, "behaviour", None)]


def test_nothing_is_written_through_it_and_only_the_desk_reads_it(api, desk):
    _hand, upheld, _open_one, _incident = desk
    assert api["auditor"].post("/api/disputes/", {"hand": 1, "claim": "x"}).status_code in (403, 405)
    assert api["supervisor"].post("/api/disputes/", {"hand": 1, "claim": "x"}).status_code == 405
    assert api["supervisor"].get(f"/api/disputes/{upheld.pk}/").status_code == 200
    assert api["dealer"].get("/api/disputes/").status_code == 403
    assert api["cashier"].get("/api/incidents/").status_code == 403


def test_the_schema_documents_the_desk(client, db):
    schema = client.get("/api/schema/", {"format": "json"}).json()
    names = {p["name"] for p in schema["paths"]["/api/disputes/"]["get"]["parameters"]}
    assert {"table", "day", "player", "page"} <= names
    assert "/api/incidents/{id}/" in schema["paths"]
