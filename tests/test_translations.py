"""Spanish by default at the table: every string of the sources is in a catalogue, and
every string of every catalogue is translated."""

import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

CATALOGUES = sorted(p for p in ROOT.glob("**/locale/es/LC_MESSAGES/django.po") if ".venv" not in p.parts)


def untranslated(path):
    """The msgids of ``path`` whose translation is empty or marked fuzzy (header excepted)."""
    missing = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        if "\nmsgid " not in "\n" + block or block.lstrip().startswith("#~"):
            continue
        msgid = "".join(re.findall(r'"(.*)"', block.split("msgid ", 1)[1].split("\nmsgstr", 1)[0]))
        msgstr = "".join(re.findall(r'"(.*)"', block.split("\nmsgstr", 1)[1]))
        if msgid and (not msgstr or "#, fuzzy" in block):
            missing.append(msgid)
    return missing


def test_there_are_catalogues_for_the_project_and_its_apps():
    assert {p.relative_to(ROOT).parts[0] for p in CATALOGUES} >= {"locale", "tables", "ledger", "reports", "api"}


@pytest.mark.parametrize("path", CATALOGUES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_string_has_its_spanish(path):
    assert untranslated(path) == []


def test_an_empty_or_fuzzy_translation_is_caught(tmp_path):
    po = tmp_path / "django.po"
    po.write_text('msgid ""\nmsgstr ""\n"Language: es\\n"\n\nmsgid "stake"\nmsgstr "apuesta"\n\n'
                  'msgid "bank"\nmsgstr ""\n\n#, fuzzy\nmsgid "seat"\nmsgstr "asiento"\n', encoding="utf-8")
    assert untranslated(po) == ["bank", "seat"]


def test_the_catalogues_hold_every_string_of_the_sources(tmp_path):
    """``makemessages`` over a copy of the sources (Python, Django and Jinja2 templates)
    adds nothing untranslated and leaves nothing obsolete: a string of a page that is in
    no catalogue would show in English at a Spanish table."""
    if shutil.which("xgettext") is None:
        pytest.fail("makemessages needs GNU gettext (apt-get install gettext)")
    tracked = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             check=True, capture_output=True).stdout.decode().split("\0")
    for name in tracked:
        if name.endswith((".py", ".html", ".txt", ".po")) and (ROOT / name).exists():
            (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(ROOT / name, tmp_path / name)
    subprocess.run([sys.executable, "manage.py", "makemessages", "--locale", "es", "--verbosity", "0"], cwd=tmp_path,
                   check=True, env=dict(os.environ, DJANGO_SETTINGS_MODULE="casino.settings.test"))
    made = sorted(tmp_path.glob("**/locale/es/LC_MESSAGES/django.po"))
    assert [p.relative_to(tmp_path) for p in made] == [p.relative_to(ROOT) for p in CATALOGUES]
    for path in made:
        assert untranslated(path) == [], f"{path.relative_to(tmp_path)}: run makemessages and translate these"
        obsolete = re.findall(r'^#~ msgid "(.*)"', path.read_text(encoding="utf-8"), re.M)
        assert obsolete == [], f"{path.relative_to(tmp_path)}: no longer in the sources (drop them)"
