"""The keyed audit trail (issue 14, point 4): the chain of entries is an HMAC under a key
from the environment, so whoever writes the database without the key cannot recompute
it after changing a bet. The attacks are run as the database's owner, triggers off."""

import json
import subprocess
import sys

import pytest
from django.db import connection
from django.utils import translation

from reports.shift import shift_report
from tables.chain import GENESIS, UNKEYED, entry_hash, unkeyed_hash
from tables.integrity import chain_faults
from tables.models import Hand, HandEvent
from tests.conftest import ROOT
from tests.reports.conftest import P01
from tests.test_settings import PRODUCTION


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def rewrite_chain(table, *, change, hasher, key_id):
    """As the database's owner (triggers off): change one entry (``change``: ``(entry id,
    event)``), then recompute every hash of the table from there with ``hasher`` and move
    the table's head, as issue 14 point 4 did with ``entry_hash``."""
    changed_id, new_event = change
    previous = GENESIS
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        for entry in HandEvent.objects.filter(table=table).select_related("hand").order_by("id"):
            event = new_event if entry.pk == changed_id else entry.event
            digest = hasher(previous=previous, table_id=table.pk, hand_number=entry.hand.number,
                            sequence=entry.sequence, kind=entry.kind, event=event, entered_by_id=entry.entered_by_id,
                            entered_at=entry.entered_at)
            cursor.execute("UPDATE tables_handevent SET event = %s, previous_hash = %s, hash = %s, key_id = %s"
                           " WHERE id = %s", [json.dumps(event), previous, digest, key_id, entry.pk])
            previous = digest
        cursor.execute("UPDATE tables_table SET last_event_hash = %s WHERE id = %s", [previous, table.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")


def marta_bet(table):
    entry = HandEvent.objects.get(table=table, hand__number=1, event__do="bet", event__seat="marta")
    return entry.pk, {**entry.event, "amount": "50"}


def test_entries_are_signed_with_the_key_and_its_id(mesa):
    mesa.hand(["luis", "marta"], P01)
    first = HandEvent.objects.filter(table=mesa.table).order_by("id").first()
    assert first.key_id == "1"
    content = dict(table_id=mesa.table.pk, hand_number=1, sequence=first.sequence, kind=first.kind,
                   event=first.event, entered_by_id=first.entered_by_id, entered_at=first.entered_at)
    assert first.hash == entry_hash(previous=GENESIS, key_id="1", **content)
    assert first.hash != unkeyed_hash(previous=GENESIS, **content)  # the plain SHA-256 of before


def test_a_bet_changed_and_the_chain_recomputed_with_the_plain_hash_is_found(mesa):
    mesa.hand(["luis", "marta"], P01)
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()
    assert chain_faults(mesa.table) == [] and shift_report(shift)["exceptions"] == []
    # The old attack: the plain SHA-256, keeping the key id (or claiming "unkeyed").
    rewrite_chain(mesa.table, change=marta_bet(mesa.table), hasher=unkeyed_hash, key_id="1")
    faults = chain_faults(mesa.table)
    assert len(faults) == HandEvent.objects.filter(table=mesa.table).count()  # every entry's HMAC fails
    assert "changed" in faults[0]
    codes = {item["code"] for item in shift_report(shift)["exceptions"]}
    assert "chain_changed" in codes


def test_the_chain_cannot_be_downgraded_to_the_unkeyed_hash(mesa):
    mesa.hand(["luis", "marta"], P01)
    shift = mesa.close()
    rewrite_chain(mesa.table, change=marta_bet(mesa.table), hasher=unkeyed_hash, key_id=UNKEYED)
    faults = chain_faults(mesa.table)
    assert faults and all("not signed with the audit trail's key" in fault for fault in faults)
    # (and the changed bet no longer replays to the stored bets)
    assert {item["code"] for item in shift_report(shift)["exceptions"]} == {"chain_unkeyed", "hand_replay"}


def test_unkeyed_entries_written_before_the_key_are_accepted_up_to_their_bound(mesa, settings):
    """Entries hashed before the chain was keyed pass up to CHAIN_UNKEYED_UNTIL, not after."""
    mesa.hand(["luis", "marta"], P01)
    entries = list(HandEvent.objects.filter(table=mesa.table).order_by("id"))
    rewrite_chain(mesa.table, change=(None, None), hasher=unkeyed_hash, key_id=UNKEYED)  # as before the key
    settings.CHAIN_UNKEYED_UNTIL = entries[-1].pk
    assert chain_faults(mesa.table) == []
    mesa.hand(["luis", "marta"], P01)  # the next entries are keyed and sign the last unkeyed hash
    assert HandEvent.objects.filter(table=mesa.table).order_by("-id").first().key_id == "1"
    assert chain_faults(mesa.table) == []
    settings.CHAIN_UNKEYED_UNTIL = entries[3].pk
    assert len(chain_faults(mesa.table)) == len(entries) - 4


def test_whoever_holds_the_key_can_recompute_it(mesa):
    """The attack of the tests above is sound: with the key it goes unseen by the chain
    (what catches it then is the head sealed into the shift's report)."""
    mesa.hand(["luis", "marta"], P01)
    rewrite_chain(mesa.table, change=marta_bet(mesa.table), key_id="1",
                  hasher=lambda **content: entry_hash(key_id="1", **content))
    assert chain_faults(mesa.table) == []


def test_an_old_key_still_checks_the_entries_it_signed(mesa, settings):
    mesa.hand(["luis", "marta"], P01)
    old_key = settings.CHAIN_KEY
    settings.CHAIN_KEY, settings.CHAIN_KEY_ID = "a-new-key-for-the-chain-0123456789", "2"
    assert {"signed with a key this server does not hold" in fault for fault in chain_faults(mesa.table)} == {True}
    settings.CHAIN_OLD_KEYS = {"1": old_key}
    mesa.hand(["luis", "marta"], P01)
    assert set(HandEvent.objects.filter(table=mesa.table).values_list("key_id", flat=True)) == {"1", "2"}
    assert chain_faults(mesa.table) == []
    assert Hand.objects.filter(table=mesa.table).count() == 2


@pytest.mark.parametrize("key", [None, "too-short"])
def test_production_refuses_to_start_without_a_key(key):
    env = {"PATH": "/usr/bin:/bin", **{k: v for k, v in PRODUCTION.items() if k != "CHAIN_KEY"}}
    if key:
        env["CHAIN_KEY"] = key
    done = subprocess.run([sys.executable, "manage.py", "check"], env=env, cwd=ROOT, capture_output=True,
                          text=True)
    assert done.returncode != 0
    assert "CHAIN_KEY" in done.stderr
