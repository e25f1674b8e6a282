"""The monthly statements through the API (issue 34, point 3): the auditor lists them and
reads one with its figures and, once signed, its signature; a dealer cannot; nothing is
written through it."""

from datetime import timedelta

import pytest
from django.utils import timezone

from casino.periods import gaming_day
from reports.statements import statement_request, statement_sign

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_auditor_reads_the_statements_and_their_signature(api, mesa, staff):
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10",
              "luis card 2B", "luis stand", "marta bet 20", "marta card 1O", "marta stand", "bank card 4E",
              "bank stand")
    tomorrow = gaming_day(timezone.now()) + timedelta(days=1)
    statement = statement_request(month=tomorrow - timedelta(days=1), requested_by=staff["auditor"], today=tomorrow)
    statement_sign(statement=statement, auditor=staff["auditor"])
    auditor = api["auditor"]
    listed = auditor.get("/api/statements/")
    assert listed.status_code == 200, listed.json()
    assert [item["id"] for item in listed.json()["results"]] == [statement.pk]
    one = auditor.get(f"/api/statements/{statement.pk}/").json()
    assert (one["status"], one["version"], one["signed_by"], one["requested_by"]) == ("done", 1, "audit1", "audit1")
    assert len(one["signature"]) == 64 and one["figures"]["month"]["now"]["casino"]["handle"] == "30.00"
    assert auditor.post("/api/statements/", {}).status_code in (403, 405)
    assert api["dealer"].get("/api/statements/").status_code == 403
