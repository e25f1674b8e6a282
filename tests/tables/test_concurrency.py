"""Entries at one table from several connections at once (PostgreSQL row locks): an entry
that waited for the table's lock sees what the one before it committed, two screens
showing the same version record one entry, and the hash chain stays whole."""

import threading
import uuid

import pytest
from django.db import connection, connections, transaction

from tables import services
from tables.errors import StaleHand
from tables.integrity import chain_faults
from tables.models import HandEvent
from tests.hands import event

pytestmark = pytest.mark.django_db(transaction=True)

DEAL = ["luis deal 5O", "marta deal 3C", "bank deal 2E"]


def in_thread(target):
    """Run ``target`` on a thread of its own (its own connection); ``(thread, outcome)``,
    where outcome gets ``result`` or ``error``."""
    outcome = {}

    def run():
        try:
            outcome["result"] = target()
        except Exception as error:  # reported by the test
            outcome["error"] = error
        finally:
            connections.close_all()

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def waiting_for_a_lock():
    """Is some backend waiting for a lock this session holds? (``pg_locks``: not a
    snapshot, unlike the statistics views, so it can be polled inside a transaction; it
    lists the whole server's, other test databases' among them: only a backend this
    session blocks counts.)"""
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND pg_backend_pid() = ANY(pg_blocking_pids(pid))")
        return cursor.fetchone()[0] > 0


def test_an_entry_that_waited_for_the_lock_sees_the_entry_committed_before_it(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL)
    # An import's entries carry no expected version: the second must go on top of the first.
    thread, outcome = None, None

    def start_second():
        nonlocal thread, outcome
        thread, outcome = in_thread(lambda: services.hand_record_event(
            hand=hand, event=event("luis card 2B"), entered_by=mesa.dealer))

    with transaction.atomic():
        services.hand_record_event(hand=hand, event=event("luis bet 10"), entered_by=mesa.dealer, expected_version=3)
        start_second()
        for _ in range(500):
            if waiting_for_a_lock():
                break
            threading.Event().wait(0.01)
        else:
            raise AssertionError("the second entry never waited for the table's lock")
    thread.join(10)
    assert "error" not in outcome, outcome.get("error")
    assert outcome["result"].version == 5
    assert list(HandEvent.objects.filter(hand=hand).order_by("sequence").values_list("event", flat=True))[3:] == [
        event("luis bet 10"), event("luis card 2B")]
    assert chain_faults(mesa.table) == []


def test_two_screens_of_the_same_version_record_one_entry(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL)
    start = threading.Barrier(2)

    def screen(line):
        def enter():
            start.wait()
            return services.console_record_event(table_id=mesa.table.pk, number=hand.number, event=event(line),
                                                 dealer=mesa.dealer, expected_version=3, form_token=uuid.uuid4())
        return enter

    runs = [in_thread(screen("luis bet 10")), in_thread(screen("luis bet 20"))]
    for thread, _outcome in runs:
        thread.join(10)
    outcomes = [outcome for _thread, outcome in runs]
    assert sorted("error" in outcome for outcome in outcomes) == [False, True]
    refused = next(outcome["error"] for outcome in outcomes if "error" in outcome)
    assert isinstance(refused, StaleHand)
    hand.refresh_from_db()
    assert hand.version == 4 and HandEvent.objects.filter(hand=hand).count() == 4
    assert chain_faults(mesa.table) == []
