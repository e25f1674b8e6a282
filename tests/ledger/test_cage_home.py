"""The cage's home (``/cage/``): find a player by name, player id, document or card
number; the day's slips; players registered with their identity, every change attributed;
the auditor and the cage supervisor read the cage's pages (statements too), never book."""
import re
from datetime import date, timedelta
from decimal import Decimal

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from django.utils import timezone

from casino.roles import AUDITOR, CAGE_SUPERVISOR, ensure_role_groups
from patrons.models import Player, PlayerChange
from patrons.services import player_register
from tables.bank.tenures import tenure_open

pytestmark = pytest.mark.django_db

IDENTITY = {"name": "Luisa Pérez", "document_type": "dni", "document_number": "12345678z",
            "nationality": "ES", "date_of_birth": "1980-05-17", "card_number": "C-0042"}


def _user(name, role):
    user = User.objects.create_user(name)
    user.groups.add(ensure_role_groups()[role])
    return user


@pytest.fixture
def as_cashier(client, cashier):
    client.force_login(cashier)
    return client


def test_the_cage_home_is_the_cashiers_page_and_in_the_menu(as_cashier):
    response = as_cashier.get("/cage/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "<h1>Caja</h1>" in page and 'href="/cage/"' in page
    assert 'autofocus' in page  # the search is where the cashier types first


def test_other_roles_cannot_open_it_and_readers_cannot_book(client, other_user):
    client.force_login(other_user)
    assert client.get("/cage/").status_code == 403
    for role in (AUDITOR, CAGE_SUPERVISOR):
        client.force_login(_user(f"u-{role}", role))
        page = client.get("/cage/")
        assert page.status_code == 200 and "Dar de alta" not in page.content.decode()
        assert client.get(reverse("cage:buy_in")).status_code == 403
        assert client.post(reverse("cage:player_register"), {"code": "x", **IDENTITY}).status_code == 403


@pytest.mark.parametrize("q", ["luisa", "PÉREZ", "lp1", "12345678Z", "1234 5678 z", "c-0042"])
def test_a_player_is_found_by_name_id_document_or_card(as_cashier, cashier, q):
    player_register(code="lp1", by=cashier, **{**IDENTITY, "date_of_birth": date(1980, 5, 17)})
    player_register(code="otro", by=cashier, name="Otro")
    page = as_cashier.get("/cage/", {"q": q}).content.decode()
    found = re.findall(r'href="/cage/players/([^/]+)/record/"', page)
    assert found == ["lp1"]
    assert f'{reverse("cage:buy_in")}?player=lp1' in page  # act for him from the result


def test_the_days_slips_are_listed(as_cashier, players, fund):
    today = fund(players["marta"], "25.50")
    page = as_cashier.get("/cage/").content.decode()
    table = page.split('id="day-slips"', 1)[1]
    assert f"/cage/slips/{today.number}/" in table and "25,50 €" in table


def test_a_slip_of_another_day_is_not_among_the_days(cashier, players, fund):
    from cage.views import cashier as views

    fund(players["luis"], "10.00")
    assert views.days_slips().count() == 1
    assert views.days_slips(day=timezone.localdate() - timedelta(days=1)).count() == 0


def test_a_player_is_registered_with_his_identity_and_it_is_attributed(as_cashier, cashier):
    response = as_cashier.post(reverse("cage:player_register"), {"code": "luisa", **IDENTITY})
    assert response.status_code == 302 and response["Location"] == reverse("cage:player", args=["luisa"])
    player = Player.objects.get(code="luisa")
    assert (player.document_number, player.nationality.code, player.date_of_birth, player.card_number) == (
        "12345678Z", "ES", date(1980, 5, 17), "C-0042")
    assert player.has_identity
    change = PlayerChange.objects.get(player=player)
    assert (change.action, change.changed_by, change.changes["document_number"]) == (
        "registered", cashier, ["", "12345678Z"])
    page = as_cashier.get(response["Location"]).content.decode()
    assert "identidad registrada" in page and "caja" in page.split('id="history"')[1]


@pytest.mark.parametrize(("change", "field"), [
    ({"date_of_birth": (timezone.localdate() - timedelta(days=17 * 365)).isoformat()}, "date_of_birth"),
    ({"date_of_birth": (timezone.localdate() + timedelta(days=1)).isoformat()}, "date_of_birth"),
    ({"document_number": ""}, None),
    ({"nationality": "XX"}, "nationality"),
    ({"code": "bank"}, "code"),
    ({"name": ""}, "name"),
])
def test_a_bad_registration_names_the_field_and_writes_nothing(as_cashier, change, field):
    response = as_cashier.post(reverse("cage:player_register"), {"code": "luisa", **IDENTITY, **change})
    assert response.status_code == 200
    errors = response.context["form"].errors
    assert errors and (field is None or field in errors), errors
    assert not Player.objects.filter(code="luisa").exists() and not PlayerChange.objects.exists()


def test_a_document_or_card_on_file_for_another_player_is_refused(as_cashier, cashier):
    player_register(code="primero", by=cashier, **{**IDENTITY, "date_of_birth": date(1980, 5, 17)})
    for duplicate in ({"document_number": "12345678Z", "card_number": "C-9"}, {"document_number": "X1", "card_number": "C-0042"}):
        response = as_cashier.post(reverse("cage:player_register"), {"code": "otra", **IDENTITY, **duplicate})
        assert response.status_code == 200 and response.context["form"].errors, duplicate
    assert not Player.objects.filter(code="otra").exists()


def test_a_change_records_who_changed_what_and_when_and_keeps_the_old(as_cashier, cashier):
    player = player_register(code="luisa", by=cashier, name="Luisa")
    response = as_cashier.post(reverse("cage:player", args=["luisa"]), {**IDENTITY, "name": "Luisa Pérez"})
    assert response.status_code == 302
    change = PlayerChange.objects.filter(player=player, action="changed").get()
    assert change.changed_by == cashier and change.changes["name"] == ["Luisa", "Luisa Pérez"]
    assert change.changes["nationality"] == ["", "ES"]
    assert "code" not in change.changes  # the player id is fixed once registered
    again = as_cashier.post(reverse("cage:player", args=["luisa"]), {**IDENTITY, "name": "Luisa Pérez"})
    assert again.status_code == 302 and PlayerChange.objects.filter(player=player).count() == 2  # nothing new
    history = as_cashier.get(reverse("cage:player", args=["luisa"])).content.decode().split('id="history"')[1]
    assert "<del>Luisa</del> → Luisa Pérez" in history


def test_the_auditor_reads_every_statement_and_slip_on_the_web(client, players, table, fund, cashier):
    slip = fund(players["luis"], "100.00")
    fund(players["ana"], "100.00")
    tenure = tenure_open(table=table, holder=players["ana"], capital=Decimal("50.00"), began="draw",
                                  posted_by=cashier)
    auditor = _user("auditora", AUDITOR)
    client.force_login(auditor)
    for url in (reverse("cage:players") + "?q=lu", reverse("cage:player_statement", args=["luis"]),
                reverse("cage:tenures"), reverse("cage:tenure_statement", args=[tenure.pk]),
                reverse("cage:slip", args=[slip.number]), reverse("cage:player", args=["luis"])):
        assert client.get(url).status_code == 200, url
    assert client.post(reverse("cage:player", args=["luis"]), IDENTITY).status_code == 403
    nav = client.get("/").content.decode()
    assert 'href="/cage/players/"' in nav and 'href="/cage/tenures/"' in nav
