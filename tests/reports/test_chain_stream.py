"""The chain check and the replay read their rows as tuples through server-side cursors
(issue 17, the reports over 1,000,000 hands): the chain check signs the event's stored
text (``tables.chain.EntryChecker``) and the entry's time read in UTC without its zone
(``tables.chain.AtUtc``, written ``isoformat()`` + ``"+00:00"``). Both must give the very
bytes ``entry_body`` signed, or a sound entry reads as changed; and tampering is still
found: a settlement, a posting, an entry changed or removed behind the triggers' back."""

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.utils import translation
from hypothesis import given, settings
from hypothesis import strategies as st

from reports.shift import shift_report
from tables import replay
from tables.chain import GENESIS, AtUtc, EntryChecker, entry_body, entry_fault, entry_hash
from tables.integrity import chain_faults
from tables.models import Hand, HandEvent
from tables.replay import hand_faults
from tests.reports.test_exceptions import behind_the_back

#: JSON values as events may hold them: integers past 64 bits (orjson would read them
#: as floats), non-ASCII text, nested objects and lists.
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2 ** 80), max_value=2 ** 80)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8)
TIMES = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2099, 12, 31),
                     timezones=st.just(UTC))


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def stored_row(*, content: dict, event, previous: str, key_id: str, stored: str | None = None, entry_id: int = 50):
    """An entry as the chain check reads it (``EntryChecker.check_rows``' columns): its event
    as jsonb's text (its own spacing, another order of keys), its time naive in UTC (``AtUtc``),
    its hash ``stored`` or the one ``entry_hash`` signs."""
    at = content["entered_at"]
    if stored is None:
        stored = entry_hash(previous=previous, key_id=key_id, event=event, **content)
    text = json.dumps(event, sort_keys=False, separators=(", ", ": "))
    return (content["hand_number"], content["sequence"], content["kind"], text, content["entered_by_id"],
            at.astimezone(UTC).replace(tzinfo=None), previous, stored, entry_id, key_id)


@settings(max_examples=300, deadline=None)
@given(event=st.dictionaries(st.text(max_size=6), JSON, max_size=4), kind=st.sampled_from(["event", "undo", "vóid"]),
       at=TIMES, by=st.none() | st.integers(min_value=1, max_value=10 ** 6),
       number=st.integers(min_value=1, max_value=10 ** 9), sequence=st.integers(min_value=0, max_value=500),
       key=st.text(min_size=1, max_size=200))
def test_the_streamed_check_signs_entry_body_byte_for_byte(event, kind, at, by, number, sequence, key):
    """``check_rows`` writes the body in its own f-string: an entry signed with
    ``entry_hash`` (``entry_body``) under any key (shorter and longer than SHA-256's block)
    checks clean, and the same entry with one byte of its event or its hash changed does
    not; each row's decoded event is given back."""
    from django.test import override_settings

    content = {"table_id": 7, "hand_number": number, "sequence": sequence, "kind": kind, "entered_by_id": by,
               "entered_at": at}
    with override_settings(CHAIN_OLD_KEYS={"7": key}):
        row = stored_row(content=content, event=event, previous=GENESIS, key_id="7")
        events = []
        assert EntryChecker().check_rows(table_id=7, rows=[row, row], previous=GENESIS, events=events) == (
            [((row), "link")], row[7])
        assert events == [event, event]
        changed = (*row[:3], json.dumps({**event, "x": 1}), *row[4:])
        forged = (*row[:7], "0" * 64, *row[8:])
        assert EntryChecker().check_rows(table_id=7, rows=[changed], previous=GENESIS) == ([(changed, "changed")],
                                                                                              row[7])
        assert EntryChecker().check_rows(table_id=7, rows=[forged], previous=GENESIS) == ([(forged, "changed")],
                                                                                             "0" * 64)


@settings(max_examples=300, deadline=None)
@given(event=st.dictionaries(st.text(max_size=6), JSON, max_size=4), kind=st.sampled_from(["event", "undo", "vóid"]),
       at=TIMES, by=st.none() | st.integers(min_value=1, max_value=10 ** 6),
       number=st.integers(min_value=1, max_value=10 ** 9), sequence=st.integers(min_value=0, max_value=500),
       table=st.integers(min_value=1, max_value=2 ** 62))
def test_entry_body_is_the_canonical_json_of_the_entry_as_it_was_defined(event, kind, at, by, number, sequence,
                                                                        table):
    """entry_body writes its text around the event's canonical JSON: the very text of the
    definition it replaced (json.dumps of the whole entry, sorted keys), or every entry
    signed before would read as changed."""
    defined = json.dumps({"table": table, "hand": number, "sequence": sequence, "kind": kind, "event": event,
                          "by": by, "at": at.isoformat()}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry_body(table_id=table, hand_number=number, sequence=sequence, kind=kind, event=event,
                      entered_by_id=by, entered_at=at) == defined


def test_the_checker_answers_as_entry_fault(settings):
    settings.CHAIN_OLD_KEYS = {"0": "an-old-key"}
    settings.CHAIN_UNKEYED_UNTIL = 10
    at = datetime(2026, 11, 24, 20, 0, 0, tzinfo=UTC)
    event = {"do": "bet", "seat": "luis", "amount": 2 ** 70}
    content = {"table_id": 1, "hand_number": 3, "sequence": 4, "kind": "event", "entered_by_id": None,
               "entered_at": at}
    for key_id, entry_id in (("1", 50), ("0", 50), ("", 5), ("", 50), ("9", 50)):
        stored = entry_hash(previous=GENESIS, key_id=key_id, event=event, **content) \
            if key_id in ("1", "0", "") else "f" * 64
        for candidate in (stored, "0" * 64):
            expected = entry_fault(entry_id=entry_id, key_id=key_id, stored=candidate, previous=GENESIS, event=event,
                                   **content)
            row = stored_row(content=content, event=event, previous=GENESIS, key_id=key_id, stored=candidate,
                             entry_id=entry_id)
            found, _head = EntryChecker().check_rows(table_id=1, rows=[row], previous=GENESIS)
            assert found == ([(row, expected)] if expected else [])


@pytest.mark.django_db
def test_the_time_read_in_utc_without_its_zone_writes_as_entry_body_signs_it():
    """``AtUtc`` read in another session time zone, then ``isoformat()`` + ``"+00:00"``:
    Python's ``isoformat()`` of the aware time (no fraction when the microseconds are 0)."""
    times = [datetime(2026, 11, 24, 20, 2, 7, 912709, tzinfo=UTC), datetime(2026, 11, 24, 20, 2, 7, tzinfo=UTC),
             datetime(2026, 3, 29, 1, 59, 59, 1, tzinfo=UTC), datetime(2001, 1, 1, tzinfo=UTC),
             datetime(2026, 6, 1, 12, 0, 0, 100000, tzinfo=UTC)]
    sql = AtUtc("at").template % {"expressions": "v.at"}
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL TIME ZONE 'Europe/Madrid'")  # the session's zone does not matter
        cursor.execute(f"SELECT {sql} FROM unnest(%s::timestamptz[]) AS v(at)", [times])
        read = [row[0] for row in cursor.fetchall()]
    assert all(at.tzinfo is None for at in read)
    assert [at.isoformat() + "+00:00" for at in read] == [at.isoformat() for at in times]


def test_the_streamed_check_agrees_with_the_entries_written(played):
    """Every entry of the played shift, read with ``AtUtc`` and as text, checks clean; the
    shift report's undo keeps its aware time."""
    shift = played.close()
    assert chain_faults(played.table) == []
    rows = (HandEvent.objects.filter(table=played.table).values_list("entered_at", AtUtc("entered_at")))
    assert all(at.isoformat() == naive.isoformat() + "+00:00" for at, naive in rows)
    report = shift_report(shift)
    assert report["exceptions"] == [] and report["chain"]["entries"] == 44
    (undo,) = report["undos"]
    assert undo["undone"] == {"do": "card", "seat": "ana", "card": "4O"} and undo["hand"] == 3
    entered = HandEvent.objects.get(table=played.table, hand__number=3, kind="undo").entered_at
    assert undo["entered_at"] == entered.isoformat()


def test_an_entry_holding_an_integer_past_64_bits_is_not_reported_changed(played):
    """An entry signed with a huge integer in its event (as ``entry_hash`` signs any JSON):
    the check reads it back exactly (``json``, not orjson, which makes it a float)."""
    shift = played.close()
    table = played.table
    last = HandEvent.objects.filter(table=table).order_by("-id").first()
    hand = last.hand
    event = {"do": "note", "amount": 2 ** 70, "negative": -(2 ** 65), "text": "año"}
    at = last.entered_at + timedelta(seconds=1)
    digest = entry_hash(previous=last.hash, table_id=table.pk, hand_number=hand.number,
                        sequence=last.sequence + 1, kind="note", event=event, entered_by_id=None, entered_at=at)
    behind_the_back("INSERT INTO tables_handevent (hand_id, table_id, sequence, kind, event, entered_at,"
                    " previous_hash, hash, key_id) VALUES (%s, %s, %s, 'note', %s::jsonb, %s, %s, %s, '1')",
                    [hand.pk, table.pk, last.sequence + 1, json.dumps(event), at, last.hash, digest])
    behind_the_back("UPDATE tables_table SET last_event_hash = %s WHERE id = %s", [digest, table.pk])
    assert chain_faults(table) == []
    report = shift_report(shift)
    assert not [item for item in report["exceptions"] if item["code"].startswith("chain")]
    assert report["chain"]["entries"] == 45


def replay_codes(report):
    return {(item["code"], item.get("hand"), item.get("what")) for item in report["exceptions"]
            if item["code"] in ("hand_replay", "hand_unplayable")}


def test_a_settlement_changed_behind_the_back_is_found_by_the_replay(played):
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    behind_the_back("UPDATE tables_hand SET settlement = jsonb_set(settlement, '{commission}', '\"9.99\"')"
                    " WHERE id = %s", [first.pk])
    assert ("hand_replay", 1, "commission") in replay_codes(shift_report(shift))


def test_a_posting_changed_behind_the_back_is_found_by_the_replay(played):
    shift = played.close()
    second = Hand.objects.get(table=played.table, number=2)
    behind_the_back("UPDATE ledger_transaction SET detail = jsonb_set(detail, '{commission}', '\"1.00\"')"
                    " WHERE id = %s", [second.transaction_id])
    assert replay_codes(shift_report(shift)) == {("hand_replay", 2, "posting")}


def test_an_entry_changed_is_found_by_the_chain_and_by_the_replay(played):
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    # luis's second card: the 2 of bastos made his 7 (won); an ace makes 6, which ties the
    # bank's 6 and loses
    behind_the_back("UPDATE tables_handevent SET event = %s WHERE hand_id = %s AND sequence = 5",
                    [json.dumps({"do": "card", "seat": "luis", "card": "1B"}), first.pk])
    report = shift_report(shift)
    assert {"code": "chain_changed", "hand": 1, "sequence": 5} in report["exceptions"]
    assert {what for _code, hand, what in replay_codes(report) if hand == 1} == {"results", "nets", "posting"}
    assert any("entry 5 of hand #1 was changed" in fault for fault in chain_faults(played.table))


def test_an_entry_removed_is_found_by_the_chain_and_by_the_replay(played):
    shift = played.close()
    second = Hand.objects.get(table=played.table, number=2)
    # luis's caballo, his 7½ (NATURAL's fifth event)
    behind_the_back("DELETE FROM tables_handevent WHERE hand_id = %s AND sequence = 5", [second.pk])
    report = shift_report(shift)
    assert {"code": "chain_link", "hand": 2, "sequence": 6} in report["exceptions"]
    assert any(hand == 2 for _code, hand, _what in replay_codes(report))


def test_the_replay_streams_in_chunks_with_the_same_faults(played, monkeypatch):
    shift = played.close()
    third = Hand.objects.get(table=played.table, number=3)
    behind_the_back("UPDATE tables_handbet SET net = net + 1 WHERE hand_id = %s", [third.pk])
    whole = hand_faults(Hand.objects.filter(shift=shift))
    monkeypatch.setattr(replay, "CHUNK", 1)
    assert hand_faults(Hand.objects.filter(shift=shift)) == whole
    assert {(fault["code"], fault["hand"], fault.get("what")) for fault in whole} == {("hand_replay", 3, "nets")}


@given(key=st.binary(min_size=1, max_size=80), key_id=st.sampled_from(["1", "2026-11", "clé"]),
       previous=st.text(alphabet="0123456789abcdef", min_size=64, max_size=64), body=st.text(max_size=300))
def test_each_entry_is_signed_with_hmac_sha256_as_defined(key, key_id, previous, body):
    """An entry's signature is HMAC-SHA256 of the key id, the previous hash and the body,
    as ``hmac.digest`` makes it."""
    import hmac

    from tables.chain import _digest

    expected = hmac.digest(key, f"{key_id}\n{previous}\n{body}".encode(), "sha256").hex()
    assert _digest(key_id=key_id, key=key, previous=previous, body=body) == expected
    assert _digest(key_id=key_id, key=key, previous=previous, body=body) == expected  # the cached key again


def test_the_chain_reads_its_times_in_utc_whatever_the_sessions_time_zone(played):
    """The table's chain check reads each entry's time as a timestamp (in binary) and writes
    its ``isoformat()`` in UTC as it was signed: a session in Madrid's time zone (an hour
    ahead) still reads every sound entry as sound, and a changed time as changed."""
    from tables.integrity import chain_scan

    played.close()
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Madrid'")
    try:
        assert chain_scan(played.table)[0] == []
        first = HandEvent.objects.filter(table=played.table).order_by("pk").first()
        behind_the_back("UPDATE tables_handevent SET entered_at = entered_at + interval '1 microsecond' "
                        "WHERE id = %s", [first.pk])
        assert f"entry {first.sequence} of hand #{first.hand.number} was changed after it was entered" in \
            chain_scan(played.table)[0]
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SET TIME ZONE 'UTC'")


def test_the_entries_of_a_hand_removed_behind_the_back_break_the_table_chain_at_the_next_hand(played):
    """A hand removed behind the back takes its entries out of the table's chain check (it
    reads each entry with its hand's number): the next hand's first entry does not follow,
    and that is the one fault."""
    played.close()
    assert chain_faults(played.table) == []
    second = Hand.objects.get(table=played.table, number=2)
    behind_the_back("DELETE FROM tables_hand WHERE id = %s", [second.pk])
    assert chain_faults(played.table) == ["entry 1 of hand #3 does not follow the entry before it"]
