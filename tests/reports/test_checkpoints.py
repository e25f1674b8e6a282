"""Incremental checks from a sealed checkpoint (``reports.checkpoints``): ``ledger_check``
checks what was added since its last run, ``--full`` everything, in chunks (the ledger,
each table) that may go to Celery workers. Planted: a fault after the checkpoint (found by
both), one before it (found by ``--full`` only: docs/security.md), the checkpoint's head
rewritten, a forged or removed checkpoint, a checkpoint changed. Honest books stay quiet
in both modes."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.utils import translation

from reports.checkpoints import (
    check_chunk,
    check_run,
    checkpoint_faults,
    chunk_specs,
    merge_results,
    run_chunks,
    table_ranges,
)
from reports.models import CheckPoint
from tables.models import Hand, HandBet, HandEvent
from tests.reports.test_one_check import as_the_owner, integrity_page


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


#: A fifth hand under luis's bank: ana 5+2 = 7 beats the bank's 6; marta 3+1 = 4 loses.
FIFTH = ["ana deal 5O", "marta deal 3C", "bank deal 2E", "ana bet 10", "ana card 2B", "ana stand", "marta bet 20",
         "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def ledger_check(*args):
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", *args, stdout=out, stderr=err)
        code = 0
    except SystemExit as exit_:
        code = exit_.code
    return code, out.getvalue(), err.getvalue()


def test_honest_books_stay_quiet_in_both_modes_and_the_incremental_check_reads_only_what_was_added(played):
    code, out, err = ledger_check()
    assert (code, err) == (0, "") and "OK (full" in out  # no checkpoint yet: the first run is full
    first = CheckPoint.objects.get()
    assert first.full and first.fault_count == 0 and first.hands == 4
    played.hand(["ana", "marta"], FIFTH)
    code, out, err = ledger_check()
    assert (code, err) == (0, "") and "OK (incremental" in out
    second = CheckPoint.objects.order_by("-pk").first()
    assert not second.full and second.hands == 1  # the new hand only
    assert second.entries == HandEvent.objects.filter(hand__number=5).count()
    assert second.previous == first.seal
    table_state = second.state["tables"][str(played.table.pk)]
    assert table_state["entry"] == HandEvent.objects.order_by("-pk").first().pk
    assert table_state["number"] == 5
    code, out, err = ledger_check()
    assert (code, err) == (0, "") and CheckPoint.objects.order_by("-pk").first().hands == 0  # nothing new
    code, out, err = ledger_check("--full")
    assert (code, err) == (0, "") and "OK (full" in out
    assert CheckPoint.objects.order_by("-pk").first().hands == 5
    assert checkpoint_faults() == ([], CheckPoint.objects.order_by("-pk").first())
    assert checkpoint_faults(whole=True) == ([], CheckPoint.objects.order_by("-pk").first())


def test_a_fault_after_the_checkpoint_is_found_by_the_incremental_check(played):
    check_run()
    hand = played.hand(["ana", "marta"], FIFTH)
    entry = HandEvent.objects.filter(hand=hand).order_by("sequence")[3]
    as_the_owner("UPDATE tables_handevent SET event = jsonb_set(event, '{amount}', '\"99\"') WHERE id = %s", [entry.pk])
    point = check_run()
    assert not point.full
    assert any(f"entry {entry.sequence} of hand #5 was changed" in fault for fault in point.faults)
    assert any("hand Mesa 1 #5" in fault for fault in point.faults)  # and its replay disagrees


def test_a_fault_before_the_checkpoint_is_seen_by_the_full_check_only(played):
    check_run()
    bet = HandBet.objects.filter(hand__number=1).order_by("pk").first()
    as_the_owner("UPDATE tables_handbet SET net = net + 5 WHERE id = %s", [bet.pk])
    assert check_run().fault_count == 0  # what --full is for (docs/security.md, "Incremental checks")
    full = check_run(full=True)
    assert any("hand Mesa 1 #1: a replay of its entries disagrees with its nets" in f for f in full.faults)


def test_the_checkpoints_head_rewritten_even_with_the_key_is_found(played):
    point = check_run()
    head = point.state["tables"][str(played.table.pk)]
    as_the_owner("UPDATE tables_handevent SET hash = %s WHERE id = %s", ["f" * 64, head["entry"]])
    faults = check_run().faults
    assert f"Mesa 1: entry #{head['entry']}, where the last check ended, was changed or removed since" in faults
    ledger = point.state["ledger"]
    as_the_owner("UPDATE ledger_transaction SET signature = %s WHERE id = %s", ["e" * 64, ledger["transaction"]])
    faults = check_run().faults
    assert f"transaction #{ledger['transaction']}, where the last check ended, was changed or removed since" in faults


def test_a_balance_changed_before_the_checkpoint_is_found_by_the_incremental_check(played):
    check_run()
    account = played.players["luis"].account
    as_the_owner("UPDATE ledger_account SET balance = balance + 1 WHERE id = %s", [account.pk])
    faults = check_run().faults
    assert any(f"account #{account.pk}" in fault and "balance column" in fault for fault in faults)


def test_a_forged_checkpoint_is_named_and_the_next_run_is_full(played):
    honest = check_run()
    bet = HandBet.objects.filter(hand__number=2).order_by("pk").first()
    as_the_owner("UPDATE tables_handbet SET stake = stake + 1 WHERE id = %s", [bet.pk])
    # The forger copies the last checkpoint (its state) with a seal he cannot make.
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO reports_checkpoint (\"full\", started_at, finished_at, seconds, chunks, workers, hands, "
                       "entries, transactions, state, fault_count, faults, previous, seal, key_id) "
                       "SELECT \"full\", started_at, finished_at, seconds, chunks, workers, hands, entries, "
                       "transactions, state, 0, '[]', seal, %s, key_id FROM reports_checkpoint WHERE id = %s "
                       "RETURNING id", ["a" * 64, honest.pk])
        forged = cursor.fetchone()[0]
    point = check_run()
    assert point.full  # a broken seal: everything again
    assert f"audit checkpoint #{forged} does not match its seal: it was forged or altered" in point.faults
    assert any("hand Mesa 1 #2: a replay of its entries disagrees with its stakes" in f for f in point.faults)


def test_a_checkpoint_removed_from_the_middle_breaks_the_chain_of_seals(played):
    first, second, third, _fourth = check_run(), check_run(), check_run(), check_run()
    as_the_owner("DELETE FROM reports_checkpoint WHERE id = %s", [second.pk])
    assert checkpoint_faults()[0] == []  # the latest holds: an incremental run may start there
    faults, latest = checkpoint_faults(whole=True)
    assert latest is None and faults == [f"audit checkpoint #{third.pk} does not follow the checkpoint before it: "
                                         "checkpoints were removed or added outside the check"]
    assert first.seal
    point = check_run(full=True)
    assert point.full and faults[0] in point.faults


def test_postgresql_refuses_a_checkpoint_changed_or_deleted(played):
    point = check_run()
    for sql in ("UPDATE reports_checkpoint SET fault_count = 0 WHERE id = %s",
                "DELETE FROM reports_checkpoint WHERE id = %s"):
        with pytest.raises(IntegrityError, match="never changed nor deleted"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(sql, [point.pk])


def test_the_full_check_in_celery_tasks_is_the_same_as_in_process(played):
    played.void(Hand.objects.get(number=1), "wrong shoe")
    specs = chunk_specs(None)
    assert [spec["part"] for spec in specs] == ["ledger", "table"]
    here, how = run_chunks(specs, fan_out=False)
    assert how == "process"
    there, how = run_chunks(specs, fan_out=True)  # eager in the tests: each chunk a task, results gathered
    assert how == "celery" and there == here
    assert here == merge_results([check_chunk(spec) for spec in specs])
    assert [result["chunks"] for result in here] == [1, 1]


def test_the_nightly_task_stores_a_checkpoint_the_integrity_page_shows(played, staff):
    from django_celery_beat.models import PeriodicTask

    from reports.tasks import integrity_check

    nightly = PeriodicTask.objects.get(name="reports: nightly incremental audit check")
    assert nightly.task == "reports.integrity_check" and nightly.enabled
    assert PeriodicTask.objects.get(name="reports: weekly full audit check").kwargs == '{"full": true}'
    page = integrity_page(played.table, staff["auditor"])
    assert "No run of ledger_check is stored yet." in page
    assert integrity_check() == 0
    bet = HandBet.objects.filter(hand__number=3).order_by("pk").first()
    as_the_owner("UPDATE tables_handbet SET net = net - 5 WHERE id = %s", [bet.pk])
    assert integrity_check(full=True) > 0
    page = integrity_page(played.table, staff["auditor"])
    assert "checkpoints" in page and "full" in page and "incremental" in page
    assert "hand Mesa 1 #3: a replay of its entries disagrees with its nets" in page


# ---------------------------------------------------------------------------------------
# A table checked in ranges of hands (AUDIT_CHUNK_HANDS), each range a chunk of its own


def whole_and_in_ranges(settings, run):
    """``run()``'s answer with the table whole, then in ranges of one hand."""
    settings.AUDIT_CHUNK_HANDS = 1_000_000
    whole = run()
    settings.AUDIT_CHUNK_HANDS = 1
    return whole, run()


def test_a_table_in_ranges_gives_what_it_gives_whole(played, settings):
    ranges = table_ranges(played.table.pk, None, 1)
    assert len(ranges) == 4 and [part["last"] for part in ranges] == [False, False, False, True]
    assert ranges[0]["hands"][0] == 0 and ranges[-1]["hands"][1] is None and ranges[-1]["entries"][1] is None
    for before, after in zip(ranges, ranges[1:], strict=False):  # each range starts where the one before ends
        assert after["hands"][0] == before["hands"][1] and after["entries"][0] == before["entries"][1]
    assert len(table_ranges(played.table.pk, None, 4)) == 1
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert (whole.chunks, split.chunks) == (2, 5)
    assert split.fault_count == whole.fault_count == 0
    assert (split.hands, split.entries, split.transactions) == (whole.hands, whole.entries, whole.transactions) \
        == (4, HandEvent.objects.count(), whole.transactions)
    assert split.state == whole.state  # the last range's point is the table's
    # Faults planted in several hands are the same, in the same order, whole or in ranges.
    bet = HandBet.objects.filter(hand__number=1).order_by("pk").first()
    as_the_owner("UPDATE tables_handbet SET net = net + 5 WHERE id = %s", [bet.pk])
    entry = HandEvent.objects.filter(hand__number=3).order_by("sequence")[2]
    as_the_owner("UPDATE tables_handevent SET event = event || '{\"forged\": 1}' WHERE id = %s", [entry.pk])
    as_the_owner("UPDATE tables_hand SET min_bet = min_bet + 1 WHERE number = 2", [])
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert split.faults == whole.faults and whole.fault_count >= 4
    assert any("hand Mesa 1 #1" in fault for fault in split.faults)
    assert f"Mesa 1: entry {entry.sequence} of hand #3 was changed after it was entered" in split.faults
    assert any(fault.startswith("Mesa 1: hand #2: its table, seats") for fault in split.faults)


def _second_range(table):
    """The entries of the second range of one hand each (hand 2's), by id."""
    entries = table_ranges(table.pk, None, 1)[1]["entries"]
    return list(HandEvent.objects.filter(table=table, pk__gt=entries[0], pk__lte=entries[1]).order_by("pk"))


@pytest.mark.parametrize("where", ["first", "middle", "last"])
@pytest.mark.parametrize("how", ["changed", "rehashed", "removed"])
def test_an_entry_forged_at_a_ranges_edge_or_inside_it_is_found(played, settings, where, how):
    entries = _second_range(played.table)
    assert len(entries) >= 3
    entry = {"first": entries[0], "middle": entries[len(entries) // 2], "last": entries[-1]}[where]
    after = HandEvent.objects.filter(table=played.table, pk__gt=entry.pk).order_by("pk").first()
    if how == "changed":
        as_the_owner("UPDATE tables_handevent SET entered_at = entered_at + interval '1 second' WHERE id = %s",
                     [entry.pk])
        expected = [f"Mesa 1: entry {entry.sequence} of hand #2 was changed after it was entered"]
    elif how == "rehashed":  # its hash made anew without the key: the next entry no longer follows it
        as_the_owner("UPDATE tables_handevent SET hash = %s WHERE id = %s", ["d" * 64, entry.pk])
        expected = [f"Mesa 1: entry {entry.sequence} of hand #2 was changed after it was entered",
                    f"Mesa 1: entry {after.sequence} of hand #{after.hand.number} does not follow the entry before it"]
    else:
        as_the_owner("DELETE FROM tables_handevent WHERE id = %s", [entry.pk])
        expected = [f"Mesa 1: entry {after.sequence} of hand #{after.hand.number} does not follow the entry before it"]
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert split.chunks == 5
    for fault in expected:
        assert fault in split.faults
    assert split.faults == whole.faults and split.state == whole.state


def test_an_incremental_run_in_ranges_reads_what_it_reads_whole(played, settings):
    point = check_run()
    played.hand(["ana", "marta"], FIFTH)
    played.hand(["ana", "marta"], FIFTH)
    played.void(Hand.objects.get(number=2), "wrong shoe")  # an earlier hand with an entry since
    specs = chunk_specs(point.state)
    assert len(specs) == 2  # two new hands, fewer than AUDIT_CHUNK_HANDS: the table whole

    def run():
        return run_chunks(chunk_specs(point.state), fan_out=False)[0]

    whole, split = whole_and_in_ranges(settings, run)
    assert [result["chunks"] for result in split] == [1, 2]
    assert split[1]["hands"] == whole[1]["hands"] == 3  # the two new and the voided one
    for result in (*whole, *split):
        del result["chunks"]
    assert split == whole
    assert check_run().fault_count == 0


def test_a_chunk_leaves_the_garbage_collector_as_it_found_it(played):
    import gc

    before = gc.get_threshold(), gc.get_freeze_count()
    assert check_chunk(chunk_specs(None)[1])["faults"] == []
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


@pytest.mark.parametrize("chunk", [1, 2, 500])
def test_the_replay_fed_by_the_chain_check_answers_as_its_own_read(played, monkeypatch, chunk):
    """``ReplayFeed`` (the hands replayed from the entries the chain check streams, not read
    again) gives ``hand_faults``'s faults, in its order, whatever part of the entries the
    stream covers (the whole table, a range inside it, from a point to the end): a void
    entered after later hands (a hand's entries apart), an open hand (skipped), a hand
    with no entry left, faults planted in three hands."""
    from tables import replay
    from tables.chain import GENESIS
    from tables.integrity import chain_scan
    from tables.replay import ReplayFeed, hand_faults

    table = played.table
    played.hand(["ana", "marta"], FIFTH)
    played.void(Hand.objects.get(number=2), "wrong shoe")  # hand 2's void entered after hand 5's entries
    played.play(played.open("ana", "marta"), "ana deal 5O")  # hand 6, open
    bet = HandBet.objects.filter(hand__number=1).order_by("pk").first()
    as_the_owner("UPDATE tables_handbet SET net = net + 5 WHERE id = %s", [bet.pk])
    entry = HandEvent.objects.filter(hand__number=3).order_by("sequence")[3]
    as_the_owner("UPDATE tables_handevent SET event = event || '{\"forged\": 1}' WHERE id = %s", [entry.pk])
    as_the_owner("DELETE FROM tables_handevent WHERE hand_id = %s", [Hand.objects.get(number=5).pk])
    monkeypatch.setattr(replay, "CHUNK", chunk)
    hands = Hand.objects.filter(table=table)
    expected = hand_faults(hands)
    assert {(fault["hand"], fault["code"]) for fault in expected} >= {
        (1, "hand_replay"), (3, "hand_unplayable"), (5, "hand_unplayable")}
    ids = list(HandEvent.objects.filter(table=table).order_by("pk").values_list("pk", flat=True))
    third, half = len(ids) // 3, len(ids) // 2
    for after, upto in [(0, None), (ids[third], ids[2 * third]), (ids[half], None), (ids[-1], None)]:
        head = HandEvent.objects.filter(pk=after).values_list("hash", flat=True).first() or GENESIS
        feed = ReplayFeed(hands)
        chain_scan(table, after_id=after, head=head, upto=upto, feed=feed)
        assert feed.faults() == expected, (after, upto)


def test_an_entry_of_a_hand_outside_its_range_is_signed_with_that_hands_number(played, settings):
    """A range's chain check is given the numbers of its own hands (``ReplayFeed.numbers``);
    the entries of other hands it reads have their hands' numbers read then. Hand 1's void
    entered after hand 4's entries: the first range (hand 1's) reads every entry up to
    it, hands 2 to 4's too. Honest, they hold; forged, the entry is named by its hand."""
    played.void(Hand.objects.get(number=1), "wrong shoe")
    void = HandEvent.objects.get(hand__number=1, kind="void")
    first = table_ranges(played.table.pk, None, 1)[0]
    assert first["entries"] == [0, void.pk] and HandEvent.objects.filter(hand__number=4, pk__lt=void.pk).exists()
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert (whole.fault_count, split.fault_count, split.chunks) == (0, 0, 5)
    assert split.entries == whole.entries == HandEvent.objects.count()
    entry = HandEvent.objects.filter(hand__number=3).order_by("sequence")[1]
    as_the_owner("UPDATE tables_handevent SET event = event || '{\"forged\": 1}' WHERE id IN (%s, %s)",
                 [void.pk, entry.pk])
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert f"Mesa 1: entry {void.sequence} of hand #1 was changed after it was entered" in whole.faults
    assert f"Mesa 1: entry {entry.sequence} of hand #3 was changed after it was entered" in whole.faults
    assert split.faults == whole.faults


def test_the_ledgers_chunk_is_sent_before_the_tables_ranges_are_read(played, settings, monkeypatch):
    """``check_run`` sends each chunk as its spec is made: a worker starts on the ledger's
    while the tables' ranges are still being read (eager in the tests: each chunk runs as
    it is sent)."""
    from reports import checkpoints

    settings.AUDIT_CHUNK_HANDS = 2
    order = []
    check, ranges = checkpoints.check_chunk, checkpoints.table_ranges
    monkeypatch.setattr(checkpoints, "check_chunk", lambda spec: order.append(spec["part"]) or check(spec))
    monkeypatch.setattr(checkpoints, "table_ranges",
                        lambda *args, **kwargs: order.append("ranges read") or ranges(*args, **kwargs))
    point = check_run(full=True, fan_out=True)
    assert (point.workers, point.fault_count, point.chunks) == ("celery", 0, 3)
    assert order == ["ledger", "ranges read", "table", "table"]


def test_the_openings_checked_from_the_replays_rows_are_those_the_integrity_page_reads(played, settings):
    """A range checks its own hands' signed openings from the rows the replay reads
    (``ReplayFeed``'s ``openings_after``), the open hand's too, which is not replayed: the
    same faults, in the same order, whole, in ranges and as ``opening_faults`` (the table's
    integrity page) reads them. Planted: the open hand's seats, a settled hand's limits, the
    voided hand's rules, one hand unsigned and one signed with a key this server does not
    hold. Honest, none."""
    from tables.integrity import opening_faults

    played.play(played.open("ana", "marta"), "ana deal 5O")  # hand 5, open
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert (whole.fault_count, split.fault_count, split.chunks) == (0, 0, 6)
    assert opening_faults(played.table) == []
    as_the_owner("UPDATE tables_hand SET seats = '[\"marta\", \"ana\"]' WHERE number = 5", [])
    as_the_owner("UPDATE tables_hand SET max_bet = max_bet + 100 WHERE number = 1", [])
    as_the_owner("UPDATE tables_hand SET rules = rules || '{\"commission_rate\": \"0.5\"}' WHERE number = 4", [])
    as_the_owner("UPDATE tables_hand SET signature = '' WHERE number = 2", [])
    as_the_owner("UPDATE tables_hand SET key_id = 'elsewhere' WHERE number = 3", [])
    expected = ["Mesa 1: " + fault for fault in opening_faults(played.table)]
    assert expected == [
        "Mesa 1: hand #1: its table, seats, bank, rules or limits are not those it was opened with (changed after "
        "the fact)",
        "Mesa 1: hand #2: its opening is not signed with the audit trail's key",
        "Mesa 1: hand #3: its opening is signed with a key this server does not hold",
        "Mesa 1: hand #4: its table, seats, bank, rules or limits are not those it was opened with (changed after "
        "the fact)",
        "Mesa 1: hand #5: its table, seats, bank, rules or limits are not those it was opened with (changed after "
        "the fact)"]
    whole, split = whole_and_in_ranges(settings, lambda: check_run(full=True))
    assert split.faults == whole.faults
    assert [fault for fault in whole.faults if fault in expected] == expected
