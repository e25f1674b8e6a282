"""Hands entered through the services, settled into the ledger (PostgreSQL)."""

import json
import subprocess
import sys
import uuid
from decimal import Decimal

import pytest
from django.db import DatabaseError, connection, transaction
from django.utils import translation

from ledger.errors import CoverExceeded
from ledger.models import Transaction
from ledger.selectors import player_balance
from tables import importing, services
from tables.errors import HandNotOpen, NotTheDealer, RuleBroken, StaleHand, TableError
from tables.integrity import chain_faults, number_gaps
from tables.models import BankTenure, Hand, HandEvent
from tables.selectors import hand_record
from tests.conftest import ROOT
from tests.hands import event


@pytest.fixture(autouse=True)
def english():
    """These tests read the services' messages in English; the table's Spanish is tested
    on its own (test_engine_messages_are_translated_for_the_table)."""
    with translation.override("en"):
        yield


P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def chips(mesa, code):
    return player_balance(player=mesa.players[code])


def test_a_finished_hand_is_settled_and_posted_with_its_last_event(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    assert hand.status == Hand.Status.SETTLED and hand.number == 1
    assert hand.settlement["players"] == {"luis": "10.00", "marta": "-20.00"}
    assert hand.transaction.kind == Transaction.Kind.HAND
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("510.00"), Decimal("480.00"))
    assert hand.tenure.account.balance == Decimal("110.00")
    assert hand.events.count() == len(P01) and hand.version == len(P01)


def test_an_illegal_entry_says_which_rule_and_writes_nothing(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    with pytest.raises(RuleBroken) as caught:
        services.hand_record_event(hand=hand, event=event("marta bet 5"), entered_by=mesa.dealer,
                                   expected_version=hand.version)
    assert caught.value.rule == "turn" and "luis" in str(caught.value)
    hand.refresh_from_db()
    assert hand.version == 3 and hand.events.count() == 3


def test_engine_messages_are_translated_for_the_table(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    with translation.override("es"), pytest.raises(RuleBroken) as caught:
        services.hand_record_event(hand=hand, event=event("luis bet 500"), entered_by=mesa.dealer)
    assert caught.value.rule == "max_bet"
    assert str(caught.value) == "la apuesta de una jugada no puede pasar de 100,00 €, no 500,00 €"
    services.hand_record_event(hand=hand, event=event("luis bet 60"), entered_by=mesa.dealer)
    with translation.override("es"), pytest.raises(RuleBroken) as caught:  # a raise says what it would make
        services.hand_record_event(hand=hand, event=event("luis bet 50"), entered_by=mesa.dealer)
    assert str(caught.value) == "la apuesta de una jugada no puede pasar de 100,00 €; 50,00 € más harían 110,00 €"


def test_an_entry_on_a_stale_screen_is_refused(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    services.hand_record_event(hand=hand, event=event("luis bet 10"), entered_by=mesa.dealer, expected_version=3)
    with pytest.raises(StaleHand):
        services.hand_record_event(hand=hand, event=event("luis bet 10"), entered_by=mesa.dealer, expected_version=3)
    hand.refresh_from_db()
    assert hand.version == 4


def test_the_console_enters_on_its_tables_open_hand_as_its_shifts_dealer_only(mesa, staff):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    entry = {"table_id": mesa.table.pk, "event": event("luis bet 10"), "expected_version": 3}
    with pytest.raises(StaleHand):  # a screen of an earlier hand
        services.console_record_event(**entry, number=hand.number - 1, dealer=mesa.dealer, form_token=uuid.uuid4())
    with pytest.raises(NotTheDealer):
        services.console_record_event(**entry, number=hand.number, dealer=staff["supervisor"], form_token=uuid.uuid4())
    assert Hand.objects.get(pk=hand.pk).version == 3
    hand, entries, state = services.console_record_event(**entry, number=hand.number, dealer=mesa.dealer,
                                                         form_token=uuid.uuid4())
    assert hand.version == 4 and entries[-1] == ("event", event("luis bet 10")) and state.legal().phase
    mesa.play(hand, "luis card 2B", "luis stand", "marta bet 20", "marta card 1O", "marta stand", "bank card 4E",
              "bank stand")
    with pytest.raises(HandNotOpen):
        services.console_record_event(**entry, number=hand.number, dealer=mesa.dealer, form_token=uuid.uuid4())


def test_the_console_opens_the_next_hand_as_its_shifts_dealer_after_the_hand_its_screen_showed(mesa, staff):
    opening = {"table_id": mesa.table.pk, "seats": ["luis", "marta"]}
    with pytest.raises(NotTheDealer):
        services.console_open_hand(**opening, dealer=staff["supervisor"], after=0)
    with pytest.raises(StaleHand):  # the screen showed a hand the table does not have
        services.console_open_hand(**opening, dealer=mesa.dealer, after=1)
    assert not Hand.objects.filter(table=mesa.table).exists()
    hand, entries, state = services.console_open_hand(**opening, dealer=mesa.dealer, after=0)
    assert (hand.number, hand.bank.code, hand.seats) == (1, "ana", ["luis", "marta"])
    assert hand.shift.dealer == mesa.dealer and hand.table.last_hand_number == 1
    assert entries == [] and state.legal().phase
    with pytest.raises(StaleHand):  # the same form again
        services.console_open_hand(**opening, dealer=mesa.dealer, after=0)
    with pytest.raises(HandNotOpen):  # hand 1 is still open
        services.console_open_hand(**opening, dealer=mesa.dealer, after=1)
    assert Hand.objects.filter(table=mesa.table).count() == 1


def test_the_same_form_twice_records_once(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E")
    token = uuid.uuid4()
    for _ in range(2):
        hand = services.hand_record_event(hand=hand, event=event("luis bet 10"), entered_by=mesa.dealer,
                                          expected_version=3, form_token=token)
    assert hand.version == 4 and HandEvent.objects.filter(form_token=token).count() == 1


def test_undo_is_recorded_and_the_hand_plays_on_without_the_undone_event(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10",
                     "luis card 2B")
    with pytest.raises(TableError):
        services.hand_undo(hand=hand, reason="  ", entered_by=mesa.dealer, expected_version=hand.version)
    hand = services.hand_undo(hand=hand, reason="wrong card: it was the 1 of bastos", entered_by=mesa.dealer,
                              expected_version=hand.version)
    undo = hand.events.get(sequence=6)
    assert undo.kind == "undo" and undo.event == {"undo": 5, "reason": "wrong card: it was the 1 of bastos"}
    hand = mesa.play(hand, "luis card 1B", "luis stand", "marta bet 20", "marta card 1O", "marta stand",
                     "bank card 4E", "bank stand")
    assert hand.settlement["bets"][0]["points"] == "6"  # 5 + 1, not 5 + 2


def test_void_reverses_the_posting(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    with pytest.raises(TableError):
        services.hand_void(hand=hand, reason="", voided_by=mesa.supervisor)
    hand = services.hand_void(hand=hand, reason="cards dealt from a wrong deck", voided_by=mesa.supervisor)
    assert hand.status == Hand.Status.VOIDED
    assert hand.transaction.reversal is not None
    assert (chips(mesa, "luis"), chips(mesa, "marta")) == (Decimal("500.00"), Decimal("500.00"))
    with pytest.raises(HandNotOpen):
        services.hand_record_event(hand=hand, event=event("bank stand"), entered_by=mesa.dealer)


def test_hands_are_numbered_without_gaps_and_a_natural_takes_the_bank(mesa):
    first = mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10",
                      "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand")
    assert first.next_bank == "luis"
    assert services.pending_bank_holder(mesa.table).code == "luis"
    second = mesa.open("ana", "marta")
    assert second.number == 2 and second.bank.code == "luis"
    tenure = second.tenure
    assert tenure.began == BankTenure.Began.NATURAL and tenure.capital == Decimal("200.00")
    assert tenure.previous.ended == BankTenure.Ended.NATURAL
    assert number_gaps(mesa.table) == []


def test_a_hand_opens_only_when_none_is_open_and_a_voided_one_passes_no_bank(mesa):
    """The open hand is the table's latest not voided: a second opening is refused while it
    plays; voided, it neither blocks the next hand nor changes who takes the bank."""
    mesa.play(mesa.open("luis", "marta"), "luis deal 7O", "marta deal 2C", "bank deal 5E", "luis bet 10",
              "luis card 11B", "marta bet 10", "marta card 4C", "marta stand", "bank stand")
    second = mesa.open("ana", "marta")
    with pytest.raises(HandNotOpen) as caught:
        mesa.open("ana", "rosa")
    assert "#2" in str(caught.value)
    services.hand_void(hand=second, reason="misdeal", voided_by=mesa.supervisor)
    third = mesa.open("ana", "rosa")
    assert third.number == 3 and third.bank.code == "luis" and third.tenure_id == second.tenure_id
    assert Hand.objects.filter(table=mesa.table, status=Hand.Status.OPEN).count() == 1


def test_a_seat_must_be_a_registered_player_other_than_the_bank(mesa):
    with pytest.raises(TableError) as caught:
        mesa.open("luis", "nobody")
    assert caught.value.field == "seats" and "nobody" in str(caught.value)
    with pytest.raises(TableError):
        mesa.open("luis", "ana")


def test_bank_cover_caps_the_stakes_at_what_the_bank_holds(mesa):
    mesa.table.bank_cover = True
    mesa.table.save()
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 60",
                     "luis stand")
    with pytest.raises(CoverExceeded) as caught:
        services.hand_record_event(hand=hand, event=event("marta bet 50"), entered_by=mesa.dealer)
    assert "10,00" in str(caught.value) or "10.00" in str(caught.value)


def test_face_down_cards_entered_unknown_are_named_before_the_hand_settles(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal ?", "marta deal ?", "bank deal ?", "luis bet 10",
                     "luis card 2B", "luis stand", "marta bet 20", "marta card 1O", "marta stand",
                     "bank reveal 2E", "bank card 4E", "bank stand")
    assert hand.status == Hand.Status.OPEN
    hand = mesa.play(hand, "luis identify 1 5O", "marta identify 1 3C")
    assert hand.status == Hand.Status.SETTLED
    assert hand.settlement["players"] == {"luis": "10.00", "marta": "-20.00"}


def test_a_hand_exported_as_a_record_settles_to_its_ledger_totals(mesa, tmp_path):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal ?", "marta deal ?", "bank deal ?", "luis bet 10",
                     "luis card 7B", "luis stand", "marta bet 20", "marta card 1O", "marta stand",
                     "bank reveal 2E", "bank card 4E", "bank stand", "luis identify 1 11O", "marta identify 1 3C")
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand_record(hand)))
    done = subprocess.run([sys.executable, "manage.py", "settle", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
    replay = json.loads(done.stdout)
    assert replay["players"] == hand.settlement["players"] == {"luis": "20.00", "marta": "-20.00"}
    assert replay["bank"] == hand.settlement["bank"]


def test_shift_close_waits_for_the_open_hand_and_announces_itself(mesa, django_capture_on_commit_callbacks):
    shift = mesa.table.shifts.get()
    hand = mesa.open("luis", "marta")
    with pytest.raises(HandNotOpen):
        services.shift_close(shift=shift, closed_by=mesa.supervisor)
    services.hand_void(hand=hand, reason="table closed early", voided_by=mesa.supervisor)
    received = []

    def listener(sender, shift_id, **kwargs):
        received.append(shift_id)

    services.shift_closed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            services.shift_close(shift=shift, closed_by=mesa.supervisor)
    finally:
        services.shift_closed.disconnect(listener)
    assert received == [shift.pk]


# --------------------------------------------------------------------------- integrity

def test_the_hash_chain_is_intact_and_catches_a_change_behind_the_triggers_back(mesa):
    mesa.play(mesa.open("luis", "marta"), *P01)
    assert chain_faults(mesa.table) == []
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")  # triggers off, as a superuser could
        cursor.execute("UPDATE tables_handevent SET event = jsonb_set(event, '{amount}', '\"100\"') "
                       "WHERE sequence = 7")
        cursor.execute("SET LOCAL session_replication_role = origin")
    faults = chain_faults(mesa.table)
    assert len(faults) == 1 and "changed" in faults[0]


def test_entries_and_hands_are_guarded_by_the_database(mesa):
    hand = mesa.play(mesa.open("luis", "marta"), *P01)
    for sql in ("UPDATE tables_handevent SET kind = 'undo' WHERE hand_id = %s",
                "DELETE FROM tables_handevent WHERE hand_id = %s",
                "DELETE FROM tables_hand WHERE id = %s",
                "UPDATE tables_hand SET status = 'open' WHERE id = %s",
                "UPDATE tables_hand SET seats = '[\"pepe\"]' WHERE id = %s"):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, [hand.pk])
    with pytest.raises(DatabaseError), transaction.atomic():
        Hand.objects.create(table=mesa.table, number=3, tenure=hand.tenure, bank=hand.bank, seats=["luis"],
                            rules=hand.rules, min_bet=hand.min_bet, max_bet=hand.max_bet)


# --------------------------------------------------------------------------- imports

def test_an_imported_record_is_recorded_and_settled_through_the_same_services(mesa):
    from tables.errors import RecordRefused
    from tests.hands import record

    rec = record(*P01, seats=["luis", "marta"], table="Mesa 1", number=1)
    hand = importing.hand_import_record(record=rec)
    assert hand.status == Hand.Status.SETTLED and hand.imported and hand.events.count() == len(P01)
    assert hand.bets.count() == 2 and hand.cards == ["5O", "3C", "2E", "2B", "1O", "4E"]
    with pytest.raises(RecordRefused) as caught:
        importing.hand_import_record(record={**rec, "number": 1})
    assert caught.value.event == 0 and "#2" in str(caught.value)
    with pytest.raises(RecordRefused) as caught:
        importing.hand_import_record(record={**rec, "number": 2, "bank": "pepe"})
    assert "ana" in str(caught.value)
    bad = record(*P01[:6], "marta bet 500", *P01[7:], seats=["luis", "marta"], table="Mesa 1")
    with pytest.raises(RecordRefused) as caught:
        importing.hand_import_record(record=bad)
    assert caught.value.event == 7
    assert Hand.objects.filter(table=mesa.table).count() == 1


def test_an_import_creates_a_missing_table_only_when_asked(db):
    from tables.errors import RecordRefused
    from tests.hands import record

    rec = record(*P01, seats=["luis", "marta"], table="Mesa 9", rules="reglamento", min_bet="5", max_bet="100")
    with pytest.raises(RecordRefused):
        importing.hand_import_record(record=rec)
    hand = importing.hand_import_records(records=[rec], create_tables=True, opening_chips=Decimal("100"))[0]
    assert hand.table.name == "Mesa 9" and hand.tenure.holder.code == "ana"
    with pytest.raises(RecordRefused) as caught:
        importing.hand_import_record(record={**rec, "rules": {"profile": "reglamento", "side_bets": True}})
    assert "rules" in str(caught.value)


def test_an_imported_record_where_the_bank_plays_though_nothing_stands_is_settled_at_its_end(mesa):
    from tests.hands import record

    rec = record("luis deal 7O", "bank deal 6E", "luis bet 10", "luis card 1B", "bank card 2B",
                 table="Mesa 1")
    hand = importing.hand_import_record(record=rec)
    assert hand.status == Hand.Status.SETTLED and hand.events.count() == 5
    assert hand.settlement["bank"] == {"player": "ana", "points": "8", "net": "10.00"}
