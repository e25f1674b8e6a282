"""Every posting's cause is data, drawn in the reader's language when shown (issue 17
"English in Spanish pages because references are stored as English text"): the causes
the services store, their words in Spanish and English, the old English references
turned into causes (migration ``0012_more_transaction_causes``), and a cashier's void and
a chip transfer on a Spanish statement."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from cage.services.slips import cashier_slip_void
from ledger.chips import chips_opening, chips_transfer
from ledger.models import Transaction
from ledger.references import cause_text, parse_reference

pytestmark = pytest.mark.django_db

#: (the English reference the services wrote, its cause, the Spanish words, the English words)
CAUSES = [
    ("slip 000021", {"kind": "slip", "number": 21}, "vale 000021", "slip 000021"),
    ("opening chips luis", {"kind": "opening", "player": "luis"}, "fichas de apertura de luis",
     "opening chips of luis"),
    ("luis → marta", {"kind": "transfer", "giver": "luis", "receiver": "marta"},
     "traspaso de fichas de luis a marta", "chip transfer from luis to marta"),
    ("table buy-in Mesa 1 #3", {"kind": "table_buy_in", "table": "Mesa 1", "number": 3},
     "compra en mesa n.º 3 en Mesa 1", "table buy-in #3 at Mesa 1"),
    ("tips, session #7", {"kind": "tips", "shift": 7}, "propinas de la sesión n.º 7", "tips of session #7"),
    ("tronc distribution of 2 tips count(s)", {"kind": "tronc", "counts": 2},
     "reparto del tronco de 2 recuentos de propinas", "tronc distribution of 2 tips counts"),
    ("bank withdrawal 1, tenure #4 at Mesa 1", {"kind": "bank_withdrawal", "number": 1, "tenure": 4, "table": "Mesa 1"},
     "retirada 1 de la banca n.º 4 de Mesa 1", "bank withdrawal 1, tenure #4 at Mesa 1"),
    ("bank rebuilt 2, tenure #4 at Mesa 1", {"kind": "bank_rebuild", "number": 2, "tenure": 4, "table": "Mesa 1"},
     "reposición 2 de la banca n.º 4 de Mesa 1", "bank rebuilt 2, tenure #4 at Mesa 1"),
]


@pytest.mark.parametrize(("reference", "cause", "spanish", "english"), CAUSES)
def test_each_cause_is_drawn_in_the_reader_s_language_and_old_references_parse_to_it(reference, cause, spanish,
                                                                                     english):
    assert parse_reference(reference) == (cause, "")
    with translation.override("es"):
        assert cause_text(cause) == spanish
    with translation.override("en"):
        assert cause_text(cause) == english


def test_a_slip_s_void_is_a_reversal_of_the_slip_in_words(cashier, players, fund):
    from django.contrib.auth.models import User

    from casino.roles import CAGE_SUPERVISOR, ensure_role_groups

    supervisor = User.objects.create_user("supercaja")
    supervisor.groups.add(ensure_role_groups()[CAGE_SUPERVISOR])
    slip = fund(players["luis"], "20.00")
    void = cashier_slip_void(slip=slip, reason="duplicado", voided_by=supervisor)
    reversal = void.reversal
    assert reversal.cause == {"kind": "reversal", "of": slip.transaction_id,
                              "original": {"kind": "slip", "number": slip.number}}
    assert parse_reference(reversal.reference, reverses=slip.transaction_id)[0] == reversal.cause
    with translation.override("es"):
        assert reversal.reference_words == f"reversión de n.º {slip.transaction_id}: vale {slip.number:06d}"
    chips_opening(player=players["marta"], amount=Decimal("100.00"), posted_by=cashier)
    for txn in Transaction.objects.order_by("id"):  # a buy-in, its void, an opening: each with its cause
        assert txn.cause, f"{txn.kind} {txn.reference!r} has no cause"
        with translation.override("es"):
            assert not any(english in txn.reference_words for english in ("slip", "void", "opening", "reversal"))


def test_a_chip_transfer_and_a_void_read_in_spanish_on_the_statement(client, cashier, players, fund):
    luis = players["luis"]
    fund(luis, "50.00")
    chips_transfer(giver=luis, receiver=players["marta"], amount=Decimal("20.00"), reason="una deuda", posted_by=cashier)
    txn = Transaction.objects.get(kind="transfer")
    assert txn.cause == {"kind": "transfer", "giver": "luis", "receiver": "marta"}
    client.force_login(cashier)
    page = client.get(reverse("cage:player_statement", args=["luis"]), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "traspaso de fichas de luis a marta — una deuda" in page and "luis → marta" not in page
    assert "vale 0000" in page and "slip 0000" not in page
