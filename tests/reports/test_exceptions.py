"""Reconciliation and audit exceptions: the ledger or the table's records changed behind
the services' back (as a superuser could, triggers off) are shown, never hidden."""

import json

from django.db import connection

from ledger import posting
from ledger.models import Account, Entry
from reports.audit import card_test
from reports.shift import shift_report
from tables.models import Hand
from tests.reports.conftest import P01


def behind_the_back(sql, params=()):
    """Run SQL with the triggers off (``session_replication_role = replica``), then on.

    The ledger's deferred checks of what was posted so far fire first (the data is sound
    then), so that only the report, not the test's end, meets the tampering."""
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def codes(report):
    return [item["code"] for item in report["exceptions"]]


def test_a_ledger_entry_changed_behind_the_back_is_a_reconciliation_exception(played):
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    luis = Account.objects.get(player__code="luis")
    entry = Entry.objects.get(transaction=first.transaction, account=luis)
    behind_the_back("UPDATE ledger_entry SET amount = amount + 1 WHERE id = %s", [entry.pk])
    report = shift_report(shift)
    lines = {line["what"]: line for line in report["reconciliation"]["lines"]}
    assert lines["players"] == {"what": "players", "report": "-10.00", "ledger": "-9.00", "difference": "-1.00"}
    assert "reconciliation" in codes(report)
    (luis_differs,) = [item for item in report["exceptions"] if item["code"] == "player_differs"]
    assert (luis_differs["player"], luis_differs["report"], luis_differs["ledger"]) == ("luis", "30.00", "31.00")
    assert report["reconciliation"]["hands"] == [{"hand": 1, "report": "-10.00", "ledger": "-9.00",
                                                  "difference": "-1.00"}]


def test_a_bank_entry_changed_shows_on_its_tenure(played):
    shift = played.close()
    third = Hand.objects.get(table=played.table, number=3)
    bank = Account.objects.get(tenure=third.tenure)
    entry = Entry.objects.filter(transaction=third.transaction, account=bank).first()
    behind_the_back("UPDATE ledger_entry SET amount = amount - 0.01 WHERE id = %s", [entry.pk])
    report = shift_report(shift)
    (differs,) = [item for item in report["exceptions"] if item["code"] == "tenure_differs"]
    assert (differs["holder"], differs["report"], differs["ledger"]) == ("luis", "30.00", "29.99")


def test_a_settled_hand_reversed_in_the_ledger_but_not_voided(played):
    third = Hand.objects.get(table=played.table, number=3)  # luis's bank, still open
    posting.reverse(transaction=third.transaction, reason="a cashier's mistake", posted_by=played.supervisor)
    report = shift_report(played.close())
    assert {"code": "reversed_not_voided", "hand": 3,
            "transaction": third.transaction.reversal.pk} in report["exceptions"]
    lines = {line["what"]: line["difference"] for line in report["reconciliation"]["lines"]}
    assert lines == {"players": "-30.00", "bank": "30.00", "house": "0.00"}  # the hand's −30 / +30 undone


def test_a_void_never_reversed(played):
    fourth = Hand.objects.get(table=played.table, number=4)
    reversal = fourth.transaction.reversal
    behind_the_back("DELETE FROM ledger_entry WHERE transaction_id = %s", [reversal.pk])
    behind_the_back("DELETE FROM ledger_transaction WHERE id = %s", [reversal.pk])
    report = shift_report(played.close())
    assert {"code": "void_not_reversed", "hand": 4} in report["exceptions"]
    assert {"code": "voids_not_cancelled", "amount": "0.00", "accounts": 3} in report["exceptions"]
    assert report["reconciliation"]["reversals"] == 0


def test_a_gap_in_the_hand_numbers(played):
    shift = played.close()
    behind_the_back("UPDATE tables_hand SET number = 6 WHERE table_id = %s AND number = 4", [played.table.pk])
    report = shift_report(shift)
    (gap,) = [item for item in report["exceptions"] if item["code"] == "gaps"]
    assert gap["numbers"] == [4, 5] and gap["count"] == 2


def test_a_changed_entry_breaks_the_chain(played):
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    behind_the_back("UPDATE tables_handevent SET event = %s WHERE hand_id = %s AND sequence = 5",
                    [json.dumps({"do": "card", "seat": "luis", "card": "3B"}), first.pk])
    report = shift_report(shift)
    assert {"code": "chain_changed", "hand": 1, "sequence": 5} in report["exceptions"]
    assert report["chain"]["entries"] == 11 + 9 + 12 + 12  # every entry of the four hands, undo and void too


def test_a_removed_entry_breaks_the_link(played):
    shift = played.close()
    second = Hand.objects.get(table=played.table, number=2)
    behind_the_back("DELETE FROM tables_handevent WHERE hand_id = %s AND sequence = 3", [second.pk])
    report = shift_report(shift)
    assert {"code": "chain_link", "hand": 2, "sequence": 4} in report["exceptions"]


def test_a_hand_left_open(mesa):
    mesa.hand(["luis", "marta"], P01)
    mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C")
    report = shift_report(mesa.shift)
    assert {"code": "open_hands", "numbers": [2]} in report["exceptions"]
    assert report["summary"]["open"] == 1 and report["shift"]["open"] is True


def test_cards_unlikely_from_a_uniform_deck_are_an_exception(played):
    shift = played.close()
    seats = [f"p{n}" for n in range(249)]  # 249 seats and the bank: 250 cards in the initial deal
    behind_the_back("UPDATE tables_hand SET cards = %s, seats = %s WHERE shift_id = %s AND number = 1",
                    [json.dumps(["1O"] * 150 + ["2O"] * 100), json.dumps(seats), shift.pk])
    report = shift_report(shift)
    (skew,) = [item for item in report["exceptions"] if item["code"] == "cards_not_uniform"]
    assert skew["p_value"] < 1e-6 and skew["df"] == 39


def test_chi_square_of_dealt_cards():
    uniform = card_test({name: 10 for name in ["1O", "2O", "3O", "4O", "5O", "6O", "7O", "10O", "11O", "12O",
                                               "1C", "2C", "3C", "4C", "5C", "6C", "7C", "10C", "11C", "12C",
                                               "1E", "2E", "3E", "4E", "5E", "6E", "7E", "10E", "11E", "12E",
                                               "1B", "2B", "3B", "4B", "5B", "6B", "7B", "10B", "11B", "12B"]},
                        "spanish-40")
    assert (uniform["dealt"], uniform["chi_square"], uniform["p_value"], uniform["small"]) == (400, 0.0, 1.0, False)
    skewed = card_test({"1O": 300, "2O": 100}, "spanish-40")
    assert skewed["p_value"] < 1e-100
    short = card_test({"10O": 2, "11O": 3}, "spanish-36")
    assert (short["size"], short["df"], short["dealt"], short["outside"]) == (36, 35, 5, {"10O": 2})
    assert short["initial"] == 3  # the sotas are outside the deck: not in the test
    later_cards = card_test({"1O": 50, "12O": 50}, "spanish-40", initial={"1O": 5, "12O": 5})
    assert (later_cards["dealt"], later_cards["initial"], later_cards["expected"]) == (100, 10, "0.25")


def test_a_card_outside_a_36_card_deck(staff):
    from tests.reports.conftest import import_shift

    rules = {"profile": "reglamento", "deck": "spanish-36"}
    table = import_shift("Mesa 36", [(["luis", "marta"], P01)], staff, rules=rules)
    shift = table.shifts.get()
    behind_the_back("UPDATE tables_hand SET cards = %s WHERE shift_id = %s",
                    [json.dumps(["5O", "3C", "10E", "2B"]), shift.pk])
    report = shift_report(shift)
    assert {"code": "cards_outside_deck", "deck": "spanish-36", "cards": {"10E": 1}} in report["exceptions"]
    assert report["cards"][0]["size"] == 36
