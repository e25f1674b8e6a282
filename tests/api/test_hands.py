"""Hands through the API: the console's flow, with the same services, rules and roles."""

from decimal import Decimal

from ledger.selectors import player_balance
from tables.models import Hand, HandEvent
from tests.api.conftest import error_of
from tests.factories import TableFactory, UserFactory, deposit_bank
from tests.hands import event

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def open_hand(api, mesa, *seats):
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": list(seats)})
    assert response.status_code == 201, response.json()
    return response.json()


def post_events(api, hand_id, lines):
    response = None
    for line in lines:
        response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event(line)})
        assert response.status_code == 201, (line, response.json())
    return response.json()


def test_a_hand_played_through_the_api_is_settled_into_the_ledger(api, mesa):
    opened = open_hand(api, mesa, "luis", "marta")
    assert opened["hand"]["number"] == 1 and opened["hand"]["status"] == "open"
    assert opened["state"]["phase"] == "deal" and opened["legal"]["to_deal"] == ["luis", "marta", "bank"]
    last = post_events(api, opened["hand"]["id"], P01)
    assert last["hand"]["status"] == "settled"
    assert last["hand"]["settlement"]["players"] == {"luis": "10.00", "marta": "-20.00"}
    assert last["legal"]["complete"] is True
    assert player_balance(player=mesa.players["luis"]) == Decimal("510.00")
    assert player_balance(player=mesa.players["marta"]) == Decimal("480.00")
    hand = Hand.objects.get(pk=opened["hand"]["id"])
    assert hand.transaction.source == "api"
    assert [e.entered_by for e in hand.events.all()] == [mesa.dealer] * len(P01)


def test_the_console_state_shows_legal_amounts_in_euros(api, mesa):
    opened = open_hand(api, mesa, "luis", "marta")
    state = post_events(api, opened["hand"]["id"], P01[:3])
    assert state["legal"]["actor"] == "luis"
    assert state["legal"]["bet"] == {"min": "5.00", "max": "100.00"}
    again = api["auditor"].get(f"/api/hands/{opened['hand']['id']}/state/")
    assert again.status_code == 200 and again.json() == state
    assert state["hand"]["version"] == 3


def test_an_illegal_event_names_the_field_the_event_and_the_rule_and_writes_nothing(api, mesa):
    hand_id = open_hand(api, mesa, "luis", "marta")["hand"]["id"]
    post_events(api, hand_id, P01[:3])
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("marta bet 5")})
    assert response.status_code == 400
    error = error_of(response)
    assert (error["field"], error["event"], error["rule"]) == ("event", 4, "turn")
    assert "luis" in error["message"]
    assert HandEvent.objects.filter(hand_id=hand_id).count() == 3


def test_a_bet_above_the_limit_is_refused_with_its_rule(api, mesa):
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    post_events(api, hand_id, ["luis deal 5O", "bank deal 2E"])
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis bet 500")})
    assert response.status_code == 400 and error_of(response)["rule"] == "max_bet"
    assert error_of(response)["event"] == 3


def test_an_event_that_is_not_an_object_is_refused_by_the_serializer(api, mesa):
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": "luis deal 5O"})
    assert response.status_code == 400
    error = error_of(response)
    assert error["field"] == "event" and error["rule"] == "not_object" and error["event"] is None


def test_an_entry_on_a_stale_version_is_a_conflict(api, mesa):
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    post_events(api, hand_id, ["luis deal 5O"])
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/",
                                  {"event": event("bank deal 2E"), "expected_version": 0})
    assert response.status_code == 409 and error_of(response)["rule"] == "stale"
    ok = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("bank deal 2E"), "expected_version": 1})
    assert ok.status_code == 201 and ok.json()["hand"]["version"] == 2


def test_undo_and_the_entries_list(api, mesa):
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    post_events(api, hand_id, ["luis deal 5O", "bank deal 2E"])
    response = api["dealer"].post(f"/api/hands/{hand_id}/undo/", {"reason": "wrong card", "expected_version": 2})
    assert response.status_code == 201
    assert response.json()["state"]["events"] == 1 and response.json()["legal"]["to_deal"] == ["bank"]
    no_reason = api["dealer"].post(f"/api/hands/{hand_id}/undo/", {"reason": "  "})
    assert no_reason.status_code == 400 and error_of(no_reason)["field"] == "reason"
    entries = api["dealer"].get(f"/api/hands/{hand_id}/events/").json()
    assert [e["kind"] for e in entries["results"]] == ["event", "event", "undo"]
    assert entries["count"] == 3
    undos = api["dealer"].get(f"/api/hands/{hand_id}/events/", kind="undo").json()
    assert undos["count"] == 1 and undos["results"][0]["event"] == {"undo": 2, "reason": "wrong card"}


def test_a_pit_supervisor_voids_a_settled_hand_and_the_ledger_is_reversed(api, mesa):
    hand_id = open_hand(api, mesa, "luis", "marta")["hand"]["id"]
    post_events(api, hand_id, P01)
    assert api["dealer"].post(f"/api/hands/{hand_id}/void/", {"reason": "x"}).status_code == 403
    response = api["supervisor"].post(f"/api/hands/{hand_id}/void/", {"reason": "wrong table"})
    assert response.status_code == 200 and response.json()["status"] == "voided"
    assert player_balance(player=mesa.players["luis"]) == Decimal("500.00")
    again = api["supervisor"].post(f"/api/hands/{hand_id}/void/", {"reason": "twice"})
    assert again.status_code == 409 and error_of(again)["rule"] == "hand_closed"


def test_a_dealer_acts_only_at_the_table_of_his_open_shift(api, mesa):
    other = TableFactory(name="Mesa 2")
    response = api["dealer"].post(f"/api/tables/{other.pk}/hands/", {"seats": ["luis"]})
    assert response.status_code == 403 and error_of(response)["rule"] == "permission_denied"
    stranger = UserFactory(username="dealer2", roles=["dealer"])
    from tests.api.conftest import Api

    response = Api(stranger).post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis"]})
    assert response.status_code == 403
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    assert Api(stranger).get(f"/api/hands/{hand_id}/state/").status_code == 404
    assert Api(stranger).get("/api/hands/").json()["count"] == 0
    assert api["dealer"].get("/api/hands/").json()["count"] == 1


def test_auditors_read_but_change_nothing(api, mesa):
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    assert api["auditor"].get(f"/api/hands/{hand_id}/").status_code == 200
    response = api["auditor"].post(f"/api/hands/{hand_id}/events/", {"event": event("luis deal 5O")})
    assert response.status_code == 403
    assert api["auditor"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["marta"]}).status_code == 403
    assert api["cashier"].get(f"/api/hands/{hand_id}/").status_code == 403


def test_anonymous_requests_are_refused(db, client):
    response = client.get("/api/tables/")
    assert response.status_code in (401, 403) and "error" in response.json()


def test_seats_that_are_not_players_are_refused_on_the_seats_field(api, mesa):
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["luis", "nadie"]})
    assert response.status_code == 400
    assert error_of(response)["field"] == "seats" and "nadie" in error_of(response)["message"]
    second = open_hand(api, mesa, "luis")
    assert second["hand"]["number"] == 1
    response = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": ["marta"]})
    assert response.status_code == 409 and error_of(response)["rule"] == "hand_closed"


def test_hand_lists_are_paginated_and_filtered(api, mesa):
    for _ in range(3):
        hand_id = open_hand(api, mesa, "luis", "marta")["hand"]["id"]
        post_events(api, hand_id, P01)
    hand_id = open_hand(api, mesa, "luis")["hand"]["id"]
    page = api["supervisor"].get("/api/hands/", page_size=2).json()
    assert page["count"] == 4 and len(page["results"]) == 2 and page["next"]
    settled = api["supervisor"].get("/api/hands/", status="settled").json()
    assert settled["count"] == 3
    assert api["supervisor"].get("/api/hands/", status="open").json()["results"][0]["id"] == hand_id
    at_table = api["supervisor"].get(f"/api/tables/{mesa.table.pk}/hands/", number=2).json()
    assert [h["number"] for h in at_table["results"]] == [2]
    assert api["supervisor"].get("/api/hands/", player="marta").json()["count"] == 3
    bad = api["supervisor"].get("/api/hands/", opened_after="yesterday")
    assert bad.status_code == 400 and error_of(bad)["field"] == "opened_after"


def test_la_loca_takes_raises_up_to_twice_the_first_stake_from_its_turn(api, mesa):
    table = TableFactory(name="Mesa P", rules={"profile": "profesional"})
    from tables import services

    services.table_bank_draw(table=table, holder=mesa.players["ana"], capital=Decimal("100.00"), by=mesa.supervisor)
    deposit_bank(table)
    services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    response = api["dealer"].post(f"/api/tables/{table.pk}/hands/", {"seats": ["luis"]})
    hand_id = response.json()["hand"]["id"]
    state = post_events(api, hand_id, ["luis deal 2C", "loca deal 12O", "bank deal 5O", "loca bet 10 by pepe",
                                       "luis bet 5", "luis stand"])
    assert state["legal"]["loca_bets_open"] is False and state["legal"]["loca_raises"] == {"pepe": "10.00"}
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("loca bet 15 by pepe")})
    assert response.status_code == 400
    error = error_of(response)
    assert (error["event"], error["rule"]) == (7, "loca") and "20,00" in error["message"] and "25,00" in error["message"]
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event("loca bet 5 by rosa")})
    assert response.status_code == 400 and "va la loca" in error_of(response)["message"]
    post_events(api, hand_id, ["loca bet 10 by pepe", "loca card 7B", "bank stand"])
    assert Hand.objects.get(pk=hand_id).settlement["players"]["pepe"] == "40.00"
