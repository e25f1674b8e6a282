"""Shared fixtures. The suite runs on PostgreSQL (casino.settings.test)."""
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
CONFORMANCE = SHARED / "conformance"


@pytest.fixture
def conformance_cases():
    """(name, record, expected) for every public conformance case."""
    cases = []
    for path in sorted(CONFORMANCE.glob("*.json")):
        if path.name.endswith(".expected.json"):
            continue
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        cases.append((path.stem, json.loads(path.read_text()), expected))
    return cases
