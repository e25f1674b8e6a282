"""What caused a transaction is stored as data and put into words in the reader's
language when shown (issue 17): no English reference text in a Spanish page."""

import pytest
from django.utils import translation

from ledger.references import cause_text, parse_reference, source_text, unparse

OLD_TEXTS = [
    ("slip 000021", "", {"kind": "slip", "number": 21}, "vale 000021"),
    ("hand Mesa 1 #17", "", {"kind": "hand", "table": "Mesa 1", "number": 17}, "mano n.º 17 de Mesa 1"),
    ("bank capital, tenure #3 at Mesa 2", "", {"kind": "bank_capital", "tenure": 3, "table": "Mesa 2"},
     "capital de la banca n.º 3 de Mesa 2"),
    ("bank sale, tenure #4", "", {"kind": "bank_price", "tenure": 4}, "precio de venta de la banca n.º 4"),
    ("bank sale, tenure #4 to luis", "", {"kind": "bank_sale", "tenure": 4, "buyer": "luis"},
     "venta de la banca n.º 4 a luis"),
    ("bank distribution, tenure #5 at Mesa 1", "", {"kind": "bank_distribution", "tenure": 5, "table": "Mesa 1"},
     "reparto de la banca n.º 5 de Mesa 1"),
]


@pytest.mark.parametrize(("reference", "memo", "cause", "spanish"), OLD_TEXTS)
def test_the_old_english_references_become_causes(reference, memo, cause, spanish):
    assert parse_reference(reference, memo) == (cause, memo)
    with translation.override("es"):
        assert cause_text(cause) == spanish


def test_a_voids_reversal_keeps_the_void_and_the_reason_alone():
    cause, memo = parse_reference("reversal of #12: hand Mesa 1 #17", "void of hand Mesa 1 #17: wrong shoe")
    assert cause == {"kind": "reversal", "of": 12, "original": {"kind": "hand", "table": "Mesa 1", "number": 17},
                     "void": {"table": "Mesa 1", "number": 17}}
    assert memo == "wrong shoe" and unparse(cause, memo) == "void of hand Mesa 1 #17: wrong shoe"
    with translation.override("es"):
        assert cause_text(cause) == "anulación de la mano n.º 17 de Mesa 1: reversión de n.º 12 (mano n.º 17 de Mesa 1)"


def test_an_unknown_text_is_left_alone():
    assert parse_reference("something else", "m") == ({}, "m")
    assert cause_text({}) is None and cause_text({"kind": "new"}) is None


def test_sources_in_words():
    with translation.override("es"):
        assert source_text("console") == "consola de mesa"
        assert source_text("system:import") == "sistema (importación)"
        assert source_text("elsewhere") == "elsewhere"
