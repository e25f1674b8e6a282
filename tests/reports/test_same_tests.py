"""Tests of the same bets made once (``reports.detection.same_tests``): a shift with one
dealer and one bank holder has its dealer × bank pair the same hands as the whole shift,
and each dealer × player pair the same bets as the bank holder × player; each such test
is made, and alerts, once, naming the others. Different bets stay apart."""

from django.utils import translation

from reports.detection import same_tests
from reports.models import AlertKind
from reports.texts import pooled_text, same_words, with_same


def line(kind, code, *, hands=50, staked=220.0, actual=-75.0, expected=12.99, sd=22.77, **names):
    return {"kind": kind, "code": code, "hands": hands, "staked": staked, "actual": actual, "expected": expected,
            "sd": sd, "p_value": 0.0001, **names}


def test_the_same_bets_are_one_test_naming_the_others():
    whole = line(AlertKind.EXPECTED, "all", group="shift:25", hand_ids=None)
    pair = line(AlertKind.PAIR, "dealer×bank", a="d3", b="h3", hand_ids=list(range(50)))
    player = line(AlertKind.PAIR, "bank×player", a="h3", b="p5", staked=58.0, actual=-29.0, expected=3.43, sd=8.81,
                  hand_ids=list(range(50)))
    same_player = line(AlertKind.PAIR, "dealer×player", a="d3", b="p5", staked=58.0, actual=-29.0, expected=3.43,
                       sd=8.81, hand_ids=list(range(50)))
    other = line(AlertKind.PAIR, "dealer×player", a="d3", b="p1", staked=58.0, actual=-29.0, expected=3.43, sd=8.81,
                 hand_ids=list(range(1, 51)))  # the same figures, other hands: another test
    cards = {"kind": AlertKind.CARDS, "code": "first:seats", "p_value": 0.5}
    kept, copies = same_tests([whole, pair, player, same_player, other, cards])
    assert kept == [whole, player, other, cards]
    assert copies == {id(whole): [pair], id(player): [same_player]}
    assert whole["same"] == [{"kind": "pair", "code": "dealer×bank", "a": "d3", "b": "h3"}]
    assert player["same"] == [{"kind": "pair", "code": "dealer×player", "a": "d3", "b": "p5"}]
    assert "same" not in other


def test_untested_lines_are_never_merged():
    a = {**line(AlertKind.EXPECTED, "dealer", group="d1", hand_ids=[1]), "p_value": None}
    b = {**line(AlertKind.EXPECTED, "tenure", group=7, hand_ids=[1]), "p_value": None}
    assert same_tests([a, b]) == ([a, b], {})


def test_the_others_are_named_in_the_readers_language():
    e = {"same": [{"kind": "pair", "code": "dealer×player", "a": "d3", "b": "p5"}, {"code": "player", "a": "p5",
                                                                                      "b": None}]}
    with translation.override("en"):
        assert same_words(e) == "d3 × p5 (dealer × player), p5 (player over all tables)"
        assert with_same("x", {}) == "x"
    with translation.override("es"):
        assert with_same("x", e) == "x; las mismas apuestas que d3 × p5 (crupier × jugador), p5 (jugador en todas las mesas)"


def test_a_pooled_finding_opens_with_its_people_then_what_was_added_up():
    """The group's people first, its kind in brackets (``p5 (jugador en todas las mesas)``, not
    ``Jugador en todas las mesas p5``), in both languages, the figures in the reader's format."""
    e = {"a": "p5", "b": None, "window": "week", "from": "2026-11-16", "to": "2026-11-22", "hands": 600,
         "tables": 3, "shifts": 12, "actual": "166.00", "expected": "20.50", "z": 4.33, "p_value": 1.5e-05,
         "combined_q": 0.004}
    with translation.override("en"):
        assert pooled_text("player", e).startswith("p5 (player over all tables) over the week (")
    with translation.override("es"):
        text = pooled_text("player", e)
        assert text.startswith("p5 (jugador en todas las mesas), en la semana (")
        assert "600 manos en 3 mesas y 12 turnos): la banca ganó 166,00 € donde se esperaban 20,50 €" in text
        footprint = pooled_text("footprint:dealer×player", {**e, "a": "d1", "b": "p1", "observed": 68,
                                                             "expected_count": 48.0, "rate": 0.32,
                                                             "baseline": "others", "baseline_hands": 4050})
        assert footprint.startswith("d1 × p1 (crupier × jugador, manos ganadas con 7½ o con la banca pasada), "
                                    "en la semana (")


def test_one_table_and_one_shift_read_in_the_singular():
    """Seen on the shipped stack: "40 manos en 1 mesas y 1 turnos"."""
    e = {"a": "dealer2", "b": "ana", "window": "day", "from": "2026-11-27", "to": "2026-11-27", "hands": 40,
         "tables": 1, "shifts": 1, "actual": -37.0, "expected": 2.76, "z": -5.03, "p_value": 4.8e-07,
         "combined_q": 7.7e-06, "observed": 30, "expected_count": 12.4, "rate": 0.31, "baseline": "others",
         "baseline_hands": 2000}
    with translation.override("en"):
        assert "40 hands at 1 table in 1 shift): the bank lost 37.00 €" in pooled_text("dealer×player", e)
        assert "1 table in 1 shift): ana won" in pooled_text("footprint:dealer×player", e)
        assert "50 hands at 2 tables in 3 shifts)" in pooled_text("dealer×player", {**e, "hands": 50, "tables": 2,
                                                                                    "shifts": 3})
    with translation.override("es"):
        assert "40 manos en 1 mesa y 1 turno): la banca perdió 37,00 €" in pooled_text("dealer×player", e)
        assert "1 mesa y 1 turno): ana ganó" in pooled_text("footprint:dealer×player", e)


def test_a_bank_that_lost_reads_lost_never_won_a_negative_amount():
    """Seen on the shipped stack: "la banca ganó -37,00 €" for a pair the bank lost."""
    from reports.texts import alert_text

    pair = {"a": "banca", "b": "ana", "hands": 40, "actual": -37.0, "expected": 2.76, "z": -5.03,
            "p_value": 4.89e-07, "combined_q": 9.78e-06}
    pooled = {"a": "p5", "b": None, "window": "week", "from": "2026-11-16", "to": "2026-11-22", "hands": 600,
              "tables": 3, "shifts": 12, "actual": -61.0, "expected": 10.38, "z": -3.42, "p_value": 6.2e-4,
              "combined_q": 0.0025}
    with translation.override("es"):
        text = alert_text("pair", "bank×player", pair)
        assert "40 manos, la banca perdió 37,00 € donde se esperaban 2,76 €" in text and "-37" not in text
        assert "la banca perdió 61,00 € donde se esperaban 10,38 €" in pooled_text("player", pooled)
        assert "la banca ganó 3,00 €" in alert_text("pair", "bank×player", {**pair, "actual": 3.0})
    with translation.override("en"):
        assert "40 hands, the bank lost 37.00 € where 2.76 € were expected" in alert_text("pair", "bank×player", pair)
