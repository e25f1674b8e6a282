"""The dispute desk (issue 34, item 4): a pit supervisor opens a dispute on a hand,
decides it once, upheld (the hand voided through the usual void) or rejected; incidents
are recorded at a table; PostgreSQL refuses a dispute's or an incident's delete and any
change but a dispute's one decision. The hand as it stood after any entry is its entries
up to that one replayed."""

import pytest
from django.db import IntegrityError, connection, transaction

from ledger.models import Transaction
from tables import services
from tables.errors import HandNotOpen, TableError
from tables.models import Dispute, Hand, HandEvent, Incident
from tables.selectors import hand_after_entry
from tests.hands import event

pytestmark = pytest.mark.django_db

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture
def settled_hand(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    assert hand.status == Hand.Status.SETTLED
    return hand


def test_a_dispute_is_opened_and_rejected(mesa, settled_hand):
    dispute = services.dispute_open(hand=settled_hand, claim="  Luis says his 2 was a 3.  ",
                                    opened_by=mesa.supervisor, player=mesa.players["luis"])
    assert (dispute.status, dispute.claim, dispute.player.code) == ("open", "Luis says his 2 was a 3.", "luis")
    done = services.dispute_decide(dispute=dispute, outcome="rejected", decision="The camera shows a 2.",
                                   decided_by=mesa.supervisor)
    done.refresh_from_db()
    assert (done.status, done.outcome, done.decided_by, done.void) == ("decided", "rejected", mesa.supervisor, None)
    assert done.decided_at is not None
    settled_hand.refresh_from_db()
    assert settled_hand.status == Hand.Status.SETTLED


def test_an_upheld_dispute_voids_the_hand_through_the_void(mesa, settled_hand):
    dispute = services.dispute_open(hand=settled_hand, claim="The bank's 4 was dealt to marta.",
                                    opened_by=mesa.supervisor)
    done = services.dispute_decide(dispute=dispute, outcome="upheld", decision="The camera agrees: misdeal.",
                                   decided_by=mesa.supervisor, void=True)
    settled_hand.refresh_from_db()
    assert settled_hand.status == Hand.Status.VOIDED
    assert settled_hand.void_reason == "The camera agrees: misdeal." and settled_hand.voided_by == mesa.supervisor
    void = HandEvent.objects.get(hand=settled_hand, kind="void")
    assert Dispute.objects.get(pk=done.pk).void == void
    assert Transaction.objects.filter(reverses=settled_hand.transaction).count() == 1


def test_a_dispute_is_decided_once(mesa, settled_hand):
    dispute = services.dispute_open(hand=settled_hand, claim="claimed", opened_by=mesa.supervisor)
    services.dispute_decide(dispute=dispute, outcome="rejected", decision="no", decided_by=mesa.supervisor)
    with pytest.raises(services.DisputeDecided):
        services.dispute_decide(dispute=dispute, outcome="upheld", decision="yes after all",
                                decided_by=mesa.supervisor, void=True)
    settled_hand.refresh_from_db()
    assert settled_hand.status == Hand.Status.SETTLED
    assert Dispute.objects.get(pk=dispute.pk).outcome == "rejected"


def test_refusals_write_nothing(mesa, settled_hand):
    with pytest.raises(TableError) as refused:
        services.dispute_open(hand=settled_hand, claim="  ", opened_by=mesa.supervisor)
    assert refused.value.field == "claim"
    dispute = services.dispute_open(hand=settled_hand, claim="claimed", opened_by=mesa.supervisor)
    for outcome, decision, void, field in [("maybe", "x", False, "outcome"), ("rejected", "x", True, "outcome"),
                                           ("upheld", " ", True, "decision")]:
        with pytest.raises(TableError) as refused:
            services.dispute_decide(dispute=dispute, outcome=outcome, decision=decision, decided_by=mesa.supervisor,
                                    void=void)
        assert refused.value.field == field
    services.hand_void(hand=settled_hand, reason="voided before", voided_by=mesa.supervisor)
    with pytest.raises(HandNotOpen):
        services.dispute_decide(dispute=dispute, outcome="upheld", decision="wrong", decided_by=mesa.supervisor,
                                void=True)
    assert Dispute.objects.get(pk=dispute.pk).status == "open"


def _refused(sql, params):
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(sql, params)


def test_the_database_refuses_a_delete_and_a_second_decision(mesa, settled_hand):
    dispute = services.dispute_open(hand=settled_hand, claim="claimed", opened_by=mesa.supervisor)
    _refused("DELETE FROM tables_dispute WHERE id = %s", [dispute.pk])
    _refused("UPDATE tables_dispute SET claim = 'other' WHERE id = %s", [dispute.pk])
    services.dispute_decide(dispute=dispute, outcome="rejected", decision="no", decided_by=mesa.supervisor)
    _refused("UPDATE tables_dispute SET outcome = 'upheld' WHERE id = %s", [dispute.pk])
    _refused("UPDATE tables_dispute SET status = 'open', outcome = '', decision = '', decided_by_id = NULL,"
             " decided_at = NULL WHERE id = %s", [dispute.pk])
    _refused("DELETE FROM tables_dispute WHERE id = %s", [dispute.pk])
    with pytest.raises(IntegrityError, match="never deleted"), transaction.atomic():
        Dispute.objects.filter(pk=dispute.pk).delete()
    assert Dispute.objects.get(pk=dispute.pk).decision == "no"


def test_incidents_are_recorded_and_never_changed(mesa, settled_hand):
    incident = services.incident_record(table=mesa.table, kind="card_exposed", text="The bank's card flashed.",
                                        recorded_by=mesa.supervisor, hand=settled_hand, player=mesa.players["luis"])
    assert Incident.objects.get(pk=incident.pk).get_kind_display()
    with pytest.raises(TableError) as refused:
        services.incident_record(table=mesa.table, kind="fight", text="x", recorded_by=mesa.supervisor)
    assert refused.value.field == "kind"
    _refused("UPDATE tables_incident SET text = 'nothing' WHERE id = %s", [incident.pk])
    _refused("DELETE FROM tables_incident WHERE id = %s", [incident.pk])
    assert Incident.objects.get(pk=incident.pk).text == "The bank's card flashed."


def _dealt(lines):
    """The cards the lines dealt, in order (initial cards, cards, exchanges)."""
    return [event(line)["card"] for line in lines if event(line).get("card")]


def test_the_hand_after_each_entry_shows_exactly_the_cards_dealt_so_far(mesa, settled_hand):
    for step in range(len(P01) + 1):
        at = hand_after_entry(settled_hand, step)
        on_felt = [card["card"] for place in at.state.describe()["seats"] for hand in place["hands"]
                   for card in hand["cards"]] + [card["card"] for card in at.state.describe()["bank"]["cards"]]
        assert sorted(on_felt) == sorted(_dealt(P01[:step])), step
        assert at.complete == (step == len(P01))
    assert hand_after_entry(settled_hand, 99).step == len(P01)


def test_an_undone_entry_leaves_the_felt_as_it_was(mesa):
    hand = mesa.play(mesa.open("luis"), "luis deal 5O", "bank deal 2E", "luis bet 10")
    hand = services.hand_undo(hand=hand, reason="wrong amount", entered_by=mesa.dealer,
                              expected_version=hand.version)
    at = hand_after_entry(hand, 4)
    assert at.state.describe()["seats"][0]["hands"][0]["stake"] == "0.00"
    assert hand_after_entry(hand, 3).state.describe()["seats"][0]["hands"][0]["stake"] == "10.00"
