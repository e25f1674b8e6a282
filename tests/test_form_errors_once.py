"""A form's refusal above its fields is said once: ``form.as_p`` (templates/django/forms/p.html)
prints the form's non-field errors itself, so no template prints them again beside it."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_template_prints_a_forms_non_field_errors_beside_its_as_p():
    twice = []
    for path in ROOT.glob("*/templates/**/*.html"):
        if ".venv" in path.parts:
            continue
        text = path.read_text()
        for form in set(re.findall(r"\{\{\s*(\w+)\.as_p\s*\}\}", text)):
            if re.search(r"\{\{\s*" + re.escape(form) + r"\.non_field_errors\s*\}\}", text):
                twice.append(f"{path.relative_to(ROOT)}: {form}")
    assert twice == []
