"""Every POST takes an Idempotency-Key: a repeat replays the first answer, another body
with the same key is a conflict, a missing key is refused."""

import threading
from decimal import Decimal

import pytest
from django.db import connection

from api.models import IdempotencyKey
from cage.models import CashierSlip
from ledger.selectors import player_balance
from tables import services
from tables.models import HandEvent
from tests.api.conftest import Api, error_of
from tests.factories import PlayerFactory, TableFactory, UserFactory, open_drawer
from tests.hands import event


def test_a_post_without_a_key_is_refused_and_does_nothing(api, mesa):
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}, key=None)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("Idempotency-Key", "idempotency_key_required")
    assert not mesa.table.hands.exists()


def test_a_key_that_is_not_visible_ascii_is_refused(api, mesa):
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}, key="with space")
    assert response.status_code == 400 and error_of(response)["rule"] == "idempotency_key_invalid"
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}, key="k" * 256)
    assert response.status_code == 400 and error_of(response)["rule"] == "idempotency_key_invalid"


def test_a_repeat_replays_the_first_answer_without_doing_it_again(api, mesa):
    first = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}, key="open-1")
    hand_id = first.json()["hand"]["id"]
    body = {"event": event("luis deal 5O")}
    one = api["dealer"].post(f"/api/hands/{hand_id}/events/", body, key="ev-1")
    two = api["dealer"].post(f"/api/hands/{hand_id}/events/", body, key="ev-1")
    assert one.status_code == two.status_code == 201
    assert one.json() == two.json()
    assert two["Idempotent-Replayed"] == "true" and not one.has_header("Idempotent-Replayed")
    assert HandEvent.objects.filter(hand_id=hand_id).count() == 1
    again = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}, key="open-1")
    assert again.status_code == 201 and again.json() == first.json()
    assert mesa.table.hands.count() == 1


def test_the_same_key_with_another_body_is_a_conflict(api, mesa):
    hand_id = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}).json()["hand"]["id"]
    api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis deal 5O")}, key="k1")
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("bank deal 2E")}, key="k1")
    assert response.status_code == 409
    error = error_of(response)
    assert (error["field"], error["rule"]) == ("Idempotency-Key", "idempotency_key_reused")
    other_path = api["dealer"].post(f"/api/hands/{hand_id}/undo/", {"event": event("luis deal 5O")}, key="k1")
    assert other_path.status_code == 409
    assert HandEvent.objects.filter(hand_id=hand_id).count() == 1


def test_a_refusal_is_kept_and_replayed(api, mesa):
    hand_id = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]}).json()["hand"]["id"]
    body = {"event": event("bank deal 2E")}
    api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis deal 5O")})
    refused = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis deal 6O")}, key="bad")
    assert refused.status_code == 400
    replay = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis deal 6O")}, key="bad")
    assert replay.status_code == 400 and replay.json() == refused.json() and replay["Idempotent-Replayed"] == "true"
    assert api["dealer"].post(f"/api/hands/{hand_id}/events/", body).status_code == 201


def test_a_role_refusal_is_not_kept(api, staff):
    table = TableFactory(name="Mesa 9")
    PlayerFactory(code="ana")
    dealer = Api(staff["dealer"])
    refused = dealer.post(f"/api/tables/{table.pk}/hands/", {"seats": ["luis"]}, key="retry-me")
    assert refused.status_code == 403
    assert not IdempotencyKey.objects.filter(key="retry-me").exists()


def test_keys_belong_to_their_user(api, mesa):
    PlayerFactory(code="nuevo")
    one = api["cashier"].post("/api/cashier/buy-in/", {"player": "nuevo", "amount": "10.00"}, key="same")
    other_cashier = Api(open_drawer(UserFactory(username="caja2", roles=["cashier"])).cashier)
    two = other_cashier.post("/api/cashier/buy-in/", {"player": "nuevo", "amount": "10.00"}, key="same")
    assert one.status_code == two.status_code == 201
    assert one.json()["number"] != two.json()["number"]
    assert player_balance(player=PlayerFactory(code="nuevo")) == Decimal("20.00")


def test_a_repeated_buy_in_posts_once(api, mesa):
    body = {"player": "luis", "amount": "25.50"}
    one = api["cashier"].post("/api/cashier/buy-in/", body, key="slip-a")
    two = api["cashier"].post("/api/cashier/buy-in/", body, key="slip-a")
    assert one.json() == two.json() and one.json()["amount"] == "25.50"
    assert CashierSlip.objects.filter(player=mesa.players["luis"]).count() == 2  # the fixture's and this one
    assert player_balance(player=mesa.players["luis"]) == Decimal("525.50")


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_requests_with_one_key_do_it_once():
    cashier = UserFactory(username="caja-race", roles=["cashier"])
    open_drawer(cashier)
    player = PlayerFactory(code="rapido")
    barrier = threading.Barrier(2)
    responses = []

    def post():
        try:
            barrier.wait()
            responses.append(Api(cashier).post("/api/cashier/buy-in/", {"player": "rapido", "amount": "40.00"},
                                               key="race-1"))
        finally:
            connection.close()

    threads = [threading.Thread(target=post) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [r.status_code for r in responses] == [201, 201]
    assert responses[0].json() == responses[1].json()
    assert CashierSlip.objects.filter(player=player).count() == 1
    assert player_balance(player=player) == Decimal("40.00")
    assert IdempotencyKey.objects.filter(key="race-1").count() == 1


def test_a_shift_opened_and_closed_through_the_api(api, mesa):
    services.shift_close(shift=mesa.table.shifts.get(), closed_by=mesa.supervisor)
    body = {"table": mesa.table.pk, "dealer": "dealer1"}
    assert api["dealer"].post("/api/shifts/", body).status_code == 403
    opened = api["supervisor"].post("/api/shifts/", body)
    assert opened.status_code == 201 and opened.json()["is_open"] and opened.json()["dealer"] == "dealer1"
    twice = api["supervisor"].post("/api/shifts/", body)
    assert twice.status_code == 409 and error_of(twice)["rule"] == "no_shift"
    not_a_dealer = api["supervisor"].post("/api/shifts/", {"table": mesa.table.pk, "dealer": "caja1"})
    assert not_a_dealer.status_code == 400 and error_of(not_a_dealer)["field"] == "dealer"
    closed = api["supervisor"].post(f"/api/shifts/{opened.json()['id']}/close/")
    assert closed.status_code == 200 and closed.json()["closed_by"] == "pit1"
    assert api["supervisor"].get("/api/shifts/", open="true").json()["count"] == 0
    assert api["supervisor"].get("/api/shifts/", dealer="dealer1").json()["count"] == 2


def test_old_keys_are_forgotten_by_the_command(api, mesa):
    from datetime import timedelta
    from io import StringIO

    from django.core.management import call_command
    from django.utils import timezone

    api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "1"}, key="old")
    api["cashier"].post("/api/cashier/buy-in/", {"player": "luis", "amount": "1"}, key="recent")
    IdempotencyKey.objects.filter(key="old").update(created_at=timezone.now() - timedelta(days=31))
    out = StringIO()
    call_command("forget_idempotency_keys", stdout=out)
    assert out.getvalue().startswith("1 idempotency key")
    assert list(IdempotencyKey.objects.values_list("key", flat=True)) == ["recent"]
