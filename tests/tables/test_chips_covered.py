"""Chips covered at entry (issue 14 "Chips"): a bet (own, side, loca, muerto) over what a
player holds on record, less what he has at risk in open hands, is refused with his
holding named, by the service, the console, the API and the import; a cash-out leaves
what is at risk in open hands; and no sequence of buy-ins, cash-outs and hands leaves a
player's balance below zero (Hypothesis, on PostgreSQL)."""

import random
from decimal import Decimal

import pytest
from django.conf import settings
from django.db import transaction
from django.utils import translation
from hypothesis import HealthCheck, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cage.services.slips import cashier_buy_in, cashier_cash_out
from game.simulate import random_record
from ledger.errors import InsufficientChips
from ledger.models import Account
from ledger.selectors import player_balance
from patrons.models import Player
from tables import services
from tables.errors import ChipsNotCovered, TableError
from tables.models import Hand, HandEvent
from tests.conftest import mesa_ready
from tests.factories import PlayerFactory, TableFactory, deposit_bank
from tests.hands import event
from tests.tables.test_console_views import Console, refusal_of

pytestmark = pytest.mark.django_db

DEAL = ["luis deal 5O", "marta deal 3C", "bank deal 2E"]


@pytest.fixture(autouse=True)
def language_back():
    """A page asked for in English leaves English active in this thread: back to the default."""
    yield
    translation.deactivate()


def cash_out_all(mesa, code):
    cashier_cash_out(player=mesa.players[code], amount=player_balance(player=mesa.players[code]),
                     posted_by=mesa.cashier)


def test_the_issue_s_hand_a_player_without_chips_cannot_bet_and_his_balance_never_goes_below_zero(mesa):
    cash_out_all(mesa, "luis")
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL)
    with translation.override("en"), pytest.raises(ChipsNotCovered) as caught:
        mesa.play(hand, "luis bet 100")
    assert str(caught.value) == ("luis holds 0.00 € in chips, 0.00 € of them at risk in open hands: they do not "
                                 "cover this bet, which would put 100.00 € at risk")
    assert caught.value.field == "amount"
    hand.refresh_from_db()
    assert hand.version == 3 and HandEvent.objects.filter(hand=hand).count() == 3  # nothing written
    assert player_balance(player=mesa.players["luis"]) == Decimal("0.00")


def test_a_bet_is_covered_up_to_the_chips_held_less_this_hand_s_stakes(mesa):
    cashier_cash_out(player=mesa.players["luis"], amount=Decimal("470.00"), posted_by=mesa.cashier)  # 30.00 left
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL, "luis bet 20", "luis card 1B")
    with translation.override("es"), pytest.raises(ChipsNotCovered) as caught:
        mesa.play(hand, "luis bet 20")  # a raise to 40.00: 10.00 more than he holds
    assert str(caught.value) == ("luis tiene 30,00 € en fichas, 20,00 € de ellas en juego en manos abiertas: no "
                                 "cubren esta apuesta, que pondría 40,00 € en juego")
    hand = mesa.play(hand, "luis bet 10")  # 30.00 in all: covered exactly
    assert services.hand_state(hand).hands()[0].stake == 3000


def test_stakes_in_an_open_hand_at_another_table_count(mesa, staff):
    cashier_cash_out(player=mesa.players["luis"], amount=Decimal("450.00"), posted_by=mesa.cashier)  # 50.00 left
    other = TableFactory(name="Mesa 2")
    services.table_bank_draw(table=other, holder=mesa.players["rosa"], capital=Decimal("100.00"),
                             by=mesa.supervisor)
    deposit_bank(other)
    there = services.hand_open(table=other, seats=["luis"], opened_by=mesa.dealer, require_shift=False)
    mesa.play(there, "luis deal 4O", "bank deal 2E", "luis bet 40")
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL)
    with translation.override("en"), pytest.raises(ChipsNotCovered) as caught:
        mesa.play(hand, "luis bet 20")
    assert "luis holds 50.00 € in chips, 40.00 € of them at risk in open hands" in str(caught.value)
    mesa.play(hand, "luis bet 10")
    # Nor may he cash out what is at risk: 50.00 held, 50.00 at risk.
    with translation.override("en"), pytest.raises(InsufficientChips) as caught:
        cashier_cash_out(player=mesa.players["luis"], amount=Decimal("0.01"), posted_by=mesa.cashier)
    assert "less 50.00 € at risk in open hands" in str(caught.value)
    # Voiding the other hand frees his 40.00.
    services.hand_void(hand=there, reason="wrong table", voided_by=mesa.supervisor)
    cashier_cash_out(player=mesa.players["luis"], amount=Decimal("40.00"), posted_by=mesa.cashier)


def test_side_bets_la_loca_and_muerto_are_stakes_too(staff):
    table, players = mesa_ready(staff)
    table.rules = {"profile": "profesional", "side_bets": True}
    table.save()
    broke = PlayerFactory(code="pobre")
    cashier_buy_in(player=broke, amount=Decimal("5.00"), posted_by=staff["cashier"])
    hand = services.hand_open(table=table, seats=["luis", "marta"], opened_by=staff["dealer"])
    hand = services.hand_record_event(hand=hand, event=event("luis deal 7O"), entered_by=staff["dealer"])
    hand = services.hand_record_event(hand=hand, event=event("marta deal 3C"), entered_by=staff["dealer"])
    hand = services.hand_record_event(hand=hand, event=event("loca deal 2O"), entered_by=staff["dealer"])
    hand = services.hand_record_event(hand=hand, event=event("bank deal 2E"), entered_by=staff["dealer"])
    for line in ("loca bet 10 by pobre", "marta bet 10 by pobre"):  # la loca, a side bet
        with translation.override("en"), pytest.raises(ChipsNotCovered) as caught:
            services.hand_record_event(hand=hand, event=event(line), entered_by=staff["dealer"])
        assert "pobre holds 5.00 € in chips" in str(caught.value)
    hand = services.hand_record_event(hand=hand, event=event("loca bet 5 by pobre"), entered_by=staff["dealer"])
    # luis's muerto: his 7 carries twice the minimum (10.00), the 7 + card up to his chips.
    cashier_cash_out(player=players["luis"], amount=Decimal("480.00"), posted_by=staff["cashier"])  # 20.00
    hand = services.hand_record_event(hand=hand, event=event("luis bet 10"), entered_by=staff["dealer"])
    with translation.override("en"), pytest.raises(ChipsNotCovered) as caught:
        services.hand_record_event(hand=hand, event=event("luis muerto 4C 20"), entered_by=staff["dealer"])
    assert "which would put 30.00 € at risk" in str(caught.value)
    hand = services.hand_record_event(hand=hand, event=event("luis muerto 4C 10"), entered_by=staff["dealer"])
    assert services.hand_state(hand).hands()[1].stake == 1000


def test_where_the_bank_s_7_and_a_half_collects_double_a_stake_is_covered_twice(staff):
    table, players = mesa_ready(staff)
    table.rules = {"profile": "reglamento", "bank_natural_collects": 2}
    table.save()
    cashier_cash_out(player=players["luis"], amount=Decimal("470.00"), posted_by=staff["cashier"])  # 30.00
    hand = services.hand_open(table=table, seats=["luis"], opened_by=staff["dealer"])
    for line in ("luis deal 4O", "bank deal 2E"):
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=staff["dealer"])
    with pytest.raises(ChipsNotCovered):
        services.hand_record_event(hand=hand, event=event("luis bet 20"), entered_by=staff["dealer"])
    services.hand_record_event(hand=hand, event=event("luis bet 15"), entered_by=staff["dealer"])


def test_the_console_refuses_the_bet_naming_the_holding_and_writes_nothing(client, mesa):
    cash_out_all(mesa, "luis")
    client.force_login(mesa.dealer)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    screen = Console(client, mesa.table)
    screen.load()
    assert screen.send("form-open", seats="luis marta").status_code == 302
    for line in DEAL:
        screen.enter(line)
    response = screen.send("form-bet", "bet", amount="100")
    assert response.status_code == 200
    assert refusal_of(response) == ("Not recorded: Stake (€): luis holds 0.00 € in chips, 0.00 € of them at risk in "
                                    "open hands: they do not cover this bet, which would put 100.00 € at risk")
    assert Hand.objects.get(status="open").version == 3
    assert player_balance(player=mesa.players["luis"]) == Decimal("0.00")


# ---------------------------------------------------------------------------------------
# The property: buy-ins, cash-outs (between and during hands) and hands at two tables.

PLAYERS = ("luis", "marta", "pepe", "rosa")
steps = st.lists(st.one_of(
    st.tuples(st.just("buy"), st.sampled_from(PLAYERS), st.integers(1, 30_000)),
    st.tuples(st.just("cash"), st.sampled_from(PLAYERS), st.integers(1, 60_000)),
    st.tuples(st.just("hands"), st.integers(0, 2**32))),
    min_size=1, max_size=6)


def _no_negative_player_balance():
    negative = list(Account.objects.filter(kind="player", balance__lt=0).values_list("player__code", "balance"))
    assert negative == []


def _play_two_tables(tables, staff, seed):
    """A random hand at each table, their entries interleaved, with cash-out attempts
    between entries; a bet refused for chips voids its hand."""
    rng = random.Random(seed)
    dealer = staff["dealer"]
    plays = []
    for table in tables:
        bank = services.pending_bank_holder(table)
        seats = rng.sample([p for p in PLAYERS if p != bank.code], rng.randint(1, 3))
        record = random_record(rng, rules=table.rules, seats=seats, bank=bank.code, min_bet=cents(table.min_bet),
                               max_bet=cents(table.max_bet))
        hand = services.hand_open(table=table, seats=seats, opened_by=dealer, require_shift=False)
        plays.append([hand, list(record["events"])])
    while any(events for _hand, events in plays):
        for play in plays:
            hand, events = play
            if not events:
                continue
            try:
                play[0] = services.hand_record_event(hand=hand, event=events.pop(0), entered_by=dealer)
            except ChipsNotCovered:
                services.hand_void(hand=hand, reason="not covered", voided_by=staff["supervisor"])
                events.clear()
            except TableError:  # the record's last events once the console settled it
                events.clear()
            if play[0].status != Hand.Status.OPEN:
                events.clear()
            if rng.random() < 0.3:
                code = rng.choice(PLAYERS)
                try:
                    cashier_cash_out(player=Player.objects.get(code=code),
                                     amount=Decimal(rng.randint(1, 50_000)) / 100, posted_by=staff["cashier"])
                except InsufficientChips:
                    pass
            _no_negative_player_balance()
    for hand, _events in plays:  # a record the console could not finish (the bank still to play)
        hand.refresh_from_db()
        if hand.status == Hand.Status.OPEN:
            services.hand_void(hand=hand, reason="unfinished", voided_by=staff["supervisor"])


def cents(amount):
    return int(amount * 100)


@hypothesis_settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=steps, rules=st.sampled_from(["reglamento", "tradicional", "profesional"]))
def test_no_sequence_of_buy_ins_cash_outs_and_hands_leaves_a_player_s_balance_negative(staff, steps, rules):
    """``tradicional``: the bank's 7½ collects double; ``profesional``: la loca and muerto."""
    with transaction.atomic():  # each example in a savepoint of its own, rolled back
        players = {code: PlayerFactory(code=code) for code in (*PLAYERS, "ana", "banca")}
        for code in ("ana", "banca"):
            cashier_buy_in(player=players[code], amount=Decimal("1000.00"), posted_by=staff["cashier"])
        tables = []
        for name, holder in (("Mesa A", "ana"), ("Mesa B", "banca")):
            table = TableFactory(name=name, rules=rules, min_bet=Decimal("5.00"),
                                 max_bet=Decimal("5.00" if rules == "tradicional" else "100.00"))
            services.table_bank_draw(table=table, holder=players[holder], capital=Decimal("500.00"),
                                     by=staff["supervisor"])
            deposit_bank(table)
            tables.append(table)
        for step in steps:
            if step[0] == "buy":
                cashier_buy_in(player=players[step[1]], amount=Decimal(step[2]) / 100, posted_by=staff["cashier"])
            elif step[0] == "cash":
                try:
                    cashier_cash_out(player=players[step[1]], amount=Decimal(step[2]) / 100,
                                     posted_by=staff["cashier"])
                except InsufficientChips:
                    pass
            else:
                _play_two_tables(tables, staff, step[1])
            _no_negative_player_balance()
        transaction.set_rollback(True)


def test_a_void_that_would_take_back_winnings_already_cashed_out_is_refused(mesa):
    """A settled hand's reversal takes back what it paid: not below the winner's chips."""
    hand = mesa.play(mesa.open("luis", "marta"), *DEAL, "luis bet 10", "luis card 2B", "luis stand",
                     "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand")
    assert hand.settlement["players"]["luis"] == "10.00"
    cashier_cash_out(player=mesa.players["luis"], amount=Decimal("505.00"), posted_by=mesa.cashier)  # 5.00 left
    with translation.override("en"), pytest.raises(InsufficientChips) as caught:
        services.hand_void(hand=hand, reason="wrong deck", voided_by=mesa.supervisor)
    assert (f"the reversal of transaction #{hand.transaction_id} takes back 10.00 € from luis, who holds 5.00 € in "
            "chips, 0.00 € of them at risk in open hands: his chips would go below zero") == str(caught.value)
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED
    cashier_buy_in(player=mesa.players["luis"], amount=Decimal("5.00"), posted_by=mesa.cashier)
    services.hand_void(hand=hand, reason="wrong deck", voided_by=mesa.supervisor)
    assert player_balance(player=mesa.players["luis"]) == Decimal("0.00")
