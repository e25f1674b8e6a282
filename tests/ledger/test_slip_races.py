"""One slip per intention under races, through the cashier's pages on PostgreSQL: each
thread is a browser of its own (a test client, its own database connection), all sending
at the same moment."""
import threading
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.urls import reverse

from cage.models import CashierSlip
from casino.roles import CASHIER, ensure_role_groups
from ledger.selectors import ledger_faults, player_balance
from tests.factories import open_drawer

pytestmark = pytest.mark.django_db(transaction=True)


def _client_of(user):
    client = Client()
    client.force_login(user)
    return client


def _draw(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302
    return response["Location"]


def _at_once(sends):
    """Run the callables in threads released together; their results (or exceptions) in order."""
    start = threading.Barrier(len(sends))
    results = [None] * len(sends)

    def run(n):
        try:
            start.wait()
            results[n] = sends[n]()
        except Exception as error:  # reported by the test
            results[n] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(n,)) for n in range(len(sends))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return results


def test_two_cashiers_cashing_out_one_player_at_once_book_one_slip_and_refuse_the_other(players, fund, cashier):
    fund(players["luis"], "100.00")
    colleague = User.objects.create_user("caja2")
    colleague.groups.add(ensure_role_groups()[CASHIER])
    open_drawer(colleague)  # no slip without an open drawer
    clients = [_client_of(cashier), _client_of(colleague)]
    urls = [_draw(client, "cage:cash_out") for client in clients]
    data = {"player": "luis", "amount": "100,00", "confirm": "yes"}
    responses = _at_once([lambda n=n: clients[n].post(urls[n], data) for n in range(2)])
    assert all(not isinstance(r, Exception) for r in responses), responses
    booked = [r for r in responses if r.status_code == 302]
    refused = [r for r in responses if r.status_code == 200]
    assert (len(booked), len(refused)) == (1, 1)
    slip = CashierSlip.objects.get(kind="cash_out")
    assert booked[0]["Location"] == reverse("cage:slip", args=[slip.number])
    assert "0,00 €" in " ".join(refused[0].context["form"].errors["amount"])  # the balance left, named
    assert player_balance(player=players["luis"]) == Decimal("0.00")
    assert ledger_faults() == []


def test_a_double_tap_on_one_form_books_one_slip_and_both_taps_show_it(players, cashier):
    client_a, client_b = _client_of(cashier), _client_of(cashier)  # one cashier: a double tap, a second tab
    url = _draw(client_a, "cage:buy_in")
    data = {"player": "luis", "amount": "50,00"}
    responses = _at_once([lambda: client_a.post(url, data), lambda: client_b.post(url, data),
                          lambda: client_a.post(url, data)])
    assert all(not isinstance(r, Exception) for r in responses), responses
    slip = CashierSlip.objects.get()
    assert [r.status_code for r in responses] == [302, 302, 302]
    assert {r["Location"] for r in responses} == {reverse("cage:slip", args=[slip.number])}
    assert player_balance(player=players["luis"]) == Decimal("50.00")
