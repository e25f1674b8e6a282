"""``manage.py report``: the same computations without Celery, as JSON (or CSV, PDF)."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from reports.models import Report
from reports.shift import shift_report


def run(*args):
    out, err = StringIO(), StringIO()
    call_command("report", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_shift_as_json_is_the_shift_report(played):
    shift = played.close()
    out, err = run("shift", "--table", "Mesa 1", "--shift", str(shift.pk), "--format", "json")
    printed = json.loads(out)
    expected = shift_report(shift)
    assert printed["summary"] == expected["summary"] and printed["players"] == expected["players"]
    assert printed["kind"] == "shift" and printed["shift"]["id"] == shift.pk
    assert "0 exception(s)" in err
    assert not Report.objects.exists()  # printed, not stored


def test_banks_as_json(played):
    today = timezone.localdate().isoformat()
    out, _err = run("banks", "--table", "Mesa 1", "--from", today, "--to", today, "--format", "json")
    printed = json.loads(out)
    assert [t["holder"] for t in printed["tenures"]] == ["ana", "luis"]
    assert printed["period"]["from"] == today and printed["summary"]["net_takings"] == "10.00"


def test_store_csv_and_pdf(played, tmp_path):
    shift = played.close()
    out, err = run("shift", "--table", "Mesa 1", "--shift", str(shift.pk), "--format", "csv", "--store")
    assert "80,00" in out and "stored as report #" in err  # the language of the settings (es)
    assert Report.objects.get().version == 1
    target = tmp_path / "shift.pdf"
    run("shift", "--table", "Mesa 1", "--shift", str(shift.pk), "--format", "pdf", "--output", str(target))
    assert target.read_bytes().startswith(b"%PDF")


def test_strict_exits_1_on_exceptions(mesa):
    from tests.reports.conftest import P01

    mesa.hand(["luis", "marta"], P01)
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O")  # left open
    with pytest.raises(SystemExit) as caught:
        run("shift", "--table", "Mesa 1", "--shift", str(mesa.shift.pk), "--strict")
    assert caught.value.code == 1


@pytest.mark.parametrize("args, message", [
    (["shift", "--table", "Mesa 9", "--shift", "1"], "no table named"),
    (["shift", "--table", "Mesa 1", "--shift", "99999"], "no shift #99999"),
    (["banks", "--table", "Mesa 1", "--from", "2026-02-01", "--to", "2026-01-01"], "ends before it begins|termina antes de empezar"),
])
def test_refusals(mesa, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)
