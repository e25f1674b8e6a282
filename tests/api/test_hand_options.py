"""The seeds' last options through the API (rules.md): a French table's cards, splits of
pairs where the table agreed them (a pair over 7½ too), profesional's one-card cap and la
loca's calls are entered, refused naming their rule, and offered in ``legal``; a hand
record with each option is imported and settled."""

from decimal import Decimal

import pytest

from tables import services
from tables.models import Hand
from tests.api.conftest import error_of
from tests.api.test_hands import post_events
from tests.factories import TableFactory, deposit_bank
from tests.hands import event, record


@pytest.fixture
def table_with(mesa):
    """A new table with ``rules``, ana's bank deposited, dealer1's shift open."""
    made = []

    def make(**rules):
        table = TableFactory(name=f"Mesa {len(made) + 2}", rules=rules)
        services.table_bank_draw(table=table, holder=mesa.players["ana"], capital=Decimal("100.00"),
                                 by=mesa.supervisor)
        deposit_bank(table)
        services.shift_open(table=table, dealer=mesa.dealer, opened_by=mesa.supervisor)
        made.append(table)
        return table
    return make


def opened(api, table, *seats):
    response = api["dealer"].post(f"/api/tables/{table.pk}/hands/", {"seats": list(seats)})
    assert response.status_code == 201, response.json()
    return response.json()["hand"]["id"]


def refused(api, hand_id, entry):
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": entry})
    assert response.status_code == 400, response.json()
    return error_of(response)


def test_a_french_table_takes_its_cards_and_refuses_the_spanish_ones(api, table_with):
    hand_id = opened(api, table_with(profile="reglamento", deck="french-40"), "luis")
    error = refused(api, hand_id, event("luis deal 7O"))
    assert error["rule"] == "deck" and "7O" in error["message"]
    state = post_events(api, hand_id, ["luis deal qd", "bank deal 7H", "luis bet 10", "luis card AS",
                                       "luis stand", "bank card KC"])
    assert [c["card"] for c in state["state"]["seats"][0]["hands"][0]["cards"]] == ["QD", "AS"]
    assert Hand.objects.get(pk=hand_id).settlement["players"] == {"luis": "-10.00"}


def test_a_pair_splits_only_where_the_table_agreed_it_and_a_pair_over_seven_and_a_half_is_offered(api, table_with):
    lines = ["luis deal 3O", "marta deal 4C", "bank deal 2E", "luis bet 10", "luis card 3C"]
    hand_id = opened(api, table_with(profile="reglamento"), "luis", "marta")
    state = post_events(api, hand_id, lines)
    assert state["legal"]["split"] is False
    assert refused(api, hand_id, {"do": "split", "seat": "luis"})["rule"] == "split"
    hand_id = opened(api, table_with(profile="reglamento", split_pairs=True), "luis", "marta")
    assert post_events(api, hand_id, lines)["legal"]["split"] is True
    state = post_events(api, hand_id, ["luis split", "luis card 4E", "luis stand", "luis bet 10", "luis card 1B",
                                       "luis stand", "marta bet 10", "marta card 4B"])
    assert state["legal"]["pair_split"] == {"seat": "marta", "hand": 1} and state["legal"]["actor"] == "bank"
    state = post_events(api, hand_id, ["marta split"])
    assert state["legal"]["pair_split"] is None and state["legal"]["actor"] == "marta"


def test_profesionals_one_card_cap_is_offered_and_a_stand_above_it_refused(api, table_with):
    hand_id = opened(api, table_with(profile="profesional"), "luis")
    state = post_events(api, hand_id, ["luis deal 5O", "loca deal 1E", "bank deal 2E"])
    assert state["legal"]["one_card_cap"] == "10.00"
    state = post_events(api, hand_id, ["luis bet 20"])
    assert state["legal"]["stand"] is False and state["legal"]["one_card_cap"] == "10.00"
    error = refused(api, hand_id, event("luis stand"))
    assert error["rule"] == "one_card_stand_max" and "10,00" in error["message"] and "20,00" in error["message"]
    state = post_events(api, hand_id, ["luis card 1C"])
    assert state["legal"]["stand"] is True and state["legal"]["one_card_cap"] is None


def test_la_locas_calls_through_the_api(api, table_with):
    hand_id = opened(api, table_with(profile="profesional", loca_calls=True), "luis")
    state = post_events(api, hand_id, ["luis deal 2O", "loca deal 6C", "bank deal 3E", "loca bet 10 by pepe",
                                       "loca bet 20 by rosa", "luis bet 10", "luis card 5C", "luis stand"])
    legal = state["legal"]
    assert legal["loca_calls"] == ["dobla_quien_quiera", "dobla", "se_planta"]
    assert legal["loca_responsables"] == ["pepe", "rosa"] and legal["loca_responsable"] == "rosa"
    assert refused(api, hand_id, event("loca bet 10 by pepe"))["rule"] == "loca_calls"  # no window open
    call = {"do": "loca_call", "seat": "loca", "call": "dobla_quien_quiera", "responsable": "rosa"}
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": call})
    assert response.status_code == 201, response.json()
    state = response.json()
    assert state["state"]["loca"]["responsable"] == "rosa" and state["state"]["loca"]["dobla_quien_quiera"] is True
    assert state["legal"]["loca_raises"] == {"pepe": "10.00", "rosa": "20.00"}
    error = refused(api, hand_id, {**call, "call": "dobla_quien_quiera", "responsable": "pepe"})
    assert error["rule"] == "loca_calls" and "rosa" in error["message"]
    post_events(api, hand_id, ["loca bet 10 by pepe", "loca card 1B"])
    response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": {**call, "call": "se_planta"}})
    assert response.status_code == 201
    post_events(api, hand_id, ["bank card 5O"])  # 3 + 5: bust
    assert Hand.objects.get(pk=hand_id).settlement["players"] == {"luis": "10.00", "pepe": "20.00", "rosa": "20.00"}


@pytest.mark.parametrize("rules, lines", [
    ({"profile": "reglamento", "deck": "french-40"},
     ["luis deal QD", "bank deal 7H", "luis bet 10", "luis card AS", "luis stand", "bank card KC"]),
    ({"profile": "reglamento", "split_pairs": True},
     ["luis deal 3O", "bank deal 2E", "luis bet 10", "luis card 3C", "luis split", "luis card 4E", "luis stand",
      "luis bet 10", "luis card 1B", "luis stand", "bank card 5O", "bank stand"]),
    ({"profile": "profesional"},
     ["luis deal 5O", "loca deal 1E", "bank deal 2E", "luis bet 10", "luis stand", "loca stand", "bank card 5B",
      "bank stand"]),
    ({"profile": "profesional", "loca_calls": True},
     ["luis deal 2O", "loca deal 6C", "bank deal 3E", "loca bet 10 by pepe", "luis bet 10", "luis card 5C",
      "luis stand", {"do": "loca_call", "seat": "loca", "call": "dobla", "responsable": "pepe"},
      {"do": "loca_call", "seat": "loca", "call": "se_planta", "responsable": "pepe"}, "bank card 5O"]),
], ids=["french", "split_pairs", "one_card_cap", "loca_calls"])
def test_a_record_of_each_option_is_imported_and_settled(api, table_with, rules, lines):
    table = table_with(**rules)
    body = record(*[line for line in lines if isinstance(line, str)], rules=rules, table=table.name, number=1)
    body["events"] = [event(line) if isinstance(line, str) else line for line in lines]
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code == 201, response.json()
    hand = Hand.objects.get(table=table, number=1)
    assert hand.status == Hand.Status.SETTLED and hand.rules == rules


def test_a_record_breaking_the_one_card_cap_is_refused_naming_it(api, table_with):
    table = table_with(profile="profesional")
    body = record("luis deal 5O", "loca deal 1E", "bank deal 2E", "luis bet 20", "luis stand", "loca stand",
                  "bank card 5B", "bank stand", rules={"profile": "profesional"}, table=table.name, number=1)
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["event"], error["rule"]) == (5, "one_card_stand_max")
    assert not Hand.objects.filter(table=table).exists()
