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

from reports.checkpoints import check_chunk, check_run, checkpoint_faults, chunk_specs, run_chunks
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
    assert here == [check_chunk(spec) for spec in specs]


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
