"""Every role's limits on the pit pages, the hand history and the Django admin:
a dealer only at the table of his open shift, an auditor reads but never posts, a cashier
stays out of the pit, anonymous users log in first."""

from decimal import Decimal

import pytest
from django.urls import reverse

from patrons.models import Player
from tables import services
from tables.models import BankTenure, Hand, HandBet, HandEvent, Shift, Table
from tests.factories import TableFactory, UserFactory, deposit_bank
from tests.tables.test_pit_views import P01


@pytest.fixture
def mesa2(mesa, staff):
    """Mesa 2 with pepe's bank, a second dealer on shift and one settled hand."""
    table = TableFactory(name="Mesa 2")
    services.table_bank_draw(table=table, holder=mesa.players["pepe"], capital=Decimal("100.00"),
                             by=staff["supervisor"])
    deposit_bank(table)
    other = UserFactory(username="dealer2", roles=["dealer"])
    services.shift_open(table=table, dealer=other, opened_by=staff["supervisor"])
    hand = services.hand_open(table=table, seats=["luis", "marta"], opened_by=other)
    from tests.hands import event
    for line in P01:
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=other)
    return table


def pit_gets(mesa, hand):
    table = mesa.table.pk
    return [reverse("tables:pit"), reverse("tables:pit_table", args=[table]), reverse("tables:shift_open"),
            reverse("tables:shift_close", args=[mesa.table.shifts.get().pk]),
            reverse("tables:bank_draw", args=[table]), reverse("tables:bank_sell", args=[table]),
            reverse("tables:bank_transfer", args=[table]), reverse("tables:hand_void", args=[table, hand.number])]


def history_gets(table, number):
    return [reverse("tables:hand_list", args=[table.pk]), reverse("tables:hand_detail", args=[table.pk, number]),
            reverse("tables:hand_record", args=[table.pk, number])]


def posts(mesa, hand, staff):
    """Every change the pit pages make, confirmed, with valid data."""
    table = mesa.table.pk
    return [
        (reverse("tables:shift_open"), {"table": TableFactory(name="Mesa 5").pk, "dealer": staff["dealer"].pk}),
        (reverse("tables:shift_close", args=[mesa.table.shifts.get().pk]), {"confirm": "yes"}),
        (reverse("tables:bank_draw", args=[TableFactory(name="Mesa 6").pk]),
         {"holder": "rosa", "capital": "50", "confirm": "yes"}),
        (reverse("tables:bank_sell", args=[table]), {"buyer": "pepe", "price": "5", "capital": "50", "confirm": "yes"}),
        (reverse("tables:bank_transfer", args=[table]), {"holder": "pepe", "capital": "50", "confirm": "yes"}),
        (reverse("tables:hand_void", args=[table, hand.number]), {"reason": "por qué no", "confirm": "yes"}),
    ]


def nothing_changed(mesa, hand):
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    assert Shift.objects.filter(closed_at__isnull=False).count() == 0 and Shift.objects.count() == 1
    assert list(BankTenure.objects.values_list("holder__code", flat=True)) == ["ana"]


@pytest.fixture
def settled(mesa):
    return mesa.play(mesa.open("luis", "marta"), *P01)


# --------------------------------------------------------------------------- anonymous

def test_anonymous_users_are_sent_to_log_in(client, mesa, settled):
    for url in [*pit_gets(mesa, settled), *history_gets(mesa.table, 1), reverse("tables:hands")]:
        response = client.get(url)
        assert response.status_code == 302 and reverse("login") in response["Location"], url


# --------------------------------------------------------------------------- auditor

def test_an_auditor_reads_every_pit_page_and_every_table(client, mesa, mesa2, settled, staff):
    client.force_login(staff["auditor"])
    for url in [*pit_gets(mesa, settled), *history_gets(mesa.table, 1), *history_gets(mesa2, 1),
                reverse("tables:hand_integrity", args=[mesa.table.pk])]:
        assert client.get(url).status_code == 200, url


def test_an_auditor_posting_gets_403_and_changes_nothing(client, mesa, settled, staff):
    client.force_login(staff["auditor"])
    for url, data in posts(mesa, settled, staff):
        assert client.post(url, data).status_code == 403, url
    nothing_changed(mesa, settled)


def test_an_auditor_sees_no_button_that_would_change_anything(client, mesa, settled, staff):
    client.force_login(staff["auditor"])
    text = client.get(reverse("tables:pit_table", args=[mesa.table.pk])).content.decode()
    assert reverse("tables:bank_sell", args=[mesa.table.pk]) not in text
    detail = client.get(reverse("tables:hand_detail", args=[mesa.table.pk, 1])).content.decode()
    assert reverse("tables:hand_void", args=[mesa.table.pk, 1]) not in detail


# --------------------------------------------------------------------------- dealer

def test_a_dealer_reads_the_hands_of_his_table_only(client, mesa, mesa2, settled, staff):
    client.force_login(staff["dealer"])
    for url in history_gets(mesa.table, 1):
        assert client.get(url).status_code == 200, url
    for url in [*history_gets(mesa2, 1), reverse("tables:hand_integrity", args=[mesa2.pk])]:
        assert client.get(url).status_code == 403, url
    index = client.get(reverse("tables:hands"))
    assert index.status_code == 302 and index["Location"] == reverse("tables:hand_list", args=[mesa.table.pk])


def test_a_dealer_without_an_open_shift_reads_no_table(client, mesa, settled, staff):
    services.shift_close(shift=mesa.table.shifts.get(), closed_by=staff["supervisor"])
    client.force_login(staff["dealer"])
    for url in history_gets(mesa.table, 1):
        assert client.get(url).status_code == 403, url
    assert client.get(reverse("tables:hands")).status_code == 200


def test_a_dealer_has_no_pit_page(client, mesa, settled, staff):
    client.force_login(staff["dealer"])
    for url in pit_gets(mesa, settled):
        assert client.get(url).status_code == 403, url
    for url, data in posts(mesa, settled, staff):
        assert client.post(url, data).status_code == 403, url
    nothing_changed(mesa, settled)


# --------------------------------------------------------------------------- cashier

def test_a_cashier_has_no_pit_page_and_no_hand_history(client, mesa, settled, staff):
    client.force_login(staff["cashier"])
    for url in [*pit_gets(mesa, settled), *history_gets(mesa.table, 1), reverse("tables:hands")]:
        assert client.get(url).status_code == 403, url
    for url, data in posts(mesa, settled, staff):
        assert client.post(url, data).status_code == 403, url
    nothing_changed(mesa, settled)


def test_the_pit_supervisor_does_it_all(client, mesa, settled, staff):
    client.force_login(staff["supervisor"])
    void_url, void_data = posts(mesa, settled, staff)[-1]
    assert client.post(void_url, void_data).status_code == 302
    settled.refresh_from_db()
    assert settled.status == Hand.Status.VOIDED


# --------------------------------------------------------------------------- navigation

@pytest.mark.parametrize(("role", "seen", "unseen"), [
    ("supervisor", ["tables:pit", "tables:hands"], []),
    ("auditor", ["tables:pit", "tables:hands"], []),
    ("dealer", ["tables:hands"], ["tables:pit"]),
    ("cashier", [], ["tables:pit", "tables:hands"]),
])
def test_the_navigation_shows_each_role_its_pages(client, staff, role, seen, unseen):
    client.force_login(staff[role])
    text = client.get(reverse("home")).content.decode()
    for name in seen:
        assert f'href="{reverse(name)}"' in text
    for name in unseen:
        assert f'href="{reverse(name)}"' not in text


# --------------------------------------------------------------------------- Django admin

@pytest.fixture
def admin_user(db):
    user = UserFactory(username="admin1", roles=["admin"])
    user.is_staff = True
    user.save()
    return user


def test_the_admin_role_configures_players_and_tables(client, admin_user):
    client.force_login(admin_user)
    response = client.post(reverse("admin:patrons_player_add"), {"code": "nuria", "name": "Nuria Sáez"})
    assert response.status_code == 302 and Player.objects.filter(code="nuria", name="Nuria Sáez").exists()
    response = client.post(reverse("admin:tables_table_add"), {
        "name": "Mesa 7", "rules": '{"profile": "tradicional"}', "min_bet": "10", "max_bet": "10",
        "bank_capital": "200"})
    assert response.status_code == 302
    table = Table.objects.get(name="Mesa 7")
    assert (table.rules, table.max_bet) == ({"profile": "tradicional"}, Decimal("10.00"))


def test_the_admin_refuses_unknown_rules_naming_the_field(client, admin_user):
    client.force_login(admin_user)
    response = client.post(reverse("admin:tables_table_add"), {
        "name": "Mesa 8", "rules": '{"profile": "blackjack"}', "min_bet": "10", "max_bet": "10",
        "bank_capital": "0"})
    assert response.status_code == 200 and "rules" in response.context["adminform"].form.errors
    assert not Table.objects.filter(name="Mesa 8").exists()


def test_hands_entries_bets_and_shifts_are_read_only_in_the_admin(client, admin_user, mesa, settled):
    client.force_login(admin_user)
    event = settled.events.first()
    bet = HandBet.objects.filter(hand=settled).first()
    shift = mesa.table.shifts.get()
    for model, obj in (("hand", settled), ("handevent", event), ("handbet", bet), ("shift", shift)):
        assert client.get(reverse(f"admin:tables_{model}_changelist")).status_code == 200
        assert client.get(reverse(f"admin:tables_{model}_add")).status_code == 403
        change = reverse(f"admin:tables_{model}_change", args=[obj.pk])
        page = client.get(change)
        assert page.status_code == 200 and 'name="_save"' not in page.content.decode()
        assert client.post(change, {}).status_code == 403
        assert client.post(reverse(f"admin:tables_{model}_delete", args=[obj.pk]), {"post": "yes"}).status_code == 403
    assert HandEvent.objects.filter(pk=event.pk, event=event.event).exists()
    assert Hand.objects.filter(pk=settled.pk, status="settled").exists()


def test_other_roles_have_no_say_in_the_admin(client, staff, mesa):
    user = staff["cashier"]
    user.is_staff = True
    user.save()
    client.force_login(user)
    assert client.get(reverse("admin:tables_table_changelist")).status_code == 403
    assert client.post(reverse("admin:patrons_player_add"), {"code": "x"}).status_code == 403
    assert not Player.objects.filter(code="x").exists()
