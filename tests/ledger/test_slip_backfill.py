"""Migration ledger 0004 fills in each earlier slip's balance after it, as it was at issue,
from the ledger (the player's entries up to the slip's own), whatever came after."""
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import connection

from ledger import services
from ledger.models import CashierSlip
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db(transaction=True)


def migrate(*args):
    call_command("migrate", *args, verbosity=0, interactive=False)


@pytest.fixture
def restored():
    yield
    connection.close()
    migrate()
    connection.close()


def test_the_migration_fills_in_the_balance_at_issue(restored, players, fund, ana_bank, cashier):
    fund(players["luis"], "100.00")
    services.ledger_post_settlement(tenure=ana_bank, settlement=settlement_of(conformance_record("p03")),
                                    idempotency_key="h1", reference="hand 1")  # luis's chips move between slips
    services.cashier_cash_out(player=players["luis"], amount=Decimal("30.00"), posted_by=cashier)
    fund(players["marta"], "5.00")
    fund(players["luis"], "2.50")
    at_issue = dict(CashierSlip.objects.values_list("number", "balance_after"))
    assert (at_issue[1], at_issue[2]) == (Decimal("1000.00"), Decimal("100.00")) and len(set(at_issue.values())) == 5
    migrate("ledger", "0003")
    migrate("ledger")
    connection.close()
    assert dict(CashierSlip.objects.values_list("number", "balance_after")) == at_issue
