"""What the dealer's console asks the engine between events: ``legal()`` and ``describe()``."""

import pytest

from game import HandState, IllegalEvent, Profile
from game.payouts import settle
from tests.hands import event


def table(*lines, rules="reglamento", seats=("luis", "marta"), min_bet=500, max_bet=10000, unknown=False):
    state = HandState(Profile.from_rules(rules), min_bet, max_bet, "ana", list(seats), allow_unknown=unknown)
    for line in lines:
        state.apply(event(line))
    return state


def test_during_the_deal_the_console_knows_who_still_needs_a_card():
    legal = table("luis deal 3O").legal()
    assert legal.phase == "deal" and legal.to_deal == ("marta", "bank") and legal.actor is None


def test_at_the_start_of_a_turn_only_the_stake_is_open():
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 2C").legal()
    assert (legal.actor, legal.hand, legal.bet) == ("luis", 1, (500, 10000))
    assert not legal.draw and not legal.stand and not legal.split and not legal.fusilar


def test_after_the_stake_a_card_or_a_stand_and_a_raise_up_to_the_maximum():
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 30").legal()
    assert legal.draw and legal.stand and legal.bet == (1, 7000)
    assert not legal.draw_down  # the initial card is already face down
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 30", "luis reveal").legal()
    assert legal.draw_down


def test_a_raise_without_raise_on_stand_closes_the_stand():
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 30", "luis card 1O",
                  "luis bet 10", rules={"profile": "reglamento", "raise_on_stand": False}).legal()
    assert legal.draw and not legal.stand


def test_split_exchange_fusilar_and_muerto_are_offered_when_they_apply():
    assert table("luis deal 11O", "marta deal 4C", "bank deal 2C", "luis bet 10", "luis card 10C").legal().split
    assert table("luis deal 4O", "marta deal 4C", "bank deal 2C").legal().exchange
    mandatory = table("luis deal 4O", "marta deal 4C", "bank deal 2C",
                      rules={"profile": "reglamento", "exchange_fours": "mandatory"}).legal()
    assert mandatory.exchange_required and mandatory.bet is None
    assert table("luis deal 7O", "marta deal 4C", "bank deal 2C", "luis bet 10").legal().fusilar
    muerto = table("luis deal 7O", "marta deal 4C", "loca deal 1B", "bank deal 2C", "luis bet 10",
                   rules="profesional").legal()
    assert muerto.muerto == (500, 10000) and not muerto.fusilar


def test_the_bank_must_draw_or_must_stand():
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 5C", "luis bet 10", "luis stand",
                  "marta bet 10", "marta stand", rules="americana").legal()
    assert legal.actor == "bank" and legal.bank_must_draw and not legal.stand
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 6C", "luis bet 10", "luis stand",
                  "marta bet 10", "marta stand", rules="americana").legal()
    assert legal.bank_must_stand and not legal.draw


def test_side_bets_and_bets_on_la_loca_are_open_until_they_close():
    legal = table("luis deal 3O", "marta deal 4C", "bank deal 2C", rules={"profile": "reglamento", "side_bets": True}).legal()
    assert legal.side_bet_seats == ("luis", "marta")
    state = table("luis deal 3O", "marta deal 4C", "loca deal 12O", "bank deal 2C", "loca bet 10 by pepe",
                  "luis bet 10", "luis stand", "marta bet 10", rules="profesional")
    assert state.legal().loca_bets_open and state.legal().loca_raises == {"pepe": None}
    state.apply(event("marta stand"))  # the last seat's turn is over: "va la loca"
    legal = state.legal()
    assert not legal.loca_bets_open and legal.loca_raises == {"pepe": 1000}
    state.apply(event("loca card 1O"))
    assert state.legal().loca_raises == {"pepe": 1000}


def test_an_illegal_event_changes_nothing():
    state = table("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 10")
    before = state.describe()
    with pytest.raises(IllegalEvent):
        state.apply(event("luis card 3O"))
    with pytest.raises(IllegalEvent):
        state.apply(event("marta bet 10"))
    assert state.describe() == before and state.n == 4


def test_describe_shows_cards_face_down_points_and_stakes():
    state = table("luis deal 3O", "marta deal 4C", "bank deal 2C", "luis bet 10", "luis card 2B")
    luis = state.describe()["seats"][0]
    assert luis["hands"][0]["cards"] == [{"card": "3O", "down": True}, {"card": "2B", "down": False}]
    assert (luis["hands"][0]["points"], luis["hands"][0]["stake"]) == ("5", "10.00")
    assert state.describe()["actor"] == "luis"


# --------------------------------------------------------------------------- unknown face-down cards

def test_a_face_down_card_may_be_entered_unknown_and_named_before_settling():
    state = table("luis deal ?", "marta deal ?", "bank deal ?", "luis bet 10", "luis card 2B", "luis stand",
                  "marta bet 10", "marta card 5O", "marta stand", "bank reveal 4E", "bank card 1E",
                  "bank stand", unknown=True)
    assert state.complete and state.identities_owed() == [("luis", 1), ("marta", 1)]
    with pytest.raises(IllegalEvent) as caught:
        settle(state)
    assert caught.value.rule == "identify"
    state.apply(event("luis identify 1 5C"))
    state.apply(event("marta identify 1 11O"))
    s = settle(state)
    assert [(b.player, b.points, b.result) for b in s.bets] == [("luis", 14, "win"), ("marta", 11, "win")]


def test_a_late_identity_must_fit_the_play_that_happened():
    state = table("luis deal ?", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis card 5B", "luis stand",
                  unknown=True)
    with pytest.raises(IllegalEvent):  # 4C is marta's
        state.apply(event("luis identify 1 4C"))
    with pytest.raises(IllegalEvent):  # 7 + 5 would have been bust, yet luis stood
        state.apply(event("luis identify 1 7O"))
    state.apply(event("luis identify 1 2O"))
    assert state.seat("luis").hands[0].points == 14


def test_a_revealed_unknown_card_that_makes_seven_and_a_half_stands_the_hand():
    state = table("luis deal ?", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis card 7B",
                  "luis reveal 12O", unknown=True)
    assert state.actor == "marta" and state.seat("luis").hands[0].natural


def test_the_bank_names_its_card_before_it_plays():
    state = table("luis deal 3O", "marta deal 4C", "bank deal ?", "luis bet 10", "luis stand",
                  "marta bet 10", "marta stand", unknown=True)
    with pytest.raises(IllegalEvent) as caught:
        state.apply(event("bank card 1O"))
    assert caught.value.rule == "reveal"
    assert state.legal().reveal


CHASE = {"profile": "reglamento", "bank_chases_natural": True}


def test_a_seat_standing_on_an_announced_seven_and_a_half_shows_its_unknown_card():
    opening = ("luis deal ?", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis card 7B")
    state = table(*opening, rules=CHASE, unknown=True)
    assert state.legal().announce and state.legal().stand
    with pytest.raises(IllegalEvent) as caught:  # 7 + 3 is 10, not 7½
        state.apply({"do": "identify", "seat": "luis", "hand": 1, "card": "3O", "natural": True})
    assert caught.value.rule == "identify" and "not 7½" in caught.value.message
    state.apply({"do": "identify", "seat": "luis", "hand": 1, "card": "12O", "natural": True})
    assert state.actor == "marta" and state.seat("luis").hands[0].natural and state.announced
    for line in ("marta bet 10", "marta stand"):
        state.apply(event(line))
    with pytest.raises(IllegalEvent) as caught:  # the bank is obliged while it plays
        state.apply(event("bank stand"))
    assert caught.value.rule == "bank_chases_natural"
    assert not table(*opening, unknown=True).legal().announce  # only where the bank chases


def test_an_announcement_is_the_hand_in_turns_and_needs_a_card_that_fits():
    state = table("luis deal 3O", "marta deal ?", "bank deal 5E", rules=CHASE, unknown=True)
    with pytest.raises(IllegalEvent):  # marta's turn has not come
        state.apply({"do": "identify", "seat": "marta", "hand": 1, "card": "12O", "natural": True})
    with pytest.raises(IllegalEvent):
        state.apply({"do": "identify", "seat": "marta", "hand": 1, "card": "12O", "natural": "yes"})


def test_a_seven_and_a_half_shown_after_the_bank_stood_below_it_is_refused_where_the_bank_chases():
    lines = ("luis deal ?", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis card 7B", "luis stand",
             "marta bet 10", "marta stand", "bank card 1E", "bank stand")
    state = table(*lines, rules=CHASE, unknown=True)
    with pytest.raises(IllegalEvent) as caught:
        state.apply(event("luis identify 1 12O"))
    assert caught.value.rule == "bank_chases_natural"
    assert state.identities_owed() == [("luis", 1)] and not state.announced  # nothing changed


def test_a_seven_and_a_half_shown_late_obliges_the_bank_still_to_play():
    state = table("luis deal ?", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis card 7B", "luis stand",
                  "marta bet 10", "marta stand", rules=CHASE, unknown=True)
    assert not state.announced
    state.apply(event("luis identify 1 12O"))
    assert state.announced and not state.legal().stand


def test_a_fusilado_card_may_stay_unknown_until_the_end():
    state = table("luis deal 7O", "marta deal 4C", "bank deal 5E", "luis bet 10", "luis fusilar ?",
                  "marta bet 10", "marta stand", "bank card 1E", "bank stand", unknown=True)
    state.apply(event("luis identify 1 11E"))
    assert settle(state).players == {"luis": 4000, "marta": -1000}


def test_records_never_carry_unknown_cards():
    state = table("luis deal 3O", "marta deal 4C", "bank deal 2C")
    with pytest.raises(IllegalEvent):
        state.apply({"do": "card", "seat": "luis", "card": None, "down": True})
    with pytest.raises(IllegalEvent):
        state.apply({"do": "identify", "seat": "luis", "hand": 1, "card": "3O"})


# --------------------------------------------------------------------------- the console's log

def test_undo_cancels_the_latest_event_in_force():
    from game.entries import effective_events

    entries = [("event", {"n": 1}), ("event", {"n": 2}), ("undo", {}), ("event", {"n": 3}), ("undo", {}),
               ("undo", {}), ("event", {"n": 4})]
    assert effective_events(entries) == [{"n": 4}]
    with pytest.raises(IllegalEvent):
        effective_events([("event", {"n": 1}), ("undo", {}), ("undo", {})])


def test_a_console_log_folds_into_a_record_that_settles_the_same():
    from game.entries import fold_record_events
    from game.record import play_record
    from tests.hands import record

    lines = ["luis deal ?", "marta deal ?", "bank deal ?", "luis bet 10", "luis card 7B", "luis stand",
             "marta bet 10", "marta reveal 2O", "marta card ? down", "marta stand", "bank reveal 4E",
             "bank card 1E", "bank stand", "luis identify 1 10O", "marta identify 1 3C"]
    events = [event(line) for line in lines]
    state = table(*lines, unknown=True)
    console = settle(state)
    folded = fold_record_events(lambda: HandState(Profile.from_rules("reglamento"), 500, 10000, "ana",
                                                  ["luis", "marta"], allow_unknown=True), events)
    rec = record(seats=["luis", "marta"], min_bet="5", max_bet="100")
    rec["events"] = folded
    assert [e["do"] for e in folded].count("identify") == 0
    assert {"do": "stand", "seat": "luis"} not in folded  # luis's 7½ stands by itself in the record
    assert folded[0] == {"do": "deal", "seat": "luis", "card": "10O"}
    assert settle(play_record(rec)).as_dict() == console.as_dict()
    assert console.players == {"luis": 2000, "marta": -1000}  # 5 ties the bank's 5
