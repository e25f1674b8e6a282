"""The pit supervisor's pages and the hand history, through the test client (PostgreSQL):
shifts, the bank between hands, voids with their reversal, and every hand's record."""

import json
import re
from decimal import Decimal

import pytest
from django.db import connection
from django.urls import reverse

from game.payouts import settle
from game.record import play_record
from ledger.models import Transaction
from ledger.selectors import player_balance
from tables import services
from tables.models import BankTenure, Hand, Shift
from tables.selectors import hand_record
from tests.factories import PlayerFactory, TableFactory

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture
def pit(client, staff):
    client.force_login(staff["supervisor"])
    return client


def chips(mesa, code):
    return player_balance(player=mesa.players[code])


def page(response):
    return response.content.decode()


def open_tenure(table):
    return BankTenure.objects.get(table=table, closed_at__isnull=True)


# --------------------------------------------------------------------------- overview

def test_the_pit_sees_every_table_its_dealer_its_bank_and_its_hand_in_play(pit, mesa):
    TableFactory(name="Mesa 2")
    hand = mesa.open("luis", "marta")
    text = page(pit.get(reverse("tables:pit")))
    assert "Mesa 1" in text and "Mesa 2" in text and "dealer1" in text and "ana" in text
    assert reverse("tables:hand_detail", args=[mesa.table.pk, hand.number]) in text
    table_page = page(pit.get(reverse("tables:pit_table", args=[mesa.table.pk])))
    assert "100,00 €" in table_page  # the bank's balance, in Spanish
    assert reverse("tables:shift_close", args=[mesa.table.shifts.get().pk]) in table_page


def test_a_tables_page_says_its_rules_in_words_with_the_options_it_overrides(pit, mesa):
    mesa.table.rules = {"profile": "profesional", "deck": "french-40", "split_pairs": True, "loca_calls": True}
    mesa.table.save(update_fields=["rules"])
    rules = re.search(r'<p class="rules" id="rules">(.*?)</p>',
                      page(pit.get(reverse("tables:pit_table", args=[mesa.table.pk]))), re.S).group(1)
    assert "baraja francesa de 40 cartas (sin 8, 9 ni 10) (esta mesa)" in rules
    assert "las parejas se abren como las medias (esta mesa)" in rules
    assert "responsable" in rules and "2×" in rules  # la loca's calls; profesional's one-card cap


# --------------------------------------------------------------------------- shifts

def test_the_pit_opens_a_shift_for_a_dealer(pit, mesa, staff):
    mesa2 = TableFactory(name="Mesa 2")
    form = pit.get(reverse("tables:shift_open"), {"table": mesa2.pk})
    assert form.status_code == 200
    text = page(form)
    assert "dealer1" in text and "caja1" not in text  # only dealers are offered
    table_options = form.context["form"].fields["table"].queryset
    assert mesa.table not in table_options and mesa2 in table_options  # Mesa 1 has its shift already
    response = pit.post(reverse("tables:shift_open"), {"table": mesa2.pk, "dealer": staff["dealer"].pk})
    assert response.status_code == 302 and response["Location"] == reverse("tables:pit_table", args=[mesa2.pk])
    shift = Shift.objects.get(table=mesa2)
    assert (shift.dealer, shift.opened_by, shift.closed_at) == (staff["dealer"], staff["supervisor"], None)


def test_a_shift_is_refused_with_the_field_at_fault(pit, mesa, staff):
    mesa2 = TableFactory(name="Mesa 2")
    busy = pit.post(reverse("tables:shift_open"), {"table": mesa.table.pk, "dealer": staff["dealer"].pk})
    assert busy.status_code == 200 and "table" in busy.context["form"].errors
    not_a_dealer = pit.post(reverse("tables:shift_open"), {"table": mesa2.pk, "dealer": staff["cashier"].pk})
    assert not_a_dealer.status_code == 200 and list(not_a_dealer.context["form"].errors) == ["dealer"]
    assert Shift.objects.count() == 1


def test_a_shift_without_its_dealer_or_table_names_the_missing_field(pit, mesa):
    mesa2 = TableFactory(name="Mesa 2")
    missing = pit.post(reverse("tables:shift_open"), {"table": mesa2.pk, "dealer": ""})
    assert missing.status_code == 200
    assert missing.context["form"].errors == {"dealer": ["Elija el crupier del turno."]}
    nothing = pit.post(reverse("tables:shift_open"), {"table": "", "dealer": ""})
    assert nothing.context["form"].errors == {"table": ["Elija la mesa del turno."],
                                              "dealer": ["Elija el crupier del turno."]}
    assert Shift.objects.count() == 1


def test_closing_a_shift_asks_for_confirmation_first(pit, mesa, staff):
    shift = mesa.table.shifts.get()
    url = reverse("tables:shift_close", args=[shift.pk])
    confirm = pit.get(url)
    assert confirm.status_code == 200 and 'name="confirm" value="yes"' in page(confirm)
    pit.post(url)  # no confirmation: nothing happens
    shift.refresh_from_db()
    assert shift.is_open
    response = pit.post(url, {"confirm": "yes"})
    assert response.status_code == 302
    shift.refresh_from_db()
    assert shift.closed_by == staff["supervisor"] and shift.closed_at is not None


def test_a_shift_with_a_hand_open_is_not_closed(pit, mesa):
    hand = mesa.open("luis", "marta")
    shift = mesa.table.shifts.get()
    url = reverse("tables:shift_close", args=[shift.pk])
    assert f"#{hand.number}" in page(pit.get(url)) and 'name="confirm"' not in page(pit.get(url))
    response = pit.post(url, {"confirm": "yes"})
    assert response.status_code == 200 and f"#{hand.number}" in page(response)
    shift.refresh_from_db()
    assert shift.is_open


# --------------------------------------------------------------------------- the bank

def test_the_bank_is_drawn_for_after_a_confirmation_with_a_syndicate(pit, mesa):
    mesa2 = TableFactory(name="Mesa 2")
    url = reverse("tables:bank_draw", args=[mesa2.pk])
    data = {"holder": "pepe", "capital": "300,00", "shares": "pepe 60\nrosa 40"}
    confirm = pit.post(url, data)
    assert confirm.status_code == 200 and "tables/pit/bank_confirm.html" in [t.name for t in confirm.templates]
    assert [(m.player.code, m.capital, m.after) for m in confirm.context["members"]] == [
        ("pepe", Decimal("180.00"), Decimal("500.00")), ("rosa", Decimal("120.00"), Decimal("500.00"))]  # at the cage
    assert not BankTenure.objects.filter(table=mesa2).exists()  # nothing until confirmed
    response = pit.post(url, {**data, "confirm": "yes"})
    assert response.status_code == 302
    tenure = open_tenure(mesa2)
    assert (tenure.holder.code, tenure.capital, tenure.began) == ("pepe", Decimal("300.00"), "draw")
    assert sorted((s.player.code, s.percent) for s in tenure.shares.all()) == [
        ("pepe", Decimal("60.00")), ("rosa", Decimal("40.00"))]
    assert tenure.deposit_required  # the capital is deposited at the cage, the chips untouched
    assert (chips(mesa, "pepe"), chips(mesa, "rosa")) == (Decimal("500.00"), Decimal("500.00"))


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"holder": "nobody", "capital": "100"}, "holder", "nobody"),
    ({"holder": "pepe", "capital": "0"}, "capital", ""),
    ({"holder": "pepe", "capital": "10,001"}, "capital", ""),
    ({"holder": "pepe", "capital": "100", "shares": "pepe 60\nrosa 30"}, "shares", "90"),
    ({"holder": "pepe", "capital": "100", "shares": "pepe 60\nnadie 40"}, "shares", "nadie"),
    ({"holder": "pepe", "capital": "100", "shares": "pepe sesenta"}, "shares", "sesenta"),
])
def test_a_bad_draw_names_the_field_and_writes_nothing(pit, mesa, data, field, words):
    mesa2 = TableFactory(name="Mesa 2")
    response = pit.post(reverse("tables:bank_draw", args=[mesa2.pk]), data)
    errors = response.context["form"].errors
    assert response.status_code == 200 and field in errors and words in " ".join(errors[field])
    response = pit.post(reverse("tables:bank_draw", args=[mesa2.pk]), {**data, "confirm": "yes"})
    assert field in response.context["form"].errors
    assert not BankTenure.objects.filter(table=mesa2).exists()


def test_a_second_draw_at_a_table_with_a_bank_is_refused(pit, mesa):
    url = reverse("tables:bank_draw", args=[mesa.table.pk])
    assert "ana" in page(pit.get(url))  # the page says whose bank it is
    response = pit.post(url, {"holder": "pepe", "capital": "100", "confirm": "yes"})
    assert response.status_code == 200 and response.context["form"].non_field_errors()
    assert open_tenure(mesa.table).holder.code == "ana"


def test_the_bank_is_sold_with_its_price(pit, mesa):
    mesa.play(mesa.open("luis", "marta"), *P01)  # the bank wins 10: ana's bank holds 110
    url = reverse("tables:bank_sell", args=[mesa.table.pk])
    data = {"buyer": "pepe", "price": "50", "capital": "200"}
    confirm = pit.post(url, data)
    assert "pepe" in page(confirm) and "50,00 €" in page(confirm) and "200,00 €" in page(confirm)
    assert [(s.player.code, amount) for s, amount in confirm.context["handback"]] == [("ana", Decimal("160.00"))]
    assert [(m.player.code, m.capital, m.price, m.after) for m in confirm.context["members"]] == [
        ("pepe", Decimal("200.00"), Decimal("50.00"), Decimal("450.00"))]  # the capital at the cage
    assert pit.post(url, {**data, "confirm": "yes"}).status_code == 302
    tenure = open_tenure(mesa.table)
    assert (tenure.holder.code, tenure.began, tenure.price, tenure.seller.code) == ("pepe", "sale", Decimal("50.00"),
                                                                                   "ana")
    assert tenure.previous.ended == "sale"
    assert (chips(mesa, "ana"), chips(mesa, "pepe")) == (Decimal("660.00"), Decimal("450.00"))


def test_a_buyer_short_of_chips_is_told_before_the_confirmation(pit, mesa):
    response = pit.post(reverse("tables:bank_sell", args=[mesa.table.pk]),
                        {"buyer": "pepe", "price": "600", "capital": "200"})  # the price from his 500,00 of chips
    assert response.status_code == 200 and "pepe" in " ".join(response.context["form"].errors["price"])
    assert open_tenure(mesa.table).holder.code == "ana"


def test_a_sale_to_the_holder_is_refused_on_the_form_before_any_confirmation(pit, mesa):
    """Ana holds the bank: selling it to her is refused on the first post, on the buyer's
    field, with what was typed kept, no confirmation page, nothing written."""
    url = reverse("tables:bank_sell", args=[mesa.table.pk])
    before = Transaction.objects.count()
    response = pit.post(url, {"buyer": "ana", "price": "50,00", "capital": "200,00"})
    text = page(response)
    assert response.status_code == 200 and "members" not in response.context and 'name="confirm"' not in text
    assert "ana ya tiene esta banca" in " ".join(response.context["form"].errors["buyer"])
    for name, value in (("buyer", "ana"), ("price", "50,00"), ("capital", "200,00")):
        assert re.search(rf'name="{name}" value="{value}"', text), name
    assert open_tenure(mesa.table).holder.code == "ana" and Transaction.objects.count() == before


def test_the_bank_is_transferred_without_a_price(pit, mesa):
    response = pit.post(reverse("tables:bank_transfer", args=[mesa.table.pk]),
                        {"holder": "marta", "capital": "150", "confirm": "yes"})
    assert response.status_code == 302
    tenure = open_tenure(mesa.table)
    assert (tenure.holder.code, tenure.began, tenure.capital, tenure.price) == ("marta", "transfer",
                                                                               Decimal("150.00"), None)
    assert (chips(mesa, "ana"), chips(mesa, "marta")) == (Decimal("600.00"), Decimal("350.00"))  # from chips


def test_the_bank_does_not_change_during_a_hand(pit, mesa):
    mesa.open("luis", "marta")
    url = reverse("tables:bank_transfer", args=[mesa.table.pk])
    assert "#1" in page(pit.get(url))
    response = pit.post(url, {"holder": "pepe", "capital": "100", "confirm": "yes"})
    assert response.status_code == 200 and "#1" in " ".join(response.context["form"].non_field_errors())
    assert open_tenure(mesa.table).holder.code == "ana"


def test_a_bank_change_during_a_hand_is_refused_before_any_confirmation(pit, mesa):
    mesa.open("luis", "marta")
    url = reverse("tables:bank_transfer", args=[mesa.table.pk])
    response = pit.post(url, {"holder": "pepe", "capital": "100"})
    assert response.status_code == 200 and "members" not in response.context
    assert "la mano #1 está abierta" in " ".join(response.context["form"].non_field_errors())
    assert re.search(r'name="holder" value="pepe"', page(response))
    assert open_tenure(mesa.table).holder.code == "ana"


def test_a_pending_7_and_a_half_takeover_is_shown_before_a_sale(pit, mesa):
    mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10",
              "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand")
    text = page(pit.get(reverse("tables:bank_sell", args=[mesa.table.pk])))
    seven_and_a_half = ("7½", "siete y media")
    assert "luis" in text and any(words in text for words in seven_and_a_half)
    assert any(words in page(pit.get(reverse("tables:pit"))) for words in seven_and_a_half)


# --------------------------------------------------------------------------- voids

def test_a_settled_hand_is_voided_after_a_confirmation_and_its_posting_reversed(pit, mesa, staff):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    url = reverse("tables:hand_void", args=[mesa.table.pk, hand.number])
    assert pit.get(url).status_code == 200
    empty = pit.post(url, {"reason": "  "})
    assert "reason" in empty.context["form"].errors
    confirm = pit.post(url, {"reason": "cartas de otra baraja"})
    assert confirm.status_code == 200 and ("luis", Decimal("10.00"), Decimal("-10.00")) in confirm.context["nets"]
    hand.refresh_from_db()
    assert hand.status == Hand.Status.SETTLED  # not before the confirmation
    response = pit.post(url, {"reason": "cartas de otra baraja", "confirm": "yes"}, follow=True)
    assert response.redirect_chain[-1][0] == reverse("tables:hand_detail", args=[mesa.table.pk, hand.number])
    hand.refresh_from_db()
    assert (hand.status, hand.void_reason, hand.voided_by) == ("voided", "cartas de otra baraja", staff["supervisor"])
    reversal = hand.transaction.reversal
    assert reversal.kind == Transaction.Kind.REVERSAL and "cartas de otra baraja" in reversal.memo
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("500.00"), Decimal("500.00"))
    text = page(response)
    assert "cartas de otra baraja" in text and f"#{reversal.pk}" in text
    again = pit.post(url, {"reason": "otra vez", "confirm": "yes"})
    assert again.status_code == 200 and Transaction.objects.filter(kind="reversal").count() == 1


def test_an_open_hand_is_voided_and_the_table_plays_on(pit, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C")
    pit.post(reverse("tables:hand_void", args=[mesa.table.pk, hand.number]),
             {"reason": "mesa cerrada", "confirm": "yes"})
    hand.refresh_from_db()
    assert hand.status == Hand.Status.VOIDED and hand.transaction is None
    assert mesa.open("luis", "marta").number == 2


# --------------------------------------------------------------------------- hand history

def test_the_hand_list_is_paginated_and_filtered_by_status_and_shift(pit, mesa, staff):
    mesa.play(mesa.open("luis", "marta"), *P01)
    for _ in range(51):
        services.hand_void(hand=mesa.open("luis"), reason="prueba", voided_by=staff["supervisor"])
    first_shift = mesa.table.shifts.get()
    services.shift_close(shift=first_shift, closed_by=staff["supervisor"])
    second_shift = services.shift_open(table=mesa.table, dealer=staff["dealer"], opened_by=staff["supervisor"])
    mesa.open("luis")
    url = reverse("tables:hand_list", args=[mesa.table.pk])
    first = pit.get(url)
    assert [h.number for h in first.context["hands"]] == list(range(53, 3, -1))
    assert "page=2" in page(first)
    assert [h.number for h in pit.get(url, {"page": 2}).context["hands"]] == [3, 2, 1]
    assert [h.number for h in pit.get(url, {"status": "settled"}).context["hands"]] == [1]
    assert [h.number for h in pit.get(url, {"status": "open"}).context["hands"]] == [53]
    assert [h.number for h in pit.get(url, {"shift": second_shift.pk}).context["hands"]] == [53]
    by_shift = pit.get(url, {"shift": first_shift.pk, "status": "voided", "page": 2}).context["hands"]
    assert [h.number for h in by_shift] == [2]
    filtered = page(pit.get(url, {"status": "voided"}))
    assert "status=voided&amp;page=2" in filtered


def test_a_hand_page_shows_its_entries_undos_settlement_ledger_and_hashes(pit, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01[:4], "luis card 3B")
    hand = services.hand_undo(hand=hand, reason="era el 2 de bastos", entered_by=mesa.dealer)
    hand = mesa.play(hand, *P01[4:])
    response = pit.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number]))
    assert response.status_code == 200
    lines = response.context["entries"]
    assert [line.entry.kind for line in lines].count("undo") == 1
    assert lines[4].undone_by == 6 and lines[5].reason == "era el 2 de bastos"
    assert all(line.hash_ok for line in lines)
    text = page(response)
    for seen in ("dealer1", "luis", "marta", "era el 2 de bastos", lines[0].entry.hash, f"#{hand.transaction_id}",
                 "10,00", "-20,00"):
        assert seen in text
    assert reverse("tables:hand_record", args=[mesa.table.pk, hand.number]) in text


def test_a_hand_downloads_as_a_hand_record_that_settles_to_its_settlement(pit, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    response = pit.get(reverse("tables:hand_record", args=[mesa.table.pk, hand.number]))
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert 'attachment; filename="mesa-1-1.json"' == response["Content-Disposition"]
    record = json.loads(response.content)
    assert record == json.loads(json.dumps(hand_record(hand)))
    assert settle(play_record(record)).as_dict() == hand.settlement


def test_a_hand_with_a_face_down_card_still_unnamed_has_no_record_yet(pit, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal ?", "marta deal 3C")
    response = pit.get(reverse("tables:hand_record", args=[mesa.table.pk, hand.number]))
    assert response.status_code == 409


def test_an_entry_changed_behind_the_databases_back_shows_on_its_hand_and_in_the_chain(pit, mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    url = reverse("tables:hand_integrity", args=[mesa.table.pk])
    assert "intact" in page(pit.get(url))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # triggers off, as a superuser could
        cursor.execute("UPDATE tables_handevent SET event = jsonb_set(event, '{amount}', '\"100\"') "
                       "WHERE hand_id = %s AND sequence = 7", [hand.pk])
        cursor.execute("SET LOCAL session_replication_role = origin")
    lines = pit.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number])).context["entries"]
    assert [line.entry.sequence for line in lines if not line.hash_ok] == [7]
    assert pit.get(url).context["faults"]


def test_a_voided_hand_shows_its_void_entry_and_the_reversal(pit, mesa, staff):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    services.hand_void(hand=hand, reason="croupier equivocado", voided_by=staff["supervisor"])
    response = pit.get(reverse("tables:hand_detail", args=[mesa.table.pk, hand.number]))
    last = response.context["entries"][-1]
    assert (last.entry.kind, last.reason, last.entry.entered_by) == ("void", "croupier equivocado", staff["supervisor"])
    kinds = [txn.kind for txn, _legs in response.context["postings"]]
    assert kinds == ["hand", "reversal"]
    assert response.context["can_void"] is False


def test_an_unknown_hand_or_table_is_404(pit, mesa):
    assert pit.get(reverse("tables:hand_detail", args=[mesa.table.pk, 99])).status_code == 404
    assert pit.get(reverse("tables:hand_list", args=[9999])).status_code == 404
    assert pit.get(reverse("tables:bank_draw", args=[9999])).status_code == 404


def test_the_players_of_the_pages_are_registered_players(pit, mesa):
    PlayerFactory(code="nuevo")
    mesa2 = TableFactory(name="Mesa 2")
    response = pit.post(reverse("tables:bank_draw", args=[mesa2.pk]), {"holder": "nuevo", "capital": "10"})
    # no chips needed: the capital is deposited at the cage
    assert [(m.player.code, m.capital) for m in response.context["members"]] == [("nuevo", Decimal("10.00"))]
    response = pit.post(reverse("tables:bank_draw", args=[mesa2.pk]), {"holder": "nadie", "capital": "10"})
    assert "nadie" in " ".join(response.context["form"].errors["holder"])
