"""Spanish by default at the table: every string of every catalogue is translated."""

import re

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
