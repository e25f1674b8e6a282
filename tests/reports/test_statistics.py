"""The auditor's statistics (reports/statistics.py): pure Python, no database.

Honest play comes from the edge's own simulation (``game.edge.play_hands``, the
documented strategy), so that the theory the tests compare against is the truth of the
data; anomalies are planted in it. Every figure is reproducible from the seeds here.
"""

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from game.cards import CARD_NAME, CARD_RANK, DECKS, parse_card
from game.edge import bank_edge, default_strategy, hand_variance, play_hands
from game.payouts import settle
from game.record import play_record
from game.simulate import random_record, random_rules
from reports import statistics as S

RULES = "americana"  # face up, the bank bound by its rules: the fastest to simulate
SEATS = 4
DEALERS = ("d1", "d2", "d3")
BANKS = ("b1", "b2", "b3", "b4")
PLAYERS = tuple(f"p{i}" for i in range(1, 9))


@pytest.fixture(scope="module")
def edge():
    """The theory for the sessions below: 40,000 hands (its own seed)."""
    return bank_edge(RULES, seats=SEATS, hands=40_000, seed=2017)


def session(seed, hands, *, rig=None, observe=False):
    """An honest session: 3 dealers (a new one every 50 hands), 4 bank holders (every
    100), 8 players, 4 of them seated at each hand, each betting 1, 2 or 5 units (his
    own, for the whole session). Returns ``(bet rows, card observations)``."""
    choose = random.Random(seed)
    stake_of = {p: choose.choice((1, 2, 5)) for p in PLAYERS}
    rows, cards = [], []
    dealer = bank = None
    for i, hand in enumerate(play_hands(RULES, seats=SEATS, hands=hands, rng=random.Random(f"session-{seed}"),
                                        observe=observe, rig=rig)):
        if i % 50 == 0:
            dealer = choose.choice(DEALERS)
        if i % 100 == 0:
            bank = choose.choice(BANKS)
        seated = choose.sample(PLAYERS, SEATS)
        for position, stake, result in hand.bets:
            player = seated[position - 1]
            rows.append({"hand": i, "dealer": dealer, "bank": bank, "player": player,
                         "stake": stake * stake_of[player], "bank_result": result * stake_of[player]})
        if observe:
            cards.extend((i, *card) for card in hand.cards)
    return rows, cards


def by_hand(rows):
    """Per hand: ``(stakes of its bets, its bank result)``, in hand order."""
    hands = {}
    for row in rows:
        stakes, total = hands.get(row["hand"], ([], 0))
        stakes.append(row["stake"])
        hands[row["hand"]] = (stakes, total + row["bank_result"])
    return [hands[h] for h in sorted(hands)]


def review(rows, cards, edge):
    """Every test of a session's review, for ``combined_alerts``: the session's and each
    bank holder's and dealer's result against the theory, the pairs, the cards."""
    tests = []
    groups = {"session": rows}
    for role in ("bank", "dealer"):
        for row in rows:
            groups.setdefault(f"{role}:{row[role]}", []).append(row)
    for name, group in groups.items():
        hands = by_hand(group)
        figures = S.expected_vs_actual(
            [sum(s) for s, _r in hands], [r for _s, r in hands], mean=edge.mean_per_unit,
            variances=[hand_variance(s, edge.sd_per_unit_bet, edge.within_hand_correlation) for s, _r in hands])
        tests.append({"source": name, "p_value": figures["p_value"]})
    pairs = S.pair_analysis(rows, mean=edge.mean_per_unit, sd=edge.sd_per_unit_bet,
                            rho=edge.within_hand_correlation)
    tests += [{"source": f"{p['kind']}:{p['a']}:{p['b']}", "p_value": p["p_value"]} for p in pairs["pairs"]]
    if cards:
        tests += [{"source": f"cards:{t['test']}:{t['who']}", "p_value": t["p_value"]} for t in S.card_tests(cards)]
    return tests


# ---------------------------------------------------------------------------------------
# Benjamini–Hochberg


def reference_bh(p):
    m = len(p)
    order = sorted(range(m), key=lambda i: p[i])
    q = [0.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        i = order[rank - 1]
        running = min(running, p[i] * m / rank)
        q[i] = running
    return q


p_lists = st.lists(st.floats(min_value=0.0, max_value=1.0, allow_nan=False), min_size=1, max_size=60)


@given(p_lists)
def test_bh_q_values_are_at_least_p_at_most_1_and_keep_the_order_of_p(p):
    q = S.benjamini_hochberg(p)
    assert all(pi <= qi + 1e-12 and qi <= 1.0 for pi, qi in zip(p, q, strict=True))
    for (pi, qi) in zip(p, q, strict=True):
        for (pj, qj) in zip(p, q, strict=True):
            if pi <= pj:
                assert qi <= qj + 1e-12


@given(p_lists)
def test_bh_agrees_with_the_step_up_procedure_written_out(p):
    assert S.benjamini_hochberg(p) == pytest.approx(reference_bh(p), abs=1e-12)


def test_bh_of_nothing_is_nothing():
    assert S.benjamini_hochberg([]) == []


# ---------------------------------------------------------------------------------------
# (a) Expected against actual


def test_expected_against_actual_by_hand():
    # Two hands of 100 (cents) at 10% edge, sd 1 per unit: expected 20, sd 100·√2.
    figures = S.expected_vs_actual([100, 100], [100, -100], mean=0.1, sd=1.0)
    assert figures["expected"] == pytest.approx(20.0)
    assert figures["sd"] == pytest.approx(100 * math.sqrt(2))
    assert figures["z"] == pytest.approx(-20 / (100 * math.sqrt(2)))
    assert figures["p_value"] == pytest.approx(2 * stats.norm.sf(20 / (100 * math.sqrt(2))))
    assert figures["band"] == pytest.approx([20 - 300 * math.sqrt(2), 20 + 300 * math.sqrt(2)])
    assert figures["effective_hands"] == pytest.approx(2.0)
    assert figures["outside"] is False
    assert S.expected_vs_actual([], [], mean=0.1, sd=1.0)["z"] is None
    with pytest.raises(ValueError, match="results"):
        S.expected_vs_actual([100], [], mean=0.1, sd=1.0)


def test_hand_variance_matches_the_simulated_spread_of_a_hand(edge):
    # Four equal stakes: the bet-level model gives back the hand-level spread.
    variance = hand_variance([1, 1, 1, 1], edge.sd_per_unit_bet, edge.within_hand_correlation)
    assert math.sqrt(variance) / 4 == pytest.approx(edge.sd_per_unit_hand, rel=0.01)


def test_a_funnel_has_its_limits_and_places_a_bank_beyond_them(edge):
    rows, _cards = session(1, 1200)
    groups = {}
    for row in rows:
        stakes, results = groups.setdefault(row["bank"], ({}, {}))
        stakes[row["hand"]] = stakes.get(row["hand"], 0) + row["stake"]
        results[row["hand"]] = results.get(row["hand"], 0) + row["bank_result"]
    groups = {bank: (list(s.values()), [r[h] for h in s]) for bank, (s, r) in groups.items()}
    stakes, results = groups["b1"]
    honest = S.expected_vs_actual(stakes, results, mean=edge.mean_per_unit, sd=edge.sd_per_unit_hand)
    boost = (4 - honest["z"]) * honest["sd"]  # b1 wins 4σ above expected, spread over its hands
    groups["b1"] = (stakes, [r + boost / len(results) for r in results])
    chart = S.funnel(groups, mean=edge.mean_per_unit, sd=edge.sd_per_unit_hand)
    by_id = {p["id"]: p for p in chart["points"]}
    assert by_id["b1"]["z"] == pytest.approx(4.0) and by_id["b1"]["beyond"] == 3.0
    assert all(p["beyond"] is None for i, p in by_id.items() if i != "b1")
    x = chart["limits"]["x"]
    three = next(b for b in chart["limits"]["bands"] if b["k"] == 3.0)
    assert x[0] == 1.0 and x[-1] == pytest.approx(max(p["effective_hands"] for p in chart["points"]))
    assert three["upper"][0] == pytest.approx(edge.mean_per_unit + 3 * edge.sd_per_unit_hand)
    assert three["lower"][-1] == pytest.approx(edge.mean_per_unit - 3 * edge.sd_per_unit_hand / math.sqrt(x[-1]))


# ---------------------------------------------------------------------------------------
# (b) Pairs


def plant_bank_favour(rows, edge, dealer, bank, z=4.0):
    """Turn bets the bank lost under ``dealer`` and ``bank`` into bets it won, one by one
    in hand order, until that pair's result is ``z`` standard deviations above expected."""
    pair = [r for r in rows if r["dealer"] == dealer and r["bank"] == bank]

    def pair_z():
        figures = S.pair_analysis(pair, mean=edge.mean_per_unit, sd=edge.sd_per_unit_bet,
                                  rho=edge.within_hand_correlation, kinds=(("dealer×bank", "dealer", "bank"),))
        return figures["pairs"][0]["z"]

    for row in pair:
        if pair_z() >= z:
            break
        if row["bank_result"] < 0:
            row["bank_result"] = row["stake"]
    assert pair_z() >= z
    return pair_z()


def test_a_bank_winning_4_sigma_with_one_dealer_is_the_only_alert(edge):
    rows, _cards = session(7, 3000)
    before = S.pair_analysis(rows, mean=edge.mean_per_unit, sd=edge.sd_per_unit_bet,
                             rho=edge.within_hand_correlation)
    assert before["alerts"] == []
    planted = plant_bank_favour(rows, edge, "d2", "b3")
    assert 4.0 <= planted < 4.2
    found = S.pair_analysis(rows, mean=edge.mean_per_unit, sd=edge.sd_per_unit_bet,
                            rho=edge.within_hand_correlation)
    assert found["tested"] >= 60  # 12 dealer × bank, 24 dealer × player, 32 bank × player pairs
    assert [(a["kind"], a["a"], a["b"]) for a in found["alerts"]] == [("dealer×bank", "d2", "b3")]
    alert = found["alerts"][0]
    assert alert["q_value"] < 0.01 and alert["actual"] > alert["expected"]
    assert alert["evidence"] == sorted({r["hand"] for r in rows if r["dealer"] == "d2" and r["bank"] == "b3"})
    # The favoured bets also lift b3's and d2's pairs with the players, less surely.
    runner_up = min((p for p in found["pairs"] if p is not alert and p["q_value"] is not None),
                    key=lambda p: p["q_value"])
    assert runner_up["q_value"] >= 0.01 and {"b3", "d2"} & {runner_up["a"], runner_up["b"]}


def test_pairs_with_few_hands_are_listed_untested():
    rows = [{"hand": h, "dealer": "d1", "bank": "b1", "player": "p1", "stake": 100, "bank_result": 100}
            for h in range(10)]
    found = S.pair_analysis(rows, mean=0.1, sd=1.0, min_hands=30)
    assert found["tested"] == 0 and found["alerts"] == []
    assert {p["kind"] for p in found["pairs"]} == {"dealer×bank", "dealer×player", "bank×player"}
    assert all(p["p_value"] is None and p["hands"] == 10 and p["evidence"] == list(range(10)) for p in found["pairs"])


def test_the_pairs_variance_counts_bets_of_one_hand_together():
    # Two bets of 100 in one hand, sd 1 per unit, correlation 0.5: var = 100²·(2 + 0.5·2).
    rows = [{"hand": 1, "dealer": "d", "bank": "b", "player": p, "stake": 100, "bank_result": 0} for p in ("x", "y")]
    pair = S.pair_analysis(rows, mean=0.0, sd=1.0, rho=0.5, min_hands=1,
                           kinds=(("dealer×bank", "dealer", "bank"),))["pairs"][0]
    assert pair["sd"] == pytest.approx(100 * math.sqrt(3))


# ---------------------------------------------------------------------------------------
# (c) Cards


def stack_a_seven_for_the_bank(share):
    """A rig: in ``share`` of hands a 7 is put where the bank's initial card is dealt."""

    def rig(rng, stock, order):
        if rng.random() < share:
            bank_at = len(stock) - len(order)
            seven = next(i for i, code in enumerate(stock) if CARD_RANK[code] == 7)
            stock[bank_at], stock[seven] = stock[seven], stock[bank_at]
    return rig


def test_a_seven_stacked_for_the_bank_in_10_percent_of_hands_is_found_by_its_first_card():
    _rows, cards = session(11, 3000, rig=stack_a_seven_for_the_bank(0.10), observe=True)
    tests = {(t["test"], t["who"]): t for t in S.card_tests(cards)}
    bank = tests[("first", "bank")]
    assert bank["cards"] == 3000 and bank["method"] == "chi-square" and bank["df"] == 9
    assert bank["p_value"] < 0.001 and bank["alert"]
    assert bank["evidence"]["rank"] == 7
    sevens = [i for i, kind, who, code, _stock in cards if kind == "first" and who == "bank" and CARD_RANK[code] == 7]
    assert bank["evidence"]["hands"] == sevens and bank["evidence"]["total"] == len(sevens)
    # The seats' cards are fair: no alert there.
    assert not any(t["alert"] for key, t in tests.items() if key != ("first", "bank"))


def test_in_a_shift_of_300_hands_the_bank_s_first_card_finds_what_the_pooled_deal_misses():
    """The issue's case: the shift report's test (every initial card pooled, by card) sees
    nothing, the bank's first card alone does."""
    _rows, cards = session(11, 300, rig=stack_a_seven_for_the_bank(0.10), observe=True)
    bank = next(t for t in S.card_tests(cards) if (t["test"], t["who"]) == ("first", "bank"))
    initial = [0] * 40
    for _i, kind, _who, code, _stock in cards:
        if kind == "first":
            initial[code] += 1
    assert bank["p_value"] < 0.001 and bank["alert"]
    assert stats.chisquare(initial).pvalue > 0.05


def test_card_observations_of_a_record_follow_the_stock():
    record = {"format": "siete-y-media/hand-1", "rules": {"profile": "reglamento"}, "min_bet": "5.00",
              "max_bet": "100.00", "bank": "ana", "seats": ["luis", "marta"],
              "events": [{"do": "deal", "seat": "luis", "card": "4O"}, {"do": "deal", "seat": "marta", "card": "11C"},
                         {"do": "deal", "seat": "bank", "card": "3E"},
                         {"do": "exchange", "seat": "luis", "card": "7B"},
                         {"do": "bet", "seat": "luis", "amount": "10"}, {"do": "stand", "seat": "luis"},
                         {"do": "bet", "seat": "marta", "amount": "20"},
                         {"do": "card", "seat": "marta", "card": "6B"}, {"do": "stand", "seat": "marta"},
                         {"do": "card", "seat": "bank", "card": "4C"}, {"do": "stand", "seat": "bank"}]}
    seen = S.card_observations(record, hand=17)
    assert [(h, kind, who, CARD_NAME[code]) for h, kind, who, code, _stock in seen] == [
        (17, "first", 1, "4O"), (17, "first", 2, "11C"), (17, "first", "bank", "3E"),
        (17, "draw", 1, "7B"), (17, "draw", 2, "6B"), (17, "draw", "bank", "4C")]
    full = (4,) * 10
    exchange_stock, marta_stock = seen[3][4], seen[4][4]
    # Before the exchange the 4 of oros is back in the stock: only 11C and 3E are out.
    assert exchange_stock == tuple(n - (r in (3, 11)) for n, r in zip(full, (1, 2, 3, 4, 5, 6, 7, 10, 11, 12), strict=True))
    assert sum(marta_stock) == 37  # 7B, 11C, 3E out
    kept_out = S.card_observations(record, hand=17, by_player=True, returned_fours_back=False)
    assert [who for _h, _k, who, _c, _s in kept_out][:2] == ["luis", "marta"]
    assert kept_out[3][4][3] == 3 and kept_out[4][4][3] == 3  # the returned 4 stays out of play


@pytest.mark.parametrize("seed", range(8))
def test_the_simulation_s_cards_are_what_card_observations_read_back_from_its_records(seed):
    """The edge's simulation, as hand records, under random rules and options: replayed,
    they settle to the same result and give the same cards from the same stocks."""
    rng = random.Random(seed)
    rules = random_rules(rng)
    strategy = default_strategy(rules, stand_at=rng.randint(2, 14), exchange_fours="always", split=True,
                                fusilar=rng.random() < 0.5, muerto=rng.random() < 0.5)
    for i, hand in enumerate(play_hands(rules, seats=rng.randint(1, 9), hands=80, rng=rng, strategy=strategy,
                                        observe=True, record=True)):
        assert settle(play_record(hand.record)).bank_result == hand.bank_result
        assert S.card_observations(hand.record, hand=i) == [(i, *card) for card in hand.cards]


def test_random_legal_play_raises_no_card_alert():
    """Random players (simulate.random_record: random profiles, exchanges, splits,
    shuffles) decide without seeing the next card, so every test holds at its level."""
    rng = random.Random(5)
    cards = []
    for i in range(1500):
        record = random_record(rng, rules=rng.choice(("reglamento", "tradicional", "profesional")))
        cards += S.card_observations(record, hand=i, returned_fours_back=False)
    tests = S.card_tests(cards)
    assert {(t["test"], t["who"]) for t in tests} >= {("first", "bank"), ("first", "seats"), ("draws", "seats"),
                                                      ("draws", "bank")}
    assert not [t for t in tests if t["alert"]]


def test_a_small_sample_gets_a_monte_carlo_p_value_that_is_reproducible():
    cards = [(i, "first", "bank", parse_card("7O"), None) for i in range(8)]
    first = S.card_tests(cards, seed=3)
    again = S.card_tests(cards, seed=3)
    assert first == again
    (test,) = first
    assert test["method"] == "monte-carlo"
    # Eight sevens out of eight: about 0.1⁸ ⋅ 10 by chance; no simulated draw reaches it.
    assert test["p_value"] == pytest.approx(1 / 20001)


def test_draws_from_a_stock_are_tested_against_that_stock():
    # Every draw from a stock of sevens only is a seven: nothing to see (df 0, p 1).
    only_sevens = tuple(4 if r == 7 else 0 for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12))
    cards = [(i, "draw", 1, parse_card("7C"), only_sevens) for i in range(50)]
    (test,) = S.card_tests(cards)
    assert test["df"] == 0 and test["p_value"] == 1.0 and not test["alert"]


def test_the_spanish_36_deck_has_no_sota_category():
    deck = sorted(DECKS["spanish-36"])
    cards = [(i, "first", "bank", deck[i % 36], None) for i in range(360)]
    (test,) = S.card_tests(cards, deck="spanish-36")
    assert [c["rank"] for c in test["categories"]] == [1, 2, 3, 4, 5, 6, 7, 11, 12]
    assert test["df"] == 8 and test["statistic"] == pytest.approx(0.0, abs=1e-9)


# ---------------------------------------------------------------------------------------
# (d) Value transfer


def test_a_bank_sold_back_and_forth_between_two_players_is_found():
    changes = [
        {"id": 1, "kind": "draw", "from": None, "to": "ana", "price": None, "balance": None},
        {"id": 2, "kind": "sale", "from": "ana", "to": "luis", "price": 20000, "balance": 19500},
        {"id": 3, "kind": "sale", "from": "luis", "to": "pepe", "price": 30000, "balance": 30500},
        {"id": 4, "kind": "sale", "from": "pepe", "to": "luis", "price": 25000, "balance": 26000},
        {"id": 5, "kind": "transfer", "from": "luis", "to": "pepe", "price": None, "balance": 27000},
        {"id": 6, "kind": "sale", "from": "pepe", "to": "luis", "price": 5000, "balance": 28000},
        {"id": 7, "kind": "natural", "from": "luis", "to": "rosa", "price": None, "balance": 31000},
        {"id": 8, "kind": "sale", "from": "rosa", "to": "marta", "price": 31000, "balance": 30000},
    ]
    findings = S.bank_change_patterns(changes)
    repeated = [f for f in findings if f["pattern"] == "repeated_changes"]
    assert repeated == [{"pattern": "repeated_changes", "players": ["luis", "pepe"], "count": 4,
                         "reversals": 3, "evidence": [3, 4, 5, 6]}]
    prices = [f for f in findings if f["pattern"] == "price_far_from_balance"]
    assert [(f["id"], f["difference"]) for f in prices] == [(6, -23000.0)]


def test_a_player_losing_his_large_stakes_to_one_bank_is_found(edge):
    rows, _cards = session(13, 1200)
    honest = S.large_losses(rows, p_lose=edge.bank_wins_bet)
    assert honest["alerts"] == []
    for h in range(1200, 1220):  # p9 bets 20 units twenty times against b2 and loses them all
        rows.append({"hand": h, "dealer": "d1", "bank": "b2", "player": "p9", "stake": 2000, "bank_result": 2000})
    found = S.large_losses(rows, p_lose=edge.bank_wins_bet)
    assert [(a["player"], a["bank"], a["lost"]) for a in found["alerts"]] == [("p9", "b2", 20)]
    assert found["alerts"][0]["evidence"] == list(range(1200, 1220))
    assert found["alerts"][0]["share"] == 1.0


# ---------------------------------------------------------------------------------------
# Honest sessions


@pytest.fixture(scope="module")
def honest_reviews(edge):
    """20 honest sessions of 600 hands: every test of each review."""
    return [review(*session(100 + i, 600, observe=True), edge) for i in range(20)]


def test_twenty_honest_sessions_raise_no_false_alert_beyond_the_correction(honest_reviews):
    """Criterion: one Benjamini–Hochberg correction over each session's tests at 1%; an
    honest session then alerts with probability at most 1%, so among 20 sessions at most
    one may (two or more: chance ≤ 1.7%)."""
    alerted = [i for i, tests in enumerate(honest_reviews)
               if any(t["combined_alert"] for t in S.combined_alerts(tests, alpha=0.01))]
    assert len(alerted) <= 1, alerted


def test_honest_p_values_are_calibrated(honest_reviews):
    """The tests' p-values over the honest sessions: about 1% below 0.01, 5% below 0.05
    (they are dependent within a session; the bounds allow for it)."""
    p = [t["p_value"] for tests in honest_reviews for t in tests if t["p_value"] is not None]
    assert len(p) > 1300
    below_1 = sum(x < 0.01 for x in p) / len(p)
    below_5 = sum(x < 0.05 for x in p) / len(p)
    assert below_1 < 0.025 and 0.02 < below_5 < 0.09
