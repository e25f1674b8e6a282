"""Issue 32's options in the words of a table's or a hand's rules
(``tables.rules_words``), in English and Spanish; no database."""

from django.utils import translation

from game.profiles import pin_earlier_values
from tables.rules_words import deck_words, rules_words


def words(rules, language):
    with translation.override(language):
        return rules_words(rules)


def test_the_french_deck_in_words():
    rules = {"profile": "reglamento", "deck": "french-40"}
    assert "French deck of 40 cards (without 8, 9 and 10) (this table)" in words(rules, "en")
    assert "baraja francesa de 40 cartas (sin 8, 9 ni 10) (esta mesa)" in words(rules, "es")
    with translation.override("es"):
        assert deck_words("french-40") == "francesa de 40 cartas"


def test_profesional_says_its_one_card_cap_and_its_first_natural():
    en, es = words("profesional", "en"), words("profesional", "es")
    assert "a stand on one card carries at most 2× the minimum bet" in en
    assert "quien se planta con una sola carta lleva como mucho 2× la apuesta mínima" in es
    assert "(only the first in order of play; later ones are paid 1 to 1)" in en
    assert "(solo el primero en el orden de juego; los siguientes cobran 1 a 1)" in es
    assert "first two cards" not in en and "one card" not in words("reglamento", "en")


def test_a_hand_stored_before_the_cap_says_it_had_none():
    en = words(pin_earlier_values("profesional"), "en")
    assert en.startswith("Professional, with changes:")
    assert "any stake may stand on one card (this table)" in en and "at most 2×" not in en


def test_splits_of_pairs_and_la_locas_calls_where_the_rules_have_them():
    rules = {"profile": "profesional", "split_pairs": True, "max_hands": 2, "loca_calls": True}
    en, es = words(rules, "en"), words(rules, "es")
    assert "pairs of equal cards split like halves (this table)" in en
    assert "la loca played by its responsable's calls (dobla quien quiera, dobla, se planta) (this table)" in en
    assert "las parejas se abren como las medias (esta mesa)" in es
    assert "la loca la canta su responsable (dobla quien quiera, la loca dobla, la loca se planta)" in es
    plain = words("profesional", "en")
    assert "pairs" not in plain and "calls" not in plain
    off = words({"profile": "reglamento", "split_pairs": False, "loca_calls": False}, "en")
    assert "only halves split (this table)" in off and "la loca without calls (this table)" in off
