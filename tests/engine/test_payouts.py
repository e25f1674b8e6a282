"""The settlement table of rules.md, row by row, plus commission and the bank passing."""

import pytest

from tests.hands import nets, settled

TWO = dict(seats=["luis", "marta"])


def test_bust_pays_whatever_the_bank_does():
    s = settled("luis deal 7O", "marta deal 6C", "bank deal 5E", "luis bet 10", "luis card 5B",
                "marta bet 10", "marta stand", "bank card 4C", **TWO)
    assert nets(s)[("luis", "luis", 1)] == ("bust", 1, -1000)  # the bank bust too
    assert nets(s)[("marta", "marta", 1)] == ("win", 1, 1000)


@pytest.mark.parametrize("collects, vs_natural", [(1, 1), (2, 4), (3, 2)])
def test_the_banks_natural_collects_its_multipliers(collects, vs_natural):
    rules = {"profile": "reglamento", "bank_natural_collects": collects, "bank_natural_vs_natural": vs_natural}
    s = settled("luis deal 7O", "marta deal 6C", "bank deal 7E", "luis bet 10", "luis card 12B",
                "marta bet 10", "marta stand", "bank card 10C", rules=rules, **TWO)
    assert nets(s) == {("luis", "luis", 1): ("lose", vs_natural, -1000 * vs_natural),
                       ("marta", "marta", 1): ("lose", collects, -1000 * collects)}
    assert s.bank_net == 1000 * (collects + vs_natural)


def test_a_natural_beating_the_bank_is_paid_natural_pays():
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 11B", "bank stand",
                rules={"profile": "reglamento", "natural_pays": 3})
    assert nets(s)[("luis", "luis", 1)] == ("natural", 3, 3000)


def test_more_points_than_the_standing_bank_win_once_and_ties_go_to_the_bank():
    s = settled("luis deal 7O", "marta deal 6C", "bank deal 6E", "luis bet 10", "luis stand",
                "marta bet 10", "marta stand", "bank stand", **TWO)
    assert nets(s) == {("luis", "luis", 1): ("win", 1, 1000), ("marta", "marta", 1): ("lose", 1, -1000)}


def test_natural_pays_first_only_counts_split_hands_in_order():
    rules = {"profile": "reglamento", "natural_pays_first_only": True, "max_hands": None}
    s = settled("luis deal 11O", "marta deal 7C", "bank deal 2E", "luis bet 10", "luis card 10C",
                "luis split", "luis card 7B", "luis bet 10", "luis card 7E", "marta bet 10",
                "marta card 12C", "bank card 3E", "bank stand", rules=rules, **TWO)
    assert nets(s) == {("luis", "luis", 1): ("natural", 2, 2000), ("luis", "luis", 2): ("natural", 1, 1000),
                       ("marta", "marta", 1): ("natural", 1, 1000)}


def test_fusilado_and_la_loca_are_outside_the_first_natural_count():
    rules = {"profile": "profesional", "fusilar": True}
    s = settled("bank deal 2O", "luis deal 7O", "marta deal 7C", "loca deal 12O", "loca bet 10 by pepe",
                "luis bet 10", "luis fusilar 11E", "marta bet 10", "marta card 10E", "loca card 7B",
                "bank card 3C", "bank stand", rules=rules, bank="banca", **TWO)
    assert nets(s) == {("luis", "luis", 1): ("natural", 4, 4000), ("marta", "marta", 1): ("natural", 2, 2000),
                       ("pepe", "loca", 1): ("natural", 2, 2000)}


@pytest.mark.parametrize("rate, bank_result, commission", [
    ("0.05", 3333, 166), ("0.05", 20, 1), ("0.05", 19, 0), ("0.1", 2000, 200), ("0.025", 1000, 25)])
def test_commission_is_the_rates_share_of_a_winning_bank_rounded_down(rate, bank_result, commission):
    stake = f"{bank_result // 100}.{bank_result % 100:02d}"
    s = settled("luis deal 5O", "bank deal 6E", "luis bet " + stake, "luis stand", "bank stand",
                rules={"profile": "reglamento", "commission_rate": rate}, min_bet="0")
    assert s.bank_result == bank_result
    assert s.commission == commission and s.bank_net == bank_result - commission
    assert sum(s.players.values()) + s.bank_net + s.commission == 0


def test_no_commission_when_the_bank_loses():
    s = settled("luis deal 7O", "bank deal 6E", "luis bet 10", "luis stand", "bank stand",
                rules={"profile": "reglamento", "commission_rate": "0.05"})
    assert (s.bank_result, s.commission, s.bank_net) == (-1000, 0, -1000)


def test_the_first_natural_seat_in_order_takes_the_bank():
    s = settled("luis deal 11O", "marta deal 7C", "bank deal 2E", "luis bet 10", "luis card 10C",
                "luis split", "luis card 3B", "luis stand", "luis bet 10", "luis card 7E",
                "marta bet 10", "marta card 12C", "bank card 3E", "bank stand", **TWO)
    assert s.next_bank == "luis"  # his split hand made 7½ before marta's


def test_the_bank_keeps_the_bank_when_it_makes_seven_and_a_half_too():
    s = settled("luis deal 7O", "bank deal 7E", "luis bet 10", "luis card 11B", "bank card 12C")
    assert s.next_bank == "ana"


def test_muerto_natural_takes_the_bank():
    rules = {"profile": "profesional", "bank_passes_on_natural": True}
    s = settled("bank deal 2O", "luis deal 7O", "loca deal 3B", "luis bet 10", "luis muerto 11E 30",
                "loca stand", "bank card 4C", "bank stand", rules=rules, bank="banca")
    assert s.next_bank == "luis"


def test_without_bank_passes_the_bank_stays():
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 11B", "bank stand",
                rules={"profile": "reglamento", "bank_passes_on_natural": False})
    assert s.next_bank == "ana"


def test_the_printed_settlement_has_the_records_shape():
    s = settled("luis deal 7O", "bank deal 5E", "luis bet 10", "luis card 11B", "bank stand")
    assert s.as_dict() == {
        "bets": [{"player": "luis", "seat": "luis", "hand": 1, "stake": "10.00", "points": "7.5",
                  "result": "natural", "multiplier": 2, "net": "20.00"}],
        "players": {"luis": "20.00"},
        "bank": {"player": "ana", "points": "5", "net": "-20.00"},
        "commission": "0.00",
        "next_bank": "luis",
    }
