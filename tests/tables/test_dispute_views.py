"""The dispute desk's pages (issue 34, item 4): the pit opens a dispute from the hand's
page, steps through the hand (after entry k the felt shows exactly the cards dealt so
far), upholds it after a confirmation and the hand is voided; the auditor reads the list
and its CSV and posts nothing; a dealer gets 403."""

import csv
import io
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from casino.periods import gaming_day
from tables import services
from tables.models import Dispute, Hand, Incident
from tests.hands import event

pytestmark = pytest.mark.django_db

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture
def hand(mesa):
    return mesa.play(mesa.open("luis", "marta"), *P01)


def felt_cards(html):
    """The named cards on the page's felt, in page order."""
    felt = html[html.index('<ol class="felt"'):html.index("</ol>", html.index('<ol class="felt"'))]
    return re.findall(r'data-card="([^"]+)"', felt)


def test_the_pit_opens_steps_through_and_upholds_a_dispute(client, mesa, hand):
    client.force_login(mesa.supervisor)
    page = client.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number])).content.decode()
    opening = reverse("tables:dispute_open", args=[mesa.table.pk, hand.number])
    assert opening in page
    response = client.post(opening, {"claim": "Marta says the bank's 4 was hers.", "player": "marta"})
    dispute = Dispute.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("tables:dispute", args=[dispute.pk])
    assert dispute.player.code == "marta" and dispute.opened_by == mesa.supervisor
    url = reverse("tables:dispute", args=[dispute.pk])
    for step in range(len(P01) + 1):
        html = client.get(url, {"step": step}).content.decode()
        dealt = [event(line)["card"] for line in P01[:step] if event(line).get("card")]
        assert sorted(felt_cards(html)) == sorted(dealt), step
    assert "pagar" not in client.get(url, {"step": 5}).content.decode()
    confirm = client.post(url, {"outcome": "void", "decision": "Misdeal: the 4 was marta's."})
    assert confirm.status_code == 200 and b'name="confirm"' in confirm.content
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.SETTLED
    done = client.post(url, {"outcome": "void", "decision": "Misdeal: the 4 was marta's.", "confirm": "yes"})
    assert done.status_code == 302
    dispute.refresh_from_db()
    assert (dispute.status, dispute.outcome, dispute.void.kind) == ("decided", "upheld", "void")
    assert Hand.objects.get(pk=hand.pk).status == Hand.Status.VOIDED
    again = client.post(url, {"outcome": "rejected", "decision": "no"})
    assert again.status_code == 400 and Dispute.objects.get().outcome == "upheld"
    assert "ya estaba decidida" in again.content.decode()


def test_the_auditor_reads_the_list_and_its_csv_and_posts_nothing(client, mesa, hand, staff):
    dispute = services.dispute_open(hand=hand, claim="wrong payout", opened_by=mesa.supervisor,
                                    player=mesa.players["luis"])
    services.dispute_decide(dispute=dispute, outcome="rejected", decision="paid right", decided_by=mesa.supervisor)
    services.incident_record(table=mesa.table, kind="misdeal", text="two cards at once", recorded_by=mesa.supervisor,
                             hand=hand)
    client.force_login(staff["auditor"])
    page = client.get(reverse("tables:disputes"), {"table": mesa.table.pk, "player": "luis"}).content.decode()
    assert "wrong payout" in page and "two cards at once" not in page  # the incident names no patron
    today = gaming_day(timezone.now()).isoformat()
    response = client.get(reverse("tables:disputes_csv"), {"table": mesa.table.pk, "day": today})
    assert response.status_code == 200 and response["Content-Disposition"].endswith('-semicolon.csv"')
    rows = list(csv.reader(io.StringIO(response.content.decode()), delimiter=";"))
    assert rows[0][0].startswith("# Campos separados por punto y coma")
    assert rows[4][0] == str(dispute.pk) and rows[4][5:9] == ["luis", "wrong payout", "decidida", "rechazada"]
    assert any(row[:2] == [str(Incident.objects.get().pk), "Mesa 1"] for row in rows)
    assert client.get(reverse("tables:disputes"), {"day": "nope"}).status_code == 400
    assert client.get(reverse("tables:dispute", args=[dispute.pk])).status_code == 200
    assert client.post(reverse("tables:dispute", args=[dispute.pk]), {"outcome": "upheld"}).status_code == 403
    assert client.post(reverse("tables:dispute_open", args=[mesa.table.pk, hand.number]),
                       {"claim": "x"}).status_code == 403
    client.force_login(staff["dealer"])
    assert client.get(reverse("tables:disputes")).status_code == 403


def test_the_pit_records_an_incident(client, mesa, hand):
    client.force_login(mesa.supervisor)
    url = reverse("tables:incident_new")
    refused = client.post(url, {"table": mesa.table.pk, "kind": "card_exposed", "number": 99, "text": "x"})
    assert refused.status_code == 200 and Incident.objects.count() == 0
    done = client.post(url, {"table": mesa.table.pk, "kind": "card_exposed", "number": hand.number,
                             "player": "rosa", "text": "The 2 of espadas flashed."})
    assert done.status_code == 302
    incident = Incident.objects.get()
    assert (incident.hand, incident.player.code, incident.recorded_by) == (hand, "rosa", mesa.supervisor)
