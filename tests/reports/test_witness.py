"""Seals kept outside the database (issue 29, point 5): every stored report goes to the
seals' witness, an append-only file (and a log line) the database's users cannot rewrite;
``ledger_check`` and the integrity page compare the stored reports with it. A seal replaced
by the chain's key holder together with the chain, a report inserted or deleted by SQL, and
an edited witness file are faults; honest books stay quiet."""

import json
import logging

import pytest
from django.db import connection
from django.db.utils import IntegrityError
from django.utils import translation

from reports.audit import seal_faults
from reports.models import Report, WitnessIdentity
from reports.witness import read_witness, witness_faults, witness_identity, witness_path
from tables.chain import entry_hash
from tables.integrity import chain_faults
from tables.models import HandEvent
from tests.reports.test_keyed_chain import marta_bet, rewrite_chain
from tests.reports.test_one_check import as_the_owner, integrity_page, ledger_check, sealed  # noqa: F401
from tests.reports.test_versions_and_seal import store


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def lines_of(report):
    lines, faults = read_witness()
    assert faults == []
    return lines[report.pk]


def test_a_stored_report_is_witnessed_in_a_file_and_a_log_line(sealed, seal_witness, caplog):  # noqa: F811
    played, shift, report = sealed
    line = lines_of(report)
    assert (line["key"], line["version"], line["at_close"], line["table"], line["shift"]) == (
        f"shift:{shift.pk}", 1, True, played.table.pk, shift.pk)
    assert line["seal"] == report.result["seal"] and line["prev"] == ""
    path = witness_path(witness_identity())
    assert path.parent == seal_witness and path.name == f"seals-{WitnessIdentity.objects.get().uuid}.jsonl"
    with caplog.at_level(logging.INFO, logger="reports.witness"):
        later = store(played, shift)
    assert any(f'"report":{later.pk}' in record.getMessage() for record in caplog.records)
    assert lines_of(later)["prev"] != "" and witness_faults() == []


def test_honest_books_stay_quiet_with_the_witness(sealed, staff):  # noqa: F811
    played, _shift, _report = sealed
    code, _out, err = ledger_check()
    assert (code, err) == (0, "")
    assert "No fault" in integrity_page(played.table, staff["auditor"])


def test_the_key_holders_rewrite_of_the_chain_and_the_seal_is_caught_by_the_witness(sealed, staff):  # noqa: F811
    """The owner with the chain's key rewrites a bet, recomputes the chain and writes the new
    head into the stored report's seal: the chain and the seal agree again; the witness
    does not."""
    played, shift, report = sealed
    rewrite_chain(played.table, change=marta_bet(played.table), key_id="1",
                  hasher=lambda **content: entry_hash(key_id="1", **content))
    head = HandEvent.objects.get(pk=report.result["seal"]["entry"]).hash
    as_the_owner("UPDATE reports_report SET result = jsonb_set(result, '{seal,hash}', to_jsonb(%s::text)) "
                 "WHERE id = %s", [head, report.pk])
    assert chain_faults(played.table) == [] and seal_faults(played.table) == []  # what the database says
    assert [(fault["code"], fault["report"]) for fault in witness_faults()] == [("seal_replaced", report.pk)]
    code, _out, err = ledger_check()
    assert code == 1
    assert (f"stored report #{report.pk} (shift:{shift.pk}, version 1) is not what the seals' witness holds "
            "(line 1): its seal or its figures were rewritten after it was stored") in err
    assert f"stored report #{report.pk} (shift:{shift.pk}, version 1) is not what" in integrity_page(
        played.table, staff["auditor"])


def test_a_report_inserted_by_sql_has_no_witness(sealed):  # noqa: F811
    played, shift, report = sealed
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO reports_report (kind, key, version, at_close, table_id, shift_id, result, "
                       "exceptions, computed_at, seconds) VALUES ('shift', %s, 9, false, %s, %s, %s, 0, now(), 0) "
                       "RETURNING id", [report.key, played.table.pk, shift.pk, json.dumps(report.result)])
        forged = cursor.fetchone()[0]
    assert [(fault["code"], fault["report"]) for fault in witness_faults()] == [("report_unwitnessed", forged)]
    code, _out, err = ledger_check()
    assert code == 1 and f"stored report #{forged} ({report.key}, version 9) has no line at the seals' witness" in err


def test_a_report_deleted_by_the_owner_is_missed_by_the_witness(sealed):  # noqa: F811
    _played, _shift, report = sealed
    as_the_owner("DELETE FROM reports_report WHERE id = %s", [report.pk])
    assert not Report.objects.filter(pk=report.pk).exists()
    assert [(fault["code"], fault["report"]) for fault in witness_faults()] == [("report_gone", report.pk)]


def test_an_edited_witness_file_is_a_fault(sealed):  # noqa: F811
    played, shift, report = sealed
    store(played, shift)
    path = witness_path(witness_identity())
    first, second = path.read_text(encoding="utf-8").splitlines()
    path.write_text(first.replace('"version":1', '"version":1 ') + "\n" + second + "\n", encoding="utf-8")
    assert {fault["code"] for fault in witness_faults()} == {"witness_broken"}
    code, _out, err = ledger_check()
    assert code == 1 and "line 2 of the seals' witness does not follow the line before it: the file was edited" in err


@pytest.mark.django_db(transaction=True)
def test_the_witness_identity_is_written_once(sealed):  # noqa: F811
    with pytest.raises(IntegrityError, match="witness identity refused"):
        with connection.cursor() as cursor:
            cursor.execute("UPDATE reports_witnessidentity SET uuid = gen_random_uuid()")
    assert witness_identity() is not None


def test_a_report_is_not_stored_when_its_witness_cannot_be_written(played, settings, tmp_path):
    shift = played.close()
    blocked = tmp_path / "not-a-directory"
    blocked.write_text("")
    settings.SEAL_WITNESS_DIR = blocked
    with pytest.raises(OSError):
        store(played, shift)
    assert not Report.objects.filter(shift=shift).exists()
