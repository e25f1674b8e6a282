"""The shift report's figures against a known shift worked out by hand (conftest
``played``: three settled hands, an undone card, a voided hand, a 7½ takeover)."""

from datetime import timedelta
from decimal import Decimal

from reports.shift import shift_report
from tables.models import Shift
from tests.reports.conftest import import_shift


def test_the_summary_of_a_known_shift(played):
    shift = played.close()
    Shift.objects.filter(pk=shift.pk).update(opened_at=shift.closed_at - timedelta(hours=2))
    shift.refresh_from_db()
    report = shift_report(shift)
    s = report["summary"]
    assert (s["hands"], s["settled"], s["voided"], s["open"]) == (4, 3, 1, 0)
    assert s["bets"] == 6
    assert s["handle"] == "80.00"  # 10 + 20, 10 + 10, 10 + 20
    assert s["players_net"] == "-10.00"  # +10 −20, +20 +10, −10 −20
    assert s["win"] == "10.00" and s["bank_net"] == "10.00" and s["commission"] == "0.00"
    assert s["hold_percent"] == "12.50"  # 10 / 80
    assert (s["naturals"], s["busts"], s["bank_naturals"], s["bank_busts"]) == (1, 1, 0, 0)
    assert (s["first_hand"], s["last_hand"]) == (1, 4)
    assert s["hours"] == "2.00" and s["hands_per_hour"] == "1.5"
    assert report["exceptions"] == []


def test_payouts_by_multiplier_results_and_kinds(played):
    report = shift_report(played.close())
    assert report["payouts"] == [
        {"multiplier": 1, "paid_count": 2, "paid_stake": "20.00", "paid": "20.00",
         "collected_count": 3, "collected_stake": "50.00", "collected": "50.00"},
        {"multiplier": 2, "paid_count": 1, "paid_stake": "10.00", "paid": "20.00",
         "collected_count": 0, "collected_stake": "0.00", "collected": "0.00"},
    ]
    assert {row["result"]: (row["count"], row["stake"], row["net"]) for row in report["results"]} == {
        "win": (2, "20.00", "20.00"), "natural": (1, "10.00", "20.00"), "lose": (2, "40.00", "-40.00"),
        "bust": (1, "10.00", "-10.00")}
    assert report["bet_kinds"]["seat"] == {"count": 6, "stake": "80.00", "net": "-10.00"}
    assert report["bet_kinds"]["loca"]["count"] == report["bet_kinds"]["side"]["count"] == 0


def test_each_player_and_each_tenure(played):
    report = shift_report(played.close())
    players = {row["player"]: (row["bets"], row["handle"], row["net"], row["ledger"]) for row in report["players"]}
    assert players == {"ana": (1, "10.00", "-10.00", "-10.00"), "luis": (2, "20.00", "30.00", "30.00"),
                       "marta": (3, "50.00", "-30.00", "-30.00")}
    tenures = [(row["holder"], row["began"], row["hands"], row["win"], row["bank_net"], row["ledger"])
               for row in report["tenures"]]
    assert tenures == [("ana", "draw", 2, "-20.00", "-20.00", "-20.00"),
                       ("luis", "natural", 1, "30.00", "30.00", "30.00")]
    assert report["tenures"][1]["capital"] == "200.00"  # the table's takeover capital


def test_voids_and_undos_say_who_and_why(played):
    report = shift_report(played.close())
    (void,) = report["voids"]
    assert (void["number"], void["voided_by"], void["reason"], void["posted"]) == (
        4, "pit1", "dealt from the wrong shoe", True)
    assert void["reversal"] is not None
    (undo,) = report["undos"]
    assert (undo["hand"], undo["sequence"], undo["reason"], undo["entered_by"]) == (
        3, 6, "the card was the 5 of oros", "dealer1")  # entry 6 undoes entry 5
    assert undo["undone"] == {"do": "card", "seat": "ana", "card": "4O"}


def test_reconciliation_agrees_to_the_cent(played):
    report = shift_report(played.close())
    lines = {line["what"]: (line["report"], line["ledger"], line["difference"])
             for line in report["reconciliation"]["lines"]}
    assert lines == {"players": ("-10.00", "-10.00", "0.00"), "bank": ("10.00", "10.00", "0.00"),
                     "house": ("0.00", "0.00", "0.00")}
    assert report["reconciliation"]["transactions"] == 4 and report["reconciliation"]["reversals"] == 1


def test_the_dealt_cards_and_their_chi_square(played):
    report = shift_report(played.close())
    (test,) = report["cards"]
    assert (test["deck"], test["size"], test["df"]) == ("spanish-40", 40, 39)
    assert test["dealt"] == 23  # 6 + 5 + 6 (the undone 4O is not dealt) + 6 for the voided hand
    assert test["counts"]["5O"] == 3 and test["counts"]["4O"] == 0 and test["counts"]["11B"] == 1
    # the tested cards: each hand's initial deal, two seats and the bank (5O 3C 2E, 7O 2C 5E, 3O 6C 2B, 5O 3C 2E)
    assert test["initial"] == 12
    assert (test["initial_counts"]["5O"], test["initial_counts"]["2B"], test["initial_counts"]["11B"]) == (2, 1, 0)
    assert test["expected"] == "0.30"
    assert 0 <= test["p_value"] <= 1 and test["chi_square"] > 0 and test["small"]


def test_the_chart_is_the_bank_running_balance(played):
    report = shift_report(played.close())
    assert report["chart"]["points"] == [[1, "10.00"], [2, "-20.00"], [3, "10.00"]]


def test_commission_multipliers_la_loca_and_side_bets(staff):
    """A profesional table with la loca, side bets, a 5 % commission and tradicional's
    bank 7½ collecting twice: the figures of two hands worked out by hand."""
    rules = {"profile": "profesional", "side_bets": True, "commission_rate": "0.05", "bank_natural_collects": 2}
    table = import_shift("Mesa C", [
        # luis 5 + 2 = 7 beats 6 (+10); pepe bets 10 on luis's seat (+10); marta 4 loses 20;
        # la loca 6½ beats 6: rosa +5. Bank −10 −10 +20 −5 = −5: no commission.
        (["luis", "marta"], ["luis deal 5O", "marta deal 3C", "bank deal 2E", "loca deal 12O", "luis bet 10",
                             "luis bet 10 by pepe", "luis card 2B", "luis stand", "marta bet 20",
                             "marta card 1O", "loca bet 5 by rosa", "marta stand", "loca card 6O", "loca stand",
                             "bank card 4E", "bank stand"]),
        # the bank's 7½ collects twice: luis −20, marta −40; la loca (no bets) stands.
        # Bank +60, commission 3.00 (5 %), the bank keeps 57.00.
        (["luis", "marta"], ["luis deal 5O", "marta deal 3C", "bank deal 7E", "loca deal 2O", "luis bet 10",
                             "luis card 1B", "luis stand", "marta bet 20", "marta card 2C", "marta stand",
                             "loca stand", "bank card 11E"]),
    ], staff, rules=rules)
    report = shift_report(table.shifts.get())
    s = report["summary"]
    assert (s["settled"], s["bets"], s["handle"]) == (2, 6, "75.00")  # 10 + 10 + 20 + 5, 10 + 20
    assert (s["win"], s["commission"], s["bank_net"]) == ("55.00", "3.00", "52.00")
    assert (s["side_bets"], s["loca_bets"], s["bank_naturals"]) == (1, 1, 1)
    assert report["bet_kinds"]["side"] == {"count": 1, "stake": "10.00", "net": "10.00"}
    assert report["bet_kinds"]["loca"] == {"count": 1, "stake": "5.00", "net": "5.00"}
    by_multiplier = {row["multiplier"]: row for row in report["payouts"]}
    assert by_multiplier[2]["collected_count"] == 2 and by_multiplier[2]["collected"] == "60.00"
    assert by_multiplier[1]["paid_count"] == 3 and by_multiplier[1]["paid"] == "25.00"
    lines = {line["what"]: line for line in report["reconciliation"]["lines"]}
    assert lines["house"]["report"] == lines["house"]["ledger"] == "3.00"
    assert report["exceptions"] == []
    assert Decimal(s["hold_percent"]) == Decimal("73.33")  # 55 / 75
