"""The auditor's statistics: results against the theory, improbable pairs, card tests,
value-transfer patterns.

Pure Python with numpy and scipy, no Django: every function takes plain rows (dicts,
tuples, numbers) and returns plain data — dicts and lists of numbers, strings, booleans
and None, ready for JSON — with the ids of the hands or bank changes that are its
evidence. The Django side reads the rows from the ledger and the hands, calls these, and
stores or shows what they return.

Conventions:

- Money comes in one unit throughout a call (integer cents, or ``Decimal``); results
  come back as floats in that same unit. They are statistical figures (expectations,
  standard deviations), never amounts to post.
- ``bank_result`` is always from the bank's side: positive, the bank won.
- The theory is the edge of ``game.edge.bank_edge`` for the table's rules and
  seat count: ``mean_per_unit`` (the bank's expected result per unit staked),
  ``sd_per_unit_hand`` (per unit staked, one hand), ``sd_per_unit_bet`` (one bet) and
  ``within_hand_correlation`` (two bets of the same hand).
- p-values are two-sided unless said otherwise; q-values are Benjamini–Hochberg's
  (``scipy.stats.false_discovery_control``), over the family named in each function; an
  *alert* is a q-value below ``alpha`` (default 0.01). Under the Benjamini–Hochberg
  procedure, when nothing is amiss, the chance of any alert in a family is at most
  ``alpha``.
"""

import math
from collections import defaultdict

import numpy as np

from game.cards import CARD_RANK, CARD_SPELLINGS, DECKS, RANKS
from game.hand import BANK_ID, LOCA_ID
from game.record import read_header

#: The level of a review's one correction (a shift's, the review page's): a line below it is
#: marked, for the nightly pooled review to decide.
ALPHA = 0.01
#: The level of the nightly pooled review's one correction, which raises the statistical
#: alerts: measured on honest nights (benchmarks/detection.py --levels; benchmarks/RESULTS.md,
#: "detection"), 1% raised 2.86 and 1.90 false alerts per 10,000 hands with the seats standing
#: at 5 and 6½, 0.5% 0.95 and 0.95, 0.25% none, the planted pair and holder found as often at
#: each (2/10, 10/10): the issue's goal is at most 1 a 10,000.
NIGHTLY_ALPHA = 0.0025
_RANK_INDEX = {rank: i for i, rank in enumerate(RANKS)}


def _stats():
    """``scipy.stats``, imported when a test first needs it, not with this module: the URLs
    import it (the auditor's review), and every process that loads them paid for it at
    start (each ``manage.py`` command's system checks, each gunicorn worker): most of a
    process's start-up (benchmarks/RESULTS.md)."""
    from scipy import stats

    return stats


def _two_sided(z):
    return float(2 * _stats().norm.sf(abs(z)))


def _per_row(value, n, name):
    """A scalar for every row, or a sequence of one value per row, as a list of floats."""
    if isinstance(value, (int, float)) or hasattr(value, "as_tuple"):
        return [float(value)] * n
    values = [float(v) for v in value]
    if len(values) != n:
        raise ValueError(f"{name}: one value per row ({n}), not {len(values)}")
    return values


def benjamini_hochberg(p_values):
    """Benjamini–Hochberg q-values (adjusted p-values), in the order given.

    Args:
        p_values: floats in [0, 1].
    Returns:
        list of floats: ``q_i = min over j with p_j ≥ p_i of (m · p_j / rank_j)``, capped
        at 1. [Benjamini & Hochberg 1995; ``scipy.stats.false_discovery_control``]
    """
    p = [float(x) for x in p_values]
    if not p:
        return []
    return [float(q) for q in _stats().false_discovery_control(p, method="bh")]


# ---------------------------------------------------------------------------------------
# (a) Expected against actual


def expected_vs_actual(stakes, results, *, mean, sd=None, variances=None, k=3.0):
    """The bank's actual result against its expectation, for any set of hands (a table, a
    shift, a bank tenure, a dealer, a period).

    Args:
        stakes: per hand, the total staked on it (money unit U).
        results: per hand, the bank's result (U; positive: the bank won).
        mean: the bank's expected result per unit staked: a number, or one per hand.
        sd: the standard deviation of a hand's result per unit staked in it (the edge's
            ``sd_per_unit_hand``): a number or one per hand. Not needed with ``variances``.
        variances: per hand, the variance of its result (U²), e.g. from
            ``edge.hand_variance`` over its bets' stakes; it replaces ``sd``.
        k: the band's half-width in standard deviations.
    Returns:
        dict: ``hands``; ``staked``, ``actual``, ``expected``, ``sd`` (U);
        ``effective_hands`` ((Σ stake)² / Σ stake², the hands' count when stakes are
        equal); ``band`` ``[expected − k·sd, expected + k·sd]``; ``k``; ``z`` (actual −
        expected over sd); ``p_value`` (two-sided, normal); ``per_unit_actual``,
        ``per_unit_expected``; ``outside`` (the actual result is outside the band).
        With no hands, the figures are 0 and z, p_value None.
    Raises:
        ValueError: sequences of different lengths, or neither ``sd`` nor ``variances``.
    """
    stakes = [float(s) for s in stakes]
    results = [float(r) for r in results]
    n = len(stakes)
    if len(results) != n:
        raise ValueError(f"results: one per hand ({n}), not {len(results)}")
    means = _per_row(mean, n, "mean")
    if variances is not None:
        var = _per_row(variances, n, "variances")
    elif sd is not None:
        sds = _per_row(sd, n, "sd")
        var = [(s * d) ** 2 for s, d in zip(stakes, sds, strict=True)]
    else:
        raise ValueError("expected_vs_actual needs sd or variances")
    return expected_vs_actual_sums(hands=n, staked=sum(stakes), actual=sum(results),
                                   expected=sum(m * s for m, s in zip(means, stakes, strict=True)),
                                   variance=sum(var), stake_squares=sum(s * s for s in stakes), k=k)


def expected_vs_actual_sums(*, hands, staked, actual, expected, variance, stake_squares, k=3.0):
    """``expected_vs_actual`` from the hands' sums, as a database aggregates them
    (``reports.detection``, one row per group), without a row per hand.

    Args:
        hands: how many hands.
        staked: Σ stake (U); actual: Σ the bank's result (U); expected: Σ mean · stake (U).
        variance: Σ each hand's variance (U²).
        stake_squares: Σ stake² (U²; each hand's total stake squared).
        k: the band's half-width in standard deviations.
    Returns:
        dict: as ``expected_vs_actual``.
    """
    staked, actual, expected = float(staked), float(actual), float(expected)
    squares = float(stake_squares)
    spread = math.sqrt(max(float(variance), 0.0))
    z = (actual - expected) / spread if spread > 0 else None
    return {
        "hands": int(hands), "staked": staked, "actual": actual, "expected": expected, "sd": spread,
        "effective_hands": staked * staked / squares if squares else 0.0,
        "band": [expected - k * spread, expected + k * spread], "k": k,
        "z": z, "p_value": None if z is None else _two_sided(z),
        "per_unit_actual": actual / staked if staked else None,
        "per_unit_expected": expected / staked if staked else None,
        "outside": z is not None and abs(z) > k,
    }


def funnel(groups, *, mean, sd, ks=(2.0, 3.0), steps=60):
    """A funnel chart's data: each group's result per unit staked against its (effective)
    hands, with the control limits ``mean ± k · sd / √hands``.

    Args:
        groups: ``{group id: (stakes, results)}`` per hand, as ``expected_vs_actual``
            (a group: a table, a dealer, a bank tenure …).
        mean, sd: the edge's ``mean_per_unit`` and ``sd_per_unit_hand`` (numbers).
        ks: the limits to draw, in standard deviations.
        steps: points along each limit's curve.
    Returns:
        dict: ``mean``, ``sd``, ``x`` ("effective_hands": (Σ stake)² / Σ stake², equal to
        the hands when their stakes are equal, which makes the limits exact for every
        group); ``points``: per group ``{"id", "hands", "effective_hands", "staked",
        "per_unit", "z", "p_value", "beyond"}`` (beyond: the largest k of ``ks`` whose
        limits it lies outside, or None); ``limits``: ``{"x": [...], "center": mean,
        "bands": [{"k", "lower": [...], "upper": [...]}]}`` (per unit staked).
    """
    sums = {}
    for group, (stakes, results) in groups.items():
        stakes = [float(x) for x in stakes]
        results = [float(x) for x in results]
        if len(results) != len(stakes):
            raise ValueError(f"results: one per hand ({len(stakes)}), not {len(results)}")
        sums[group] = {"hands": len(stakes), "staked": sum(stakes), "actual": sum(results),
                       "stake_squares": sum(s * s for s in stakes)}
    return funnel_sums(sums, mean=mean, sd=sd, ks=ks, steps=steps)


def funnel_sums(groups, *, mean, sd, ks=(2.0, 3.0), steps=60):
    """``funnel`` from each group's sums, as a database aggregates them.

    Args:
        groups: ``{group id: {"hands", "staked" (Σ stake), "actual" (Σ the bank's
            result), "stake_squares" (Σ stake², each hand's total stake squared)}}``.
        mean, sd, ks, steps: as ``funnel``.
    Returns:
        dict: as ``funnel``.
    """
    points = []
    largest = 1.0
    for group, sums in groups.items():
        staked, squares = float(sums["staked"]), float(sums["stake_squares"])
        figures = expected_vs_actual_sums(hands=sums["hands"], staked=staked, actual=sums["actual"],
                                          expected=float(mean) * staked, variance=float(sd) ** 2 * squares,
                                          stake_squares=squares)
        if not figures["hands"] or not figures["staked"]:
            continue
        z = figures["z"]
        beyond = max((k for k in ks if z is not None and abs(z) > k), default=None)
        points.append({"id": group, "hands": figures["hands"], "effective_hands": figures["effective_hands"],
                       "staked": figures["staked"], "per_unit": figures["per_unit_actual"],
                       "z": z, "p_value": figures["p_value"], "beyond": beyond})
        largest = max(largest, figures["effective_hands"])
    xs = [float(x) for x in np.geomspace(1.0, largest, steps)] if largest > 1 else [1.0]
    bands = [{"k": k, "lower": [mean - k * sd / math.sqrt(x) for x in xs],
              "upper": [mean + k * sd / math.sqrt(x) for x in xs]} for k in ks]
    return {"mean": mean, "sd": sd, "x": "effective_hands", "points": points,
            "limits": {"x": xs, "center": mean, "bands": bands}}


# ---------------------------------------------------------------------------------------
# (b) Pairs

#: The pairs tested: (kind, first role, second role).
PAIR_KINDS = (("dealer×bank", "dealer", "bank"), ("dealer×player", "dealer", "player"),
              ("bank×player", "bank", "player"))


def pair_analysis(rows, *, mean, sd, rho=0.0, alpha=ALPHA, min_hands=30, kinds=PAIR_KINDS):
    """Results by dealer × bank holder, dealer × player and bank holder × player against
    the expectation, corrected for the number of pairs tested.

    Args:
        rows: one per bet, dicts with ``hand`` (its id), ``dealer``, ``bank`` (the bank's
            holder), ``player``, ``stake`` and ``bank_result`` (U; positive: the bank won
            the bet); optional ``mean`` and ``sd`` per unit staked on a bet (the edge's
            ``mean_per_unit`` and ``sd_per_unit_bet`` for that hand's table and seats),
            else the arguments.
        mean, sd: defaults per unit staked per bet.
        rho: the edge's ``within_hand_correlation``: two bets of one hand move together.
        alpha: the level of an alert (q-value below it).
        min_hands: pairs with fewer hands are listed untested (p and q None): the normal
            approximation needs some hands.
        kinds: which pairs, as in ``PAIR_KINDS``.
    Returns:
        dict: ``alpha``, ``tested`` (pairs tested: the family of the correction),
        ``pairs`` (tested first, by q-value, then the rest) each ``{"kind", "a", "b",
        "hands", "bets", "staked", "actual", "expected", "sd", "z", "p_value",
        "q_value", "alert", "evidence"}`` (evidence: the hands' ids, sorted), and
        ``alerts`` (the pairs with an alert).
        The variance of a pair's result sums over its hands ``(1 − ρ)·Σ(σ_i s_i)² +
        ρ·(Σ σ_i s_i)²`` over the hand's bets in the pair.
    """
    groups = {}
    for row in rows:
        stake = float(row["stake"])
        m = float(row.get("mean", mean))
        d = float(row.get("sd", sd))
        bet = (stake, float(row["bank_result"]), m * stake, d * stake)
        for kind, first, second in kinds:
            key = (kind, row[first], row[second])
            hands = groups.get(key)
            if hands is None:
                hands = groups[key] = defaultdict(list)
            hands[row["hand"]].append(bet)
    sums = []
    for (kind, a, b), hands in groups.items():
        staked = actual = expected = variance = 0.0
        bets = 0
        for items in hands.values():
            linear = squares = 0.0
            for stake, result, expect, spread in items:
                staked += stake
                actual += result
                expected += expect
                linear += spread
                squares += spread * spread
                bets += 1
            variance += (1 - rho) * squares + rho * linear * linear
        sums.append({"kind": kind, "a": a, "b": b, "hands": len(hands), "bets": bets, "staked": staked,
                     "actual": actual, "expected": expected, "variance": variance, "evidence": sorted(hands)})
    return pair_figures(sums, alpha=alpha, min_hands=min_hands)


def pair_figures(sums, *, alpha=ALPHA, min_hands=30):
    """``pair_analysis`` from each pair's sums, as a database aggregates them.

    Args:
        sums: one per pair, dicts with ``kind``, ``a``, ``b``, ``hands``, ``bets``,
            ``staked``, ``actual``, ``expected`` (U), ``variance`` (U²: over its hands
            ``(1 − ρ)·Σ(σ_i s_i)² + ρ·(Σ σ_i s_i)²``), ``evidence`` (hand ids, sorted;
            may be cut short) and optionally ``hand_total`` (the evidence's full count).
        alpha, min_hands: as ``pair_analysis``.
    Returns:
        dict: as ``pair_analysis``.
    """
    pairs = []
    for item in sums:
        spread = math.sqrt(max(float(item["variance"]), 0.0))
        actual, expected = float(item["actual"]), float(item["expected"])
        z = (actual - expected) / spread if spread > 0 else None
        tested = item["hands"] >= min_hands and z is not None
        pair = {"kind": item["kind"], "a": item["a"], "b": item["b"], "hands": int(item["hands"]),
                "bets": int(item["bets"]), "staked": float(item["staked"]), "actual": actual, "expected": expected,
                "sd": spread, "z": z, "p_value": _two_sided(z) if tested else None, "q_value": None,
                "alert": False, "evidence": list(item["evidence"])}
        if "hand_total" in item:
            pair["hand_total"] = item["hand_total"]
        pairs.append(pair)
    tested = [p for p in pairs if p["p_value"] is not None]
    for pair, q in zip(tested, benjamini_hochberg(p["p_value"] for p in tested), strict=True):
        pair["q_value"] = q
        pair["alert"] = q < alpha
    pairs.sort(key=lambda p: (p["q_value"] is None, p["q_value"] or 0.0, p["p_value"] or 0.0, p["kind"],
                              str(p["a"]), str(p["b"])))
    return {"alpha": alpha, "tested": len(tested), "pairs": pairs, "alerts": [p for p in pairs if p["alert"]]}


# ---------------------------------------------------------------------------------------
# (c) Card tests


def card_observations(record, hand=None, by_player=False, returned_fours_back=True):
    """The cards of one hand record as they left the stock, for ``card_tests``.

    Args:
        record: a hand record (``hand-record.md``), every card named.
        hand: the hand's id, carried into each observation as evidence.
        by_player: name seats by player id instead of their position in the order of
            play (1 = the bank's right).
        returned_fours_back: a 4 returned by an exchange is shuffled back into the stock
            (rules.md: it "may be dealt again"); False where the house puts it under
            the stock, out of play until a shuffle.
    Returns:
        list of ``(hand, kind, who, card, stock)``: kind ``"first"`` (the initial deal)
        or ``"draw"`` (every later card: drawn, exchanged for a 4, under a fusilado or
        muerto 7); who the seat (position or player), ``"bank"`` or ``"loca"``; card its
        code; stock, for a draw, the counts by rank (``RANKS`` order) of the stock it came
        from (the deck less the cards then on the table), None for the initial deal.
    Raises:
        IllegalEvent: the record is not valid (as ``play_record``).
    """
    state = read_header(record)
    seats = record["seats"]
    names = {player: (player if by_player else i + 1) for i, player in enumerate(seats)}
    deck = DECKS[state.profile.deck]
    full = [0] * len(RANKS)
    for code in deck:
        full[_RANK_INDEX[CARD_RANK[code]]] += 1
    observations = []
    returned = [0] * len(RANKS)  # fours kept out of the stock (returned_fours_back=False)
    for event in record["events"]:
        do = event.get("do")
        if do in ("deal", "card", "exchange", "fusilar", "muerto"):
            seat = event.get("seat")
            who = seat if seat in (BANK_ID, LOCA_ID) else names.get(seat, seat)
            code = CARD_SPELLINGS.get(event.get("card")) if type(event.get("card")) is str else None
            if do == "deal":
                stock = None
            else:
                counts = [n - r for n, r in zip(full, returned, strict=True)]
                for out in state.live:
                    counts[_RANK_INDEX[CARD_RANK[out]]] -= 1
                if do == "exchange":  # the 4 leaves the hand before the new card comes
                    current = state.current_hand()
                    if current is not None and current.cards and current.cards[0] is not None:
                        four = _RANK_INDEX[CARD_RANK[current.cards[0]]]
                        if returned_fours_back:
                            counts[four] += 1
                        else:
                            returned[four] += 1
                stock = tuple(counts)
            state.apply(event)
            if code is not None:
                observations.append((hand, "first" if do == "deal" else "draw", who, code, stock))
        else:
            state.apply(event)
            if do == "shuffle":
                returned = [0] * len(RANKS)
    return observations


def card_tests(observations, *, deck="spanish-40", alpha=ALPHA, evidence_limit=None,
               monte_carlo=20000, seed=0):
    """Tests of the cards against a fair shuffle, each with its p-value and its cards.

    The tests (by rank; ``RANKS``, without the sota for ``spanish-36``):

    - ``first``, who ``"bank"``: the bank's initial card. From a fair, shuffled deck each
      card is equally likely there, hand after hand: a multinomial. A card stacked for
      the bank shows here first.
    - ``first``, who a seat (and ``"loca"``): each seat's initial card, likewise.
    - ``first``, who ``"seats"``: the seats' initial cards pooled (several per hand, drawn
      without replacement: the test is slightly conservative).
    - ``draws``, who ``"seats"`` and ``"bank"``: every later card. Whether a card is drawn
      depends on the cards before it, never on the card itself, so each drawn card is
      uniform over the stock it came from: the expected counts and their covariance sum
      each draw's own probabilities (the stock's ranks), a martingale's.

    Statistic: ``(O − E)ᵀ V⁺ (O − E)`` with V the sum of each card's multinomial
    covariance — Pearson's chi-square when every card has the same probabilities — against
    chi-square with rank(V) degrees of freedom; where fewer than 5 are expected of some
    rank, a Monte Carlo p-value over ``monte_carlo`` draws of the same cards from their
    own probabilities (``(1 + #≥) / (1 + draws)``, seeded: reproducible).

    Args:
        observations: ``(hand, kind, who, card, stock)`` as ``card_observations`` or
            ``edge.HandResult.cards`` (with the hand's id put first) give them; card a code
            or a name ("7O").
        deck: the deck the hands were dealt from.
        alpha: the level of an alert, on the q-values over these tests.
        evidence_limit: at most this many hands' ids as evidence per test (None: all).
        monte_carlo, seed: the Monte Carlo draws and their seed.
    Returns:
        list of dicts, one per test with cards: ``{"test", "who", "cards" (how many),
        "categories": [{"rank", "observed", "expected", "residual"}], "statistic",
        "df", "p_value", "method" ("chi-square" or "monte-carlo"), "q_value", "alert",
        "evidence": {"rank", "hands", "total"}}``: the most over-represented rank
        (largest standardized residual) and the hands where it came in this test.
    """
    composition = [0] * len(RANKS)
    for code in DECKS[deck]:
        composition[_RANK_INDEX[CARD_RANK[code]]] += 1
    ranks = [i for i, n in enumerate(composition) if n]
    full = np.array([composition[i] for i in ranks], dtype=float)
    full /= full.sum()
    groups = defaultdict(list)
    for hand, kind, who, card, stock in observations:
        code = CARD_SPELLINGS.get(card) if type(card) is str else card
        index = _RANK_INDEX[CARD_RANK[code]]
        if kind == "first":
            groups[("first", str(who))].append((hand, index, None))
            if who not in (BANK_ID, LOCA_ID):
                groups[("first", "seats")].append((hand, index, None))
        else:
            groups[("draws", "bank" if who == BANK_ID else "seats")].append((hand, index, stock))
    rng = np.random.default_rng(seed)
    position = {r: i for i, r in enumerate(ranks)}
    results = []
    for (test, who), items in sorted(groups.items(), key=lambda item: (item[0][0], _who_order(item[0][1]))):
        n = len(items)
        observed = np.zeros(len(ranks))
        probabilities = np.empty((n, len(ranks)))
        for j, (_hand, index, stock) in enumerate(items):
            observed[position[index]] += 1
            if stock is None:
                probabilities[j] = full
            else:
                row = np.array([stock[i] for i in ranks], dtype=float)
                probabilities[j] = row / row.sum()
        statistic, df, residuals, expected, inverse = _quadratic(observed, probabilities)
        method = "chi-square"
        if df == 0:
            p_value = 1.0
        elif expected[expected > 0].min() < 5 and n <= 5000:
            method = "monte-carlo"
            p_value = _monte_carlo(statistic, probabilities, expected, inverse, monte_carlo, rng)
        else:
            p_value = float(_stats().chi2.sf(statistic, df))
        top = int(np.argmax(residuals))
        top_rank = ranks[top]
        hands = [h for h, index, _stock in items if index == top_rank]
        total = len(hands)
        if evidence_limit is not None:
            hands = hands[:evidence_limit]
        results.append({
            "test": test, "who": who, "cards": n,
            "categories": [{"rank": RANKS[r], "observed": int(observed[i]), "expected": float(expected[i]),
                            "residual": float(residuals[i])} for i, r in enumerate(ranks)],
            "statistic": float(statistic), "df": int(df), "p_value": p_value, "method": method,
            "q_value": None, "alert": False,
            "evidence": {"rank": RANKS[top_rank], "hands": hands, "total": total},
        })
    for result, q in zip(results, benjamini_hochberg(r["p_value"] for r in results), strict=True):
        result["q_value"] = q
        result["alert"] = q < alpha
    return results


def _who_order(who):
    return (0, "") if who == "bank" else (1, "") if who == "seats" else (2, who.zfill(3))


def _quadratic(observed, probabilities):
    """``(statistic, df, standardized residuals, expected, V⁺)`` of observed counts
    against per-card probabilities."""
    expected = probabilities.sum(axis=0)
    covariance = np.diag(expected) - probabilities.T @ probabilities
    inverse = np.linalg.pinv(covariance, rcond=1e-10, hermitian=True)
    difference = observed - expected
    statistic = float(difference @ inverse @ difference)
    df = int(np.linalg.matrix_rank(covariance, tol=1e-9 * max(1.0, float(np.abs(covariance).max())), hermitian=True))
    variances = np.diag(covariance)
    with np.errstate(divide="ignore", invalid="ignore"):
        residuals = np.where(variances > 0, difference / np.sqrt(np.where(variances > 0, variances, 1)), 0.0)
    return max(statistic, 0.0), df, residuals, expected, inverse


def _monte_carlo(statistic, probabilities, expected, inverse, draws, rng):
    """P(a fair shuffle gives a statistic at least as large), by ``draws`` simulations."""
    n, k = probabilities.shape
    cumulative = np.cumsum(probabilities, axis=1)
    cumulative[:, -1] = 1.0
    counts = np.zeros((draws, k))
    for j in range(n):
        picks = np.searchsorted(cumulative[j], rng.random(draws), side="right")
        np.add.at(counts, (np.arange(draws), np.minimum(picks, k - 1)), 1)
    differences = counts - expected
    simulated = np.einsum("ij,jk,ik->i", differences, inverse, differences)
    at_least = int(np.sum(simulated >= statistic - 1e-9))
    return (1 + at_least) / (1 + draws)


# ---------------------------------------------------------------------------------------
# (d) Value-transfer patterns


def bank_change_patterns(changes, *, min_repeats=3, price_tolerance=0.25, min_difference=0):
    """Patterns in the bank's changes of hands that can move value between players.

    Args:
        changes: one per change of the bank's holder, in the order they happened, dicts
            with ``id``, ``kind`` (``"sale"``, ``"transfer"``; others, such as a draw or a
            7½, are not between two consenting players and are skipped), ``from`` and
            ``to`` (player ids), and for a sale ``price`` and ``balance`` (U: what the
            buyer paid, and the bank's balance handed over).
        min_repeats: sales or transfers between the same two players (either way) that
            make a pattern.
        price_tolerance: a sale whose price differs from the balance by more than this
            share of the balance is a pattern …
        min_difference: … if the difference is also above this amount (U).
    Returns:
        list of findings, each with ``pattern`` and ``evidence`` (the changes' ids):
        ``{"pattern": "repeated_changes", "players": [a, b], "count", "reversals"
        (times the bank went back the way it came), "evidence"}`` and
        ``{"pattern": "price_far_from_balance", "id", "from", "to", "price", "balance",
        "difference" (price − balance), "ratio" (price / balance or None), "evidence"}``.
    """
    findings = []
    between = defaultdict(list)
    for change in changes:
        if change.get("kind") not in ("sale", "transfer"):
            continue
        a, b = change["from"], change["to"]
        between[tuple(sorted((str(a), str(b))))].append(change)
        if change["kind"] == "sale" and change.get("price") is not None and change.get("balance") is not None:
            price, balance = float(change["price"]), float(change["balance"])
            difference = price - balance
            if abs(difference) > max(float(min_difference), price_tolerance * abs(balance)):
                findings.append({"pattern": "price_far_from_balance", "id": change["id"], "from": a, "to": b,
                                 "price": price, "balance": balance, "difference": difference,
                                 "ratio": price / balance if balance else None, "evidence": [change["id"]]})
    for players, items in sorted(between.items()):
        if len(items) >= min_repeats:
            reversals = sum(1 for before, after in zip(items, items[1:], strict=False)
                            if before["to"] == after["from"] and before["from"] == after["to"])
            findings.append({"pattern": "repeated_changes", "players": list(players), "count": len(items),
                             "reversals": reversals, "evidence": [c["id"] for c in items]})
    return findings


def large_losses(rows, *, p_lose, large_stake=None, quantile=0.9, min_count=3, alpha=ALPHA):
    """Players who lose their large stakes to the same bank more often than chance.

    Args:
        rows: one per bet, dicts with ``hand``, ``bank`` (holder), ``player``, ``stake``,
            ``bank_result`` (U; positive: the player lost the bet).
        p_lose: the probability that a bet is lost (the edge's ``bank_wins_bet``).
        large_stake: a stake at or above this is large (U); None: the ``quantile`` of
            all the rows' stakes.
        min_count: an alert needs at least this many large stakes lost.
        alpha: the level of an alert (q-value, over the player × bank pairs with a
            large stake).
    Returns:
        dict: ``large_stake``, ``alpha``, ``pairs`` by p-value, each ``{"player",
        "bank", "large_bets", "lost", "amount_lost", "share" (of the player's large
        losses, this bank's), "p_value" (one-sided: losing at least this many, binomial),
        "q_value", "alert", "evidence" (hands of the large stakes lost)}``, and
        ``alerts``.
    """
    rows = list(rows)
    if large_stake is None:
        stakes = [float(r["stake"]) for r in rows]
        large_stake = float(np.quantile(stakes, quantile)) if stakes else 0.0
    large_stake = float(large_stake)
    pairs = defaultdict(lambda: {"large_bets": 0, "lost": 0, "amount_lost": 0.0, "evidence": []})
    for row in rows:
        if float(row["stake"]) < large_stake:
            continue
        pair = pairs[(row["player"], row["bank"])]
        pair["large_bets"] += 1
        result = float(row["bank_result"])
        if result > 0:
            pair["lost"] += 1
            pair["amount_lost"] += result
            pair["evidence"].append(row["hand"])
    return large_loss_figures([{"player": player, "bank": bank, **pair} for (player, bank), pair in pairs.items()],
                              p_lose=p_lose, large_stake=large_stake, min_count=min_count, alpha=alpha)


def large_loss_figures(pairs, *, p_lose, large_stake, min_count=3, alpha=ALPHA):
    """``large_losses`` from each player × bank's counts, as a database aggregates them.

    Args:
        pairs: one per player × bank with a large stake: dicts with ``player``, ``bank``,
            ``large_bets``, ``lost``, ``amount_lost`` (U), ``evidence`` (the hands of the
            large stakes lost, in the bets' order; may be cut short) and optionally
            ``hand_total`` (the evidence's full count).
        p_lose, large_stake, min_count, alpha: as ``large_losses`` (``large_stake`` the
            threshold used, U).
    Returns:
        dict: as ``large_losses``.
    """
    lost_by_player = defaultdict(int)
    for pair in pairs:
        lost_by_player[pair["player"]] += int(pair["lost"])
    out = []
    for pair in pairs:
        lost, large_bets = int(pair["lost"]), int(pair["large_bets"])
        p_value = float(_stats().binom.sf(lost - 1, large_bets, p_lose)) if lost else 1.0
        out.append({**pair, "large_bets": large_bets, "lost": lost, "amount_lost": float(pair["amount_lost"]),
                    "evidence": list(pair["evidence"]),
                    "share": lost / lost_by_player[pair["player"]] if lost_by_player[pair["player"]] else 0.0,
                    "p_value": p_value, "q_value": None, "alert": False})
    for pair, q in zip(out, benjamini_hochberg(p["p_value"] for p in out), strict=True):
        pair["q_value"] = q
        pair["alert"] = q < alpha and pair["lost"] >= min_count
    out.sort(key=lambda p: (p["p_value"], str(p["player"]), str(p["bank"])))
    return {"large_stake": float(large_stake), "alpha": alpha, "pairs": out, "alerts": [p for p in out if p["alert"]]}


# ---------------------------------------------------------------------------------------
# Alerts over several families


def combined_alerts(tests, *, alpha=ALPHA):
    """One Benjamini–Hochberg correction over every test of a review (e.g. a shift: its
    expected-against-actual, its pairs and its card tests), so that an honest review
    raises an alert with probability at most ``alpha``.

    Args:
        tests: dicts with a ``p_value`` (None: not tested, skipped) and anything else
            (kept: the source, the ids, the evidence).
    Returns:
        list of the tests with a p-value, each a copy with ``combined_q``, by it; the
        alerts are those with ``combined_q < alpha``.
    """
    tested = [dict(t) for t in tests if t.get("p_value") is not None]
    for test, q in zip(tested, benjamini_hochberg(t["p_value"] for t in tested), strict=True):
        test["combined_q"] = q
        test["combined_alert"] = q < alpha
    tested.sort(key=lambda t: t["combined_q"])
    return tested
