"""Slips as a cage prints them (numbered, the balance after the slip as it was at issue,
signature lines, an 80 mm receipt and an A4 page) and voided by a cage supervisor, never
by the cashier who issued them, as a reversal."""
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from cage.models import SlipVoid
from cage.services.slips import cashier_buy_in, cashier_cash_out, cashier_slip_void
from casino.roles import CAGE_SUPERVISOR, CASHIER, ensure_role_groups
from ledger.errors import AlreadyReversed, InsufficientChips, VoidRefused
from ledger.models import Account, Transaction
from ledger.selectors import account_balance, ledger_faults, player_balance
from tests.conftest import ROOT
from tests.factories import open_drawer

pytestmark = pytest.mark.django_db


def _user(name, *roles):
    user = User.objects.create_user(name)
    groups = ensure_role_groups()
    user.groups.add(*(groups[role] for role in roles))
    return user


@pytest.fixture
def supervisor(db):
    return _user("supercaja", CAGE_SUPERVISOR)


def test_the_slip_shows_the_balance_at_issue_not_now(client, cashier, players, fund):
    first = fund(players["luis"], "100.00")
    fund(players["luis"], "50.00")
    client.force_login(cashier)
    page = client.get(reverse("cage:slip", args=[first.number])).content.decode()
    assert "Saldo tras el vale" in page and "100,00 €" in page and "150,00 €" not in page
    assert f"Vale n.º {first.number:06d}" in page
    assert "Firma del jugador" in page and "Firma del cajero" in page


def test_the_receipt_and_the_a4_page_have_their_own_paper(client, cashier, players, fund):
    slip = fund(players["luis"], "10.00")
    client.force_login(cashier)
    receipt = client.get(reverse("cage:slip", args=[slip.number])).content.decode()
    a4 = client.get(reverse("cage:slip", args=[slip.number]), {"layout": "a4"}).content.decode()
    # Each layout links its own paper (the pages' styles are static files: no inline style).
    assert "pages/cage-slip-receipt.css" in receipt and 'class="slip receipt"' in receipt
    assert "pages/cage-slip-a4.css" in a4 and 'class="slip a4"' in a4
    assert "pages/cage-slip.css" in receipt and "pages/cage-slip.css" in a4
    styles = ROOT / "casino" / "static" / "pages"
    assert "size: 80mm" in (styles / "cage-slip-receipt.css").read_text()
    assert "size: A4" in (styles / "cage-slip-a4.css").read_text()
    printed = (styles / "cage-slip.css").read_text()
    assert "@media print" in printed and "header.top" in printed.split("@media print", 1)[1].split("}", 1)[0]


def test_a_cage_supervisor_voids_a_slip_as_a_reversal(client, cashier, supervisor, players, fund):
    slip = fund(players["luis"], "80.00")
    cage_before = Account.objects.get(kind="cage").balance
    client.force_login(supervisor)
    form = client.get(reverse("cage:slip_void", args=[slip.number]))
    assert form.status_code == 200 and "no-store" in form["Cache-Control"]
    response = client.post(reverse("cage:slip_void", args=[slip.number]), {"reason": "importe tecleado mal"})
    assert response.status_code == 302
    void = SlipVoid.objects.get(slip=slip)
    assert (void.voided_by, void.reason) == (supervisor, "importe tecleado mal")
    assert void.reversal.reverses_id == slip.transaction_id and void.reversal.kind == "reversal"
    assert player_balance(player=players["luis"]) == Decimal("0.00")
    assert Account.objects.get(kind="cage").balance == cage_before + Decimal("80.00")
    page = client.get(reverse("cage:slip", args=[slip.number])).content.decode()
    assert "ANULADO" in page and f"asiento n.º {void.reversal_id}" in page and "importe tecleado mal" in page
    assert "80,00 €" in page  # the slip itself is unchanged
    assert ledger_faults() == []


def test_the_cashier_cannot_void_and_the_issuer_cannot_void_his_own(client, cashier, players, fund):
    slip = fund(players["luis"], "20.00")
    client.force_login(cashier)
    assert client.get(reverse("cage:slip_void", args=[slip.number])).status_code == 403
    assert "Anular el vale" not in client.get(reverse("cage:slip", args=[slip.number])).content.decode()
    with pytest.raises(VoidRefused):
        cashier_slip_void(slip=slip, reason="x", voided_by=cashier)
    both = _user("ambos", CASHIER, CAGE_SUPERVISOR)
    open_drawer(both)  # no slip without an open drawer
    own = cashier_buy_in(player=players["luis"], amount=Decimal("5.00"), posted_by=both)
    client.force_login(both)
    assert "Anular el vale" not in client.get(reverse("cage:slip", args=[own.number])).content.decode()
    response = client.post(reverse("cage:slip_void", args=[own.number]), {"reason": "mío"})
    assert response.status_code == 200 and "otro supervisor" in response.content.decode()
    assert not SlipVoid.objects.exists() and not Transaction.objects.filter(kind="reversal").exists()


def test_a_void_needs_a_reason_and_happens_once(client, supervisor, players, fund):
    slip = fund(players["luis"], "20.00")
    client.force_login(supervisor)
    response = client.post(reverse("cage:slip_void", args=[slip.number]), {"reason": "   "})
    assert response.status_code == 200 and response.context["form"].errors["reason"]
    cashier_slip_void(slip=slip, reason="duplicado", voided_by=supervisor)
    with pytest.raises(AlreadyReversed):
        cashier_slip_void(slip=slip, reason="otra vez", voided_by=supervisor)
    again = client.post(reverse("cage:slip_void", args=[slip.number]), {"reason": "otra vez"})
    assert again.status_code == 302 and SlipVoid.objects.count() == 1


def test_a_buy_in_whose_chips_are_gone_is_not_voided(supervisor, cashier, players, fund):
    slip = fund(players["luis"], "50.00")
    cashier_cash_out(player=players["luis"], amount=Decimal("30.00"), posted_by=cashier)
    with pytest.raises(InsufficientChips, match="20"):
        cashier_slip_void(slip=slip, reason="tarde", voided_by=supervisor)
    assert player_balance(player=players["luis"]) == Decimal("20.00")


def test_a_cash_out_void_gives_the_chips_back(supervisor, cashier, players, fund):
    fund(players["luis"], "50.00")
    out = cashier_cash_out(player=players["luis"], amount=Decimal("30.00"), posted_by=cashier)
    void = cashier_slip_void(slip=out, reason="no se pagó", voided_by=supervisor)
    assert player_balance(player=players["luis"]) == Decimal("50.00")
    assert account_balance(account=Account.objects.get(kind="cage")) == Decimal("-1050.00")  # with the drawer's float, 1 000.00
    assert void.reversal.posted_by == supervisor and ledger_faults() == []
