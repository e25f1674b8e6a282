"""Stored reports are versions, never overwritten, and each shift's chain head is sealed
into the report stored at its close (issue 14, points 4 and 5): a rewrite of the table's
entries after that report, even by someone holding the chain's key, is caught."""

import base64
import re
import zlib
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.urls import reverse
from django.utils import translation

from reports.models import Report
from reports.services import report_request, report_run
from reports.shift import shift_report
from reports.texts import exception_text
from tables.chain import entry_hash
from tables.integrity import chain_faults
from tables.models import HandEvent
from tests.reports.test_keyed_chain import marta_bet, rewrite_chain


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def store(played, shift):
    out, err = StringIO(), StringIO()
    call_command("report", "shift", "--table", played.table.name, "--shift", str(shift.pk), "--format", "json",
                 "--store", stdout=out, stderr=err)
    return Report.objects.order_by("-version").first()


def pdf_text(content: bytes) -> bytes:
    """The PDF's page streams decoded (reportlab: ASCII85 then Flate; Helvetica text is
    written as literal strings in them)."""
    texts = []
    for stream in re.findall(rb"stream\r?\n(.*?)endstream", content, re.S):
        stream = stream.strip()
        try:
            texts.append(zlib.decompress(base64.a85decode(stream, adobe=True) if stream.endswith(b"~>") else stream))
        except (ValueError, zlib.error):
            texts.append(stream)
    return b"\n".join(texts)


def test_report_store_on_a_stored_report_adds_a_version_and_keeps_the_first(played):
    shift = played.close()
    first = store(played, shift)
    assert (first.version, first.at_close) == (1, True)
    request = report_request(kind="shift", table=played.table, shift=shift, requested_by=None)  # the Celery path
    second = report_run(request_id=request.pk).report
    third = store(played, shift)
    assert [(r.version, r.at_close) for r in Report.objects.order_by("version")] == [(1, True), (2, False), (3, False)]
    assert second.version == 2 and third.version == 3
    assert Report.objects.get(pk=first.pk).result == first.result


def test_a_report_computed_while_the_shift_was_open_is_not_the_one_at_close(played):
    open_version = store(played, played.shift)
    assert (open_version.version, open_version.at_close) == (1, False)
    closed = store(played, played.close())
    assert (closed.version, closed.at_close) == (2, True)


def test_the_database_refuses_to_overwrite_or_delete_a_stored_report(played):
    report = store(played, played.close())
    for sql in ("UPDATE reports_report SET result = '{}'::jsonb WHERE id = %s",
                "DELETE FROM reports_report WHERE id = %s"):
        with pytest.raises(DatabaseError, match="append-only"), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [report.pk])


def test_the_page_lists_the_versions_and_names_the_one_at_close(client, staff, played):
    shift = played.close()
    first, second = store(played, shift), store(played, shift)
    client.force_login(staff["auditor"])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("reports:report", args=[second.pk])).content.decode()
    assert reverse("reports:report", args=[first.pk]) in html  # the other version, linked
    assert html.count('class="at-close"') == 1 and "version 2</strong> (this one)" in html
    assert "Version 2, computed" in html
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    page_es = client.get(reverse("reports:report", args=[first.pk])).content.decode()
    assert "guardada al cierre del turno" in page_es and "Cabeza de la cadena sellada al cierre" in page_es


def test_the_chain_head_is_sealed_into_the_report_at_close_and_shown(client, staff, played):
    report = store(played, played.close())
    last = HandEvent.objects.filter(table=played.table).order_by("-id").first()
    assert report.result["seal"] == {"entry": last.pk, "hash": last.hash, "key_id": "1",
                                     "entries": HandEvent.objects.filter(table=played.table).count()}
    client.force_login(staff["auditor"])
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    html = client.get(reverse("reports:report", args=[report.pk])).content.decode()
    assert "Chain head sealed at the close" in html and last.hash in html
    pdf = client.get(reverse("reports:report_pdf", args=[report.pk])).content
    text = pdf_text(pdf)
    assert last.hash[:32].encode() in text and last.hash[32:].encode() in text
    assert b"chain head sealed at the close" in text


def test_a_rewrite_by_someone_holding_the_key_after_the_report_is_caught_by_the_seal(played):
    shift = played.close()
    sealed = store(played, shift)
    rewrite_chain(played.table, change=marta_bet(played.table), key_id="1",
                  hasher=lambda **content: entry_hash(key_id="1", **content))
    assert chain_faults(played.table) == []  # the key holder's chain is whole again
    later = store(played, shift)
    broken = [item for item in later.result["exceptions"] if item["code"] == "seal_broken"]
    assert [(item["shift"], item["version"], item["at_close"], item["entry"]) for item in broken] == [
        (shift.pk, 1, True, sealed.result["seal"]["entry"])]
    assert broken[0]["sealed"] == sealed.result["seal"]["hash"] != broken[0]["now"]
    assert exception_text(broken[0]).startswith(
        f"the chain head sealed in the report of shift #{shift.pk} (version 1) is no longer the chain's")
    assert Report.objects.get(pk=sealed.pk).result == sealed.result  # the evidence stays
    # a later shift's report at the same table sees it too
    played.table.refresh_from_db()
    from tables import services

    next_shift = services.shift_open(table=played.table, dealer=played.dealer, opened_by=played.supervisor)
    assert any(item["code"] == "seal_broken" for item in shift_report(next_shift)["exceptions"])
