"""The cashier's pages, through the test client: cashier only, forms that name the field
at fault, a cash-out confirmed before it posts."""
import re
from decimal import Decimal

import pytest
from django.urls import reverse

from cage.models import CashierSlip
from cage.services.slips import cashier_cash_out
from ledger.selectors import player_balance
from tables.bank.tenures import tenure_open
from tables.settlement import ledger_post_settlement
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db

PAGES = ["cage:buy_in", "cage:cash_out", "cage:players", "cage:tenures"]


def draw(client, name):
    """Draw a slip form (``cage:buy_in``, ``cage:cash_out``): the address of its own."""
    response = client.get(reverse(name))
    assert response.status_code == 302
    return response["Location"]


@pytest.mark.parametrize("name", PAGES)
def test_anonymous_users_are_sent_to_log_in(client, name):
    response = client.get(reverse(name))
    assert response.status_code == 302 and reverse("login") in response["Location"]


@pytest.mark.parametrize("name", PAGES)
def test_other_roles_are_refused(client, other_user, name):
    client.force_login(other_user)
    assert client.get(reverse(name)).status_code == 403


def test_a_dealer_cannot_post_a_buy_in(client, other_user, players):
    client.force_login(other_user)
    response = client.post(reverse("cage:buy_in"), {"player": "luis", "amount": "50"})
    assert response.status_code == 403
    response = client.post(reverse("cage:buy_in_form", args=["t" * 32]), {"player": "luis", "amount": "50"})
    assert response.status_code == 403
    assert not CashierSlip.objects.exists()


def test_the_cashier_sees_the_ledger_pages_in_the_navigation(as_cashier):
    page = as_cashier.get(reverse("home")).content.decode()
    for name in PAGES:
        assert f'href="{reverse(name)}"' in page


def test_the_cashier_posts_a_buy_in_and_gets_the_slip(as_cashier, players):
    url = draw(as_cashier, "cage:buy_in")
    form = as_cashier.get(url)
    assert form.status_code == 200 and "no-store" in form["Cache-Control"]
    response = as_cashier.post(url, {"player": "luis", "amount": "150,50"}, follow=True)
    slip = CashierSlip.objects.get()
    assert response.redirect_chain[-1][0] == reverse("cage:slip", args=[slip.number])
    assert (slip.kind, slip.amount, slip.player.code) == ("buy_in", Decimal("150.50"), "luis")
    assert "150,50 €" in response.content.decode()
    assert player_balance(player=players["luis"]) == Decimal("150.50")


def test_the_same_buy_in_form_sent_twice_posts_once(as_cashier, players):
    url = draw(as_cashier, "cage:buy_in")
    as_cashier.post(url, {"player": "luis", "amount": "20"})
    again = as_cashier.post(url, {"player": "luis", "amount": "20"})
    assert again.status_code == 302 and again["Location"] == reverse("cage:slip", args=[1])
    # Back to the form (drawn again by the browser): the slip it booked, not an empty form.
    back = as_cashier.get(url, follow=True)
    assert back.redirect_chain[-1][0] == reverse("cage:slip", args=[1])
    assert "ya está asentado" in back.content.decode()
    # Even with other figures typed in (a resend of that form means that slip).
    as_cashier.post(url, {"player": "luis", "amount": "35"})
    assert CashierSlip.objects.count() == 1
    assert player_balance(player=players["luis"]) == Decimal("20.00")


def test_a_token_of_another_kind_or_cashier_or_forged_draws_a_new_form(as_cashier, client, players, django_user_model):
    buy_in_url = draw(as_cashier, "cage:buy_in")
    token = buy_in_url.rstrip("/").rsplit("/", 1)[1]
    for url in (reverse("cage:cash_out_form", args=[token]), reverse("cage:buy_in_form", args=["a" * 32]),
                buy_in_url.replace(token, token[:-1] + ("x" if token[-1] != "x" else "y"))):
        response = as_cashier.post(url, {"player": "luis", "amount": "10", "confirm": "yes"})
        assert response.status_code == 302 and response["Location"] in (reverse("cage:buy_in"),
                                                                         reverse("cage:cash_out"))
    colleague = django_user_model.objects.create_user("caja2")
    colleague.groups.add(*as_cashier.get(reverse("home")).wsgi_request.user.groups.all())
    client.force_login(colleague)
    assert client.post(buy_in_url, {"player": "luis", "amount": "10"})["Location"] == reverse("cage:buy_in")
    assert not CashierSlip.objects.exists()


def test_the_form_drawn_from_a_player_has_him_typed_in(as_cashier, players):
    url = draw_with = as_cashier.get(reverse("cage:buy_in"), {"player": "luis"})["Location"]
    assert "?player=luis" in draw_with
    assert 'value="luis"' in as_cashier.get(url).content.decode()


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"player": "nobody", "amount": "10"}, "player", "nobody"),
    ({"player": "luis", "amount": "0"}, "amount", ""),
    ({"player": "luis", "amount": "1,005"}, "amount", ""),
    ({"player": "", "amount": "10"}, "player", ""),
])
def test_a_bad_buy_in_names_the_field(as_cashier, players, data, field, message):
    response = as_cashier.post(draw(as_cashier, "cage:buy_in"), data)
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert list(errors) == [field] and message in " ".join(errors[field])
    assert not CashierSlip.objects.exists()


def test_a_cash_out_is_confirmed_before_it_posts(as_cashier, players, fund):
    fund(players["luis"], "100.00")
    url = draw(as_cashier, "cage:cash_out")
    step_one = as_cashier.post(url, {"player": "luis", "amount": "60"})
    page = step_one.content.decode()
    assert step_one.status_code == 200 and 'name="confirm" value="yes"' in page
    assert "100,00 €" in page and "40,00 €" in page  # balance now and after
    assert CashierSlip.objects.count() == 1  # nothing posted yet
    confirmed = as_cashier.post(url, {"player": "luis", "amount": "60", "confirm": "yes"})
    slip = CashierSlip.objects.get(kind="cash_out")
    assert confirmed["Location"] == reverse("cage:slip", args=[slip.number])
    assert player_balance(player=players["luis"]) == Decimal("40.00")


def test_a_cash_out_above_the_balance_is_refused_on_the_amount_with_the_balance(as_cashier, players, fund):
    fund(players["luis"], "25.00")
    response = as_cashier.post(draw(as_cashier, "cage:cash_out"), {"player": "luis", "amount": "30",
                                                                     "confirm": "yes"})
    assert response.status_code == 200
    assert "25,00 €" in " ".join(response.context["form"].errors["amount"])
    assert player_balance(player=players["luis"]) == Decimal("25.00")


def test_the_service_refusal_reaches_the_form_when_the_balance_changed_meanwhile(as_cashier, players, fund,
                                                                                 monkeypatch):
    fund(players["luis"], "25.00")
    monkeypatch.setattr("cage.forms.player_balance", lambda player: Decimal("1000.00"))  # a stale read
    response = as_cashier.post(draw(as_cashier, "cage:cash_out"), {"player": "luis", "amount": "30",
                                                                     "confirm": "yes"})
    assert response.status_code == 200
    assert "25,00 €" in " ".join(response.context["form"].errors["amount"])
    assert CashierSlip.objects.filter(kind="cash_out").count() == 0


def test_the_player_statement_shows_the_running_balance(as_cashier, players, fund, cashier):
    fund(players["luis"], "10.00")
    fund(players["luis"], "5.00")
    cashier_cash_out(player=players["luis"], amount=Decimal("2.50"), posted_by=cashier)
    page = as_cashier.get(reverse("cage:player_statement", args=["luis"])).content.decode()
    balances = re.findall(r'<td class="num">([\d.,]+)</td></tr>', page)
    assert balances == ["12,50", "15,00", "10,00"]
    assert "vale 000003" in page and "slip 000003" not in page  # the cause in Spanish
    search = as_cashier.get(reverse("cage:players"), {"q": "lu"}).content.decode()
    assert reverse("cage:player_statement", args=["luis"]) in search and "12,50" in search


def test_the_tenure_statement_shows_shares_and_distribution(as_cashier, players, table, fund, cashier):
    for code in ("ana", "luis"):
        fund(players[code], "100.00")
    tenure = tenure_open(table=table, holder=players["ana"], capital=Decimal("100.00"), began="draw",
                                  posted_by=cashier, shares=[(players["ana"], Decimal(75)),
                                                             (players["luis"], Decimal(25))])
    # p01: the bank wins 10.00 net.
    ledger_post_settlement(tenure=tenure, settlement=settlement_of(conformance_record("p01")),
                                    idempotency_key="h", reference="hand Mesa 1 #1")
    page = as_cashier.get(reverse("cage:tenure_statement", args=[tenure.pk])).content.decode()
    assert "110,00 €" in page and "hand Mesa 1 #1" in page
    shares = re.findall(r'<td class="num">([\d.,]+)</td>\s*<td class="num">([\d.,]+)</td><td class="num">([\d.,]+)'
                        r'</td>', page)
    assert shares == [("75,00", "75,00", "82,50"), ("25,00", "25,00", "27,50")]
    listing = as_cashier.get(reverse("cage:tenures")).content.decode()
    assert reverse("cage:tenure_statement", args=[tenure.pk]) in listing
