"""``manage.py settle`` as hand-record.md specifies it, run as a real process."""

import json
import subprocess
import sys

import pytest

from tests.conftest import CONFORMANCE, ROOT
from tests.hands import record

VALID = record("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 11B", "bank stand")
INVALID = record("luis deal 8O", "bank deal 5E")


def settle(*args, stdin=None, env=None):
    done = subprocess.run([sys.executable, "manage.py", "settle", *args], cwd=ROOT, input=stdin,
                          capture_output=True, text=True, timeout=120, env=env)
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.json").write_text(json.dumps(VALID))
    (tmp_path / "b.json").write_text(json.dumps(INVALID))
    (tmp_path / "c.json").write_text("{not json")
    return tmp_path


def test_one_line_per_record_in_order_and_exit_two_when_any_is_invalid(files):
    status, lines, _ = settle(str(files / "a.json"), str(files / "b.json"), str(files / "c.json"))
    assert status == 2
    assert [line["file"] for line in lines] == [str(files / n) for n in ("a.json", "b.json", "c.json")]
    assert lines[0]["players"] == {"luis": "20.00"} and lines[0]["next_bank"] == "luis"
    assert lines[1]["error"]["event"] == 1 and "8O" in lines[1]["error"]["message"]
    assert lines[2]["error"]["event"] == 0 and "JSON" in lines[2]["error"]["message"]


def test_valid_records_exit_zero(files):
    status, lines, _ = settle(str(files / "a.json"))
    assert status == 0 and lines[0]["bank"] == {"player": "ana", "points": "5", "net": "-20.00"}


def test_dash_reads_one_record_from_standard_input():
    status, lines, _ = settle("-", stdin=json.dumps(VALID))
    assert status == 0 and lines == [{**lines[0], "file": "-"}] and lines[0]["commission"] == "0.00"


def test_json_lines_and_directories(files, tmp_path):
    lines_file = tmp_path / "many.jsonl"
    lines_file.write_text(json.dumps(VALID) + "\n\n" + json.dumps(INVALID) + "\n")
    status, lines, _ = settle(str(lines_file))
    assert status == 2 and [(x["file"], x["line"]) for x in lines] == [(str(lines_file), 1), (str(lines_file), 3)]
    status, lines, _ = settle(str(CONFORMANCE))
    assert status == 2 and len(lines) == len([p for p in CONFORMANCE.glob("*.json")
                                              if not p.name.endswith(".expected.json")]) * 2


def test_it_needs_no_database_server(files):
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "casino.settings.production",
           "DJANGO_SECRET_KEY": "x", "DJANGO_ALLOWED_HOSTS": "x", "CELERY_BROKER_URL": "redis://127.0.0.1:1/0",
           "DATABASE_URL": "postgres://nobody@127.0.0.1:1/nothing", "CACHE_URL": "redis://127.0.0.1:1/0",
           "CHAIN_KEY": "x" * 32}
    status, lines, err = settle(str(files / "a.json"), env=env)
    assert status == 0, err
    assert lines[0]["players"] == {"luis": "20.00"}


def test_given_only_paths_it_starts_without_django(files):
    """``manage.py settle PATH...`` runs the engine's command without Django's start-up:
    settings that cannot even be imported do not stop it."""
    env = {"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE": "no.such.settings"}
    status, lines, err = settle(str(files / "a.json"), str(files / "b.json"), env=env)
    assert status == 2 and err == "CommandError: 1 invalid record(s)\n"
    assert lines[0]["players"] == {"luis": "20.00"} and lines[1]["error"]["event"] == 1


def test_with_an_option_it_goes_through_django_and_prints_the_same(files, tmp_path):
    lines_file = tmp_path / "many.jsonl"
    lines_file.write_text("\n".join(json.dumps(VALID) for _ in range(3)) + "\n" + json.dumps(INVALID) + "\n")
    direct = subprocess.run([sys.executable, "manage.py", "settle", str(lines_file)], cwd=ROOT,
                            capture_output=True, timeout=120)
    through_django = subprocess.run([sys.executable, "manage.py", "settle", "--verbosity", "1", str(lines_file)],
                                    cwd=ROOT, capture_output=True, timeout=120)
    assert direct.stdout == through_django.stdout and len(direct.stdout.splitlines()) == 4
    assert direct.returncode == through_django.returncode == 2
    assert direct.stderr == through_django.stderr == b"CommandError: 1 invalid record(s)\n"
