"""The pooled review: the hands of every table added up wherever a cheat can hide, over
the gaming day, the week and the month (rolling windows ending with a gaming day).

A shift's review (``reports.detection.review``) looks at one table's or one shift's
hands, and a pair seen fewer than ``MIN_HANDS`` times there is not tested. A dealer who
feeds one player a few hands at each of three tables over several shifts is never named
by it. This review adds the hands up across tables and shifts and tests:

- the pairs dealer × player, dealer × bank holder and bank holder × player (codes as
  ``reports.statistics.PAIR_KINDS``);
- a bank holder over all his tenures (``bank``), a player over all tables (``player``)
  and a dealer over all tables (``dealer``);

and for each dealer × player and bank holder × player the footprint of a dealer feeding
the player (``footprint_tests``: the hands he won with 7½ or with the bank bust against
his own rate elsewhere or the other players'); each over the windows of ``WINDOWS`` (the day, the 7 and the 30 gaming days ending with
it); a longer window holding no more of a group's hands than a shorter one is the same
test, made once. Groups of one window with the same bets (a player who played only under
one dealer: the player and the dealer × player) are the same test too, made once under
the first group's name (``POOLED_KINDS`` order) with the others listed (``same``). A
group seen fewer than ``MIN_HANDS`` times over the longest window is not dropped: it is
accumulated over all its hands to the day's end (window ``to_date``) and tested as
soon as those reach ``MIN_HANDS``; until then it is listed as accumulating.

One Benjamini–Hochberg correction (``statistics.combined_alerts``) takes every test of a
run together: the pooled groups of every window, the card tests of the day's hands at
every table, the card tests of the shift reports stored at the close of the day's
shifts (their ``cards_not_uniform`` exceptions: ``detection.exception_findings`` leaves
those to this run), and the statistical tests of the reports of the day
(``report_review_tests``: the review of each shift report stored at the close of a shift
closed that day and of each bank-rotation report computed that day, its latest version:
expected against actual, pairs, large losses, cards; ``detection.report_findings``
raises none of them at the report's close; a pooled group of the same bets as a report's
test is made once, as the report's: ``merge_report_tests``). The same bets found again on a later
night, under another group's name or over a longer window, are the finding raised before
(``bets_digest``: ``Finding.bets``), not another alert; and they are not tested again: a
night's run leaves out the tests of bets an earlier night's run tested (``tested_before``,
read from the stored runs of the month before; counted in ``repeated``), which on honest
nights were more than half of every run's tests (benchmarks/RESULTS.md, "detection"). Nothing statistical alerts outside this
correction: an honest run raises an alert with probability at most ``statistics.NIGHTLY_ALPHA``. A report's
test that alerts is raised as its close would have raised it: the report's subject,
identity, evidence, table, shift and report, with this run's ``combined_q``.

The expectation is the stored theory (``reports.detection.Theory``/``edge_figure``) of
each hand's rules and seats, as every review's. A run is stored as a ``PooledReview``
(``pooled_review_run``): nightly by beat (``reports.pooled_review_nightly``) and on an
auditor's request from the review page.
"""

import hashlib
import json
import math
from datetime import date, timedelta
from statistics import NormalDist

from django.db import transaction as db
from django.utils import timezone
from scipy.stats import hypergeom

from casino.periods import gaming_day, gaming_day_bounds
from reports import statistics
from reports.alerts import Finding, alerts_raise_counted
from reports.detection import (
    CARD_HANDS_LIMIT,
    EVIDENCE_LIMIT,
    MIN_HANDS,
    STATISTICAL_EXCEPTIONS,
    STATISTICAL_KINDS,
    Sums,
    Theory,
    bets_key,
    hand_card_observations,
    report_tests,
)
from reports.models import AlertKind, PooledReview, Report, ReportKind
from tables.models import Hand, HandBet

#: The rolling windows: (name, gaming days ending with the run's day).
WINDOWS = (("day", 1), ("week", 7), ("month", 30))
#: The window of a group accumulated over all its hands to the day's end.
TO_DATE = "to_date"
#: The window of a report's review test (its report's hands).
REPORT_WINDOW = "report"
#: The footprint tests' code prefix (``footprint:dealer×player``, ``footprint:bank×player``):
#: the hands a player won with 7½ or with the bank bust (``footprint_tests``).
FOOTPRINT = "footprint"
#: A report's review tests (``detection.report_tests``) carry these in the run besides
#: their evidence (left out of the finding's, which is the report close's as it was).
REPORT_IDS = ("subject", "table_id", "shift_id", "report_id", "window", "from", "to")
#: The kinds of a report's review tests.
REPORT_TEST_KINDS = tuple(str(kind) for kind in STATISTICAL_KINDS)
#: What is pooled: (code, first role, second role or None).
POOLED_KINDS = (("dealer×player", "dealer", "player"), ("dealer×bank", "dealer", "player"),
                ("bank×player", "player", "player"), ("bank", "player", None), ("player", "player", None),
                ("dealer", "dealer", None))


class PooledSums(Sums):
    """``Sums`` over hands of any tables, with the sums of each pooled group: the three
    pairs and the three people alone (``POOLED_KINDS``), with how many tables and shifts
    each group's hands came from."""

    def pooled(self, rho):
        """Each pooled group's sums for ``statistics.pair_figures``, in euros.

        Args:
            rho: the within-hand correlation of two bets (the edge's).
        Returns:
            list of dicts: ``kind`` (a ``POOLED_KINDS`` code), ``a``, ``b`` (None for one
            person), ``hands``, ``bets``, ``staked``, ``actual``, ``expected``,
            ``variance``, ``evidence`` (hand ids, the first ``self.evidence``),
            ``hand_total``, ``tables``, ``shifts`` (distinct counts), ``hand_set`` (the
            hands' count, lowest and highest id and sum of ids: the same hands, the
            same set). A hand without a
            dealer (imported outside a shift) is left out of the dealer's groups.
        """
        if self.empty:
            return []
        common, params = self._with()
        rho = float(rho)
        hand_table = Hand._meta.db_table
        figures = """count(*), sum(bets), sum(staked), sum(actual), sum(mean * staked::float8),
                     sum(sd * sd * ((1 - %s) * squares::float8 + %s * (staked * staked)::float8)),
                     (array_agg(id ORDER BY id))[1:%s], count(DISTINCT table_id), count(DISTINCT shift),
                     sum(u * staked::float8), min(id), max(id), sum(id)"""
        rows = self._fetch(common + f""",
            per_player AS MATERIALIZED (
                SELECT p.*, hand.dealer, hand.bank, hand.mean, hand.sd, hand.u, hand.shift, t.table_id
                  FROM (SELECT hand_id AS id, player, count(*) AS bets, sum(stake) AS staked, sum(result) AS actual,
                               sum(stake * stake) AS squares
                          FROM bet GROUP BY hand_id, player) p
                  JOIN hand ON hand.id = p.id JOIN {hand_table} t ON t.id = p.id),
            per_hand AS (
                SELECT id, min(dealer) AS dealer, min(bank) AS bank, min(mean) AS mean, min(sd) AS sd, min(u) AS u,
                       min(shift) AS shift, min(table_id) AS table_id, sum(bets) AS bets, sum(staked) AS staked,
                       sum(actual) AS actual, sum(squares) AS squares
                  FROM per_player GROUP BY id)
            SELECT 1, dealer, player, {figures} FROM per_player WHERE dealer IS NOT NULL GROUP BY dealer, player
            UNION ALL
            SELECT 2, dealer, bank, {figures} FROM per_hand WHERE dealer IS NOT NULL GROUP BY dealer, bank
            UNION ALL
            SELECT 3, bank, player, {figures} FROM per_player GROUP BY bank, player
            UNION ALL
            SELECT 4, bank, NULL, {figures} FROM per_hand GROUP BY bank
            UNION ALL
            SELECT 5, player, NULL, {figures} FROM per_player GROUP BY player
            UNION ALL
            SELECT 6, dealer, NULL, {figures} FROM per_hand WHERE dealer IS NOT NULL GROUP BY dealer""",
                           params + [rho, rho, self.evidence] * 6)
        out = []
        for (kind, a, b, hands, bets, staked, actual, expected, variance, ids, tables, shifts, theory_sd, low, high,
             total) in rows:
            code, first, second = POOLED_KINDS[kind - 1]
            # The theory's uncertainty (the strategy fitted to the hands: ``Sums``) added as the pairs' is.
            out.append({"kind": code, "a": self._name(first, a), "b": None if second is None else self._name(second, b),
                        "hands": hands, "bets": int(bets), "staked": float(staked), "actual": float(actual),
                        "expected": expected, "variance": variance + theory_sd * theory_sd, "evidence": list(ids),
                        "hand_total": hands, "tables": tables, "shifts": shifts, "theory_sd": theory_sd,
                        "hand_set": [hands, low, high, int(total)]})
        return out


    def footprints(self):
        """The rig's footprint per pooled dealer × player and bank holder × player: the
        hands in which the player won a bet with 7½ (his bet's points) or with the bank
        bust (the settlement's bank points over 7½), counted per hand (a hand of his is
        one trial, however many bets he had in it), per rule set and seat count (the
        theory's index ``edge``), for ``footprint_tests``.

        Returns:
            dict: ``player`` (``{(edge, player id): [hands, hits]}``: every hand of each
            player), ``groups`` (``{(code, a id, b id): {"by_edge": {edge: [hands, hits]},
            "hands", "hits", "evidence" (the hits' hand ids, the first ``self.evidence``),
            "tables", "shifts", "hand_set"}}``), ``names`` (``{(code, a id, b id): (a, b)}``).
        """
        out = {"player": {}, "groups": {}, "names": {}}
        if self.empty:
            return out
        common, params = self._with()
        hand_table, bet_table = Hand._meta.db_table, HandBet._meta.db_table
        sets = """count(*), count(*) FILTER (WHERE hit), (array_agg(id ORDER BY id) FILTER (WHERE hit))[1:%s],
                  count(DISTINCT table_id), count(DISTINCT shift), min(id), max(id), sum(id)"""
        rows = self._fetch(common + f""",
            per AS MATERIALIZED (
                SELECT b.hand_id AS id, b.player_id AS player, min(hand.dealer) AS dealer, min(hand.bank) AS bank,
                       min(hand.edge) AS edge, min(hand.shift) AS shift, min(t.table_id) AS table_id,
                       bool_or(b.net > 0 AND (b.points = 15
                               OR coalesce((t.settlement->'bank'->>'points')::numeric, 0) > 7.5)) AS hit
                  FROM {bet_table} b JOIN hand ON hand.id = b.hand_id JOIN {hand_table} t ON t.id = b.hand_id
                 GROUP BY b.hand_id, b.player_id)
            SELECT 0, edge, NULL::bigint, player, count(*), count(*) FILTER (WHERE hit), NULL::int[], 0, 0, 0, 0, 0
              FROM per GROUP BY edge, player
            UNION ALL
            SELECT 1, edge, dealer, player, count(*), count(*) FILTER (WHERE hit), NULL::int[], 0, 0, 0, 0, 0
              FROM per WHERE dealer IS NOT NULL GROUP BY edge, dealer, player
            UNION ALL
            SELECT 2, edge, bank, player, count(*), count(*) FILTER (WHERE hit), NULL::int[], 0, 0, 0, 0, 0
              FROM per GROUP BY edge, bank, player
            UNION ALL
            SELECT 3, NULL, dealer, player, {sets} FROM per WHERE dealer IS NOT NULL GROUP BY dealer, player
            UNION ALL
            SELECT 4, NULL, bank, player, {sets} FROM per GROUP BY bank, player""", params + [self.evidence] * 2)
        codes = {1: "dealer×player", 2: "bank×player", 3: "dealer×player", 4: "bank×player"}
        for kind, edge, a, player, hands, hits, ids, tables, shifts, low, high, total in rows:
            if kind == 0:
                out["player"][(edge, player)] = [hands, hits]
                continue
            key = (codes[kind], a, player)
            group = out["groups"].setdefault(key, {"by_edge": {}})
            if kind in (1, 2):
                group["by_edge"][edge] = [hands, hits]
            else:
                group.update(hands=hands, hits=hits, evidence=list(ids or []), tables=tables, shifts=shifts,
                             hand_set=[hands, low, high, int(total)])
                out["names"][key] = (self._name("dealer" if kind == 3 else "player", a), self._name("player", player))
        return out


def footprint_tests(found, *, min_hands=MIN_HANDS):
    """The footprint test of a feeding dealer (or bank holder) for each group of
    ``PooledSums.footprints``: one-sided, whether the player won with 7½ or with the bank
    bust in more of the group's hands than expected.

    The expectation is the player's own rate in his other hands of the window (those
    outside the group, same rule set and seats) when he has ``min_hands`` of them, else
    the rate of the other players' hands of the window (same rule set and seats). Not the
    theory's: the rate moves with how the seats play (simulated, reglamento, 4 seats: 0.308
    standing at 4, 0.337 at 5½, 0.315 at 6½), and the theory assumes one strategy; the
    player's own other hands carry his play, the same window's others the table's as it
    was. The test is the two-sample one, the group's hands against the baseline's: under
    the null both share one rate, estimated from both together (``p``, pooled), so the
    count's variance is ``n · p(1 − p) · (1 + n / baseline hands)`` — not the baseline's
    own rate, which a small baseline can put low by chance (a player's 5 of 50 other hands
    made 18 of 50 look like z 4.2 at honest tables: benchmarks/RESULTS.md, "detection").
    p: with one rule set (the usual case), Fisher's exact one-sided test (the group's hits
    among all the hits of group and baseline, hypergeometric); with several, the normal
    with a continuity correction.

    Returns:
        ``{(code, a id, b id): dict}`` of the groups with ``min_hands`` hands or more and
        a baseline: ``hands``, ``observed`` (hits), ``expected_count``, ``sd_count``,
        ``rate`` (expected per hand), ``baseline`` (``"player"`` or ``"others"``),
        ``baseline_hands``, ``z``, ``p_value``; groups under ``min_hands`` hands with
        ``p_value`` None.
    """
    totals = {}
    for (edge, _player), (hands, hits) in found["player"].items():
        sums = totals.setdefault(edge, [0, 0])
        sums[0] += hands
        sums[1] += hits
    out = {}
    for key, group in found["groups"].items():
        if "hands" not in group:
            continue
        player = key[2]
        expected = variance = 0.0
        baseline, baseline_hands, ok, strata = set(), 0, True, []
        for edge, (hands, hits) in group["by_edge"].items():
            own_hands, own_hits = found["player"].get((edge, player), [0, 0])
            out_hands, out_hits = own_hands - hands, own_hits - hits
            if out_hands >= min_hands:
                base, base_hits, source = out_hands, out_hits, "player"
            else:
                all_hands, all_hits = totals.get(edge, [0, 0])
                base, base_hits, source = all_hands - own_hands, all_hits - own_hits, "others"
                if base < min_hands:
                    ok = False
                    break
            rate, pooled = base_hits / base, (hits + base_hits) / (hands + base)
            baseline.add(source)
            baseline_hands += base
            expected += hands * rate
            variance += hands * pooled * (1 - pooled) * (1 + hands / base)
            strata.append((hands, hits, base, base_hits))
        line = {"hands": group["hands"], "observed": group["hits"], "expected_count": expected,
                "sd_count": math.sqrt(variance), "rate": expected / group["hands"] if group["hands"] else None,
                "baseline": "player" if baseline == {"player"} else "others", "baseline_hands": baseline_hands,
                "z": None, "p_value": None}
        if ok and group["hands"] >= min_hands and variance > 0:
            line["z"] = (group["hits"] - expected - 0.5) / math.sqrt(variance)
            if len(strata) == 1:  # Fisher's exact test: the group's share of every hit, hypergeometric
                ((hands, hits, base, base_hits),) = strata
                line["p_value"] = float(hypergeom.sf(hits - 1, hands + base, hits + base_hits, hands))
            else:
                line["p_value"] = 1.0 - NormalDist().cdf(line["z"])
        out[key] = line
    return out


def window_bounds(day: date, days: int):
    """``(first gaming day, start, end)`` of the ``days`` gaming days ending with ``day``."""
    first = day - timedelta(days=days - 1)
    return first, gaming_day_bounds(first)[0], gaming_day_bounds(day)[1]


def _group_tests(sums, *, window, first, last, alpha):
    """The pooled groups of ``sums`` as tests (those with ``MIN_HANDS`` hands) and the
    rest (untested), keyed by ``(kind, a, b)``: the bank's result of each group
    (``statistics.pair_figures``), and for each dealer × player and bank holder × player
    the footprint of a dealer feeding the player (``footprint_tests``: code
    ``footprint:<kind>``, ``observed`` hands against ``expected_count``)."""
    if sums.empty:
        return {}, {}
    rows = sums.pooled(sums.first_edge["within_hand_correlation"])
    figures = statistics.pair_figures(rows, alpha=alpha, min_hands=MIN_HANDS)["pairs"]
    extra = {(row["kind"], row["a"], row["b"]): row for row in rows}
    order = {code: i for i, (code, _first, _second) in enumerate(POOLED_KINDS)}
    figures = sorted(figures, key=lambda pair: (order[pair["kind"]], str(pair["a"]), str(pair["b"])))
    tested, untested, same = {}, {}, {}
    for pair in figures:
        key = (pair["kind"], pair["a"], pair["b"])
        source = extra[key]
        # Its identity is the group and its hands: found again over a longer window or a later night with the
        # same hands, it is the same finding (alerted once); with more hands, a new one.
        line = {"kind": AlertKind.POOLED, "code": pair["kind"], "identity": [pair["a"], pair["b"], *source["hand_set"]],
                "window": window, "from": first, "to": last, "a": pair["a"], "b": pair["b"],
                "hands": pair["hands"], "bets": pair["bets"], "staked": pair["staked"], "actual": pair["actual"],
                "expected": pair["expected"], "sd": pair["sd"], "z": pair["z"], "p_value": pair["p_value"],
                "tables": source["tables"], "shifts": source["shifts"], "hand_ids": pair["evidence"],
                "hand_total": source["hand_total"], "same": []}
        if pair["p_value"] is None:
            untested[key] = line
            continue
        bets = (pair["bets"], pair["staked"], pair["actual"], round(pair["expected"], 6), *source["hand_set"])
        if bets in same:  # the same bets as a group before it: the same test, made once and named with both
            earlier = same[bets]
            earlier["same"].append({"code": pair["kind"], "a": pair["a"], "b": pair["b"]})
            tested[key] = earlier
        else:
            same[bets] = tested[key] = line
    found = sums.footprints()
    footprints = footprint_tests(found)
    for group_key in sorted(footprints, key=lambda k: (order[k[0]], str(found["names"][k]))):
        test = footprints[group_key]
        source = found["groups"][group_key]
        a, b = found["names"][group_key]
        code = f"{FOOTPRINT}:{group_key[0]}"
        key = (code, a, b)
        line = {"kind": AlertKind.POOLED, "code": code, "identity": [a, b, *source["hand_set"]], "window": window,
                "from": first, "to": last, "a": a, "b": b, **test, "tables": source["tables"],
                "shifts": source["shifts"], "hand_ids": source["evidence"], "hand_total": source["hits"], "same": []}
        if test["p_value"] is None:
            untested[key] = line
            continue
        hits = (FOOTPRINT, test["hands"], test["observed"], *source["hand_set"])
        if hits in same:  # the same hands of the same player (one dealer, one holder): one test
            earlier = same[hits]
            earlier["same"].append({"code": code, "a": a, "b": b})
            tested[key] = earlier
        else:
            same[hits] = tested[key] = line
    return tested, untested


def shift_card_tests(day: date) -> list[dict]:
    """The card tests (chi-square, ``reports.audit``) of the shift reports stored at the
    close of the shifts closed on gaming day ``day``, as tests of the run: one per test
    with a p-value and enough cards (not ``small``). Each carries what
    ``detection.exception_findings`` would have raised: the report and its exception."""
    start, end = gaming_day_bounds(day)
    tests = []
    for report in (Report.objects.filter(kind=ReportKind.SHIFT, at_close=True, shift__closed_at__gte=start,
                                         shift__closed_at__lt=end).order_by("id")
                   .only("id", "key", "table_id", "shift_id", "result")):
        for test in report.result.get("cards", []) or []:
            if not isinstance(test, dict) or test.get("p_value") is None or test.get("small"):
                continue
            code = STATISTICAL_EXCEPTIONS[0]
            item = {"code": code, "deck": test["deck"], "chi_square": test.get("chi_square"),
                    "df": test.get("df"), "p_value": test["p_value"]}
            tests.append({"kind": AlertKind.EXCEPTION, "code": code, "identity": {"grouped": code},
                          "subject": report.key, "table_id": report.table_id, "shift_id": report.shift_id,
                          "report_id": report.pk, "p_value": float(test["p_value"]), "item": item,
                          "window": REPORT_WINDOW, "from": day.isoformat(), "to": day.isoformat()})
    return tests


def day_reports(day: date) -> list:
    """The reports of gaming day ``day`` whose review's tests the pooled run takes: the
    shift reports stored at the close of the shifts closed that day (as
    ``shift_card_tests``), and the bank-rotation reports computed that day, the latest
    version of each subject computed that day (the nightly bank reports of a calendar day,
    computed the next morning, fall in the next gaming day's run); by id."""
    start, end = gaming_day_bounds(day)
    shifts = Report.objects.filter(kind=ReportKind.SHIFT, at_close=True, shift__closed_at__gte=start,
                                   shift__closed_at__lt=end)
    banks = (Report.objects.filter(kind=ReportKind.BANKS, computed_at__gte=start, computed_at__lt=end)
             .order_by("key", "-version").distinct("key"))
    found = [*shifts.select_related("table", "shift"), *banks.select_related("table", "shift")]
    return sorted(found, key=lambda report: report.pk)


def merge_report_tests(tests, report_lines):
    """``tests`` (the run's own) with the reports' review tests (``report_review_tests``),
    a pooled group of the same bets as a report's expected-against-actual line or pair (a
    shift's dealer × player pair and the day's same group: one table, one shift) made once:
    the report's test is kept (its subject, shift and report: its alert is the one its close
    raised before), naming the pooled group (and the groups of its ``same``) in its
    ``same``. Hand ids, where both list them all, must agree.

    Returns:
        the list of tests to correct together.
    """
    index = {}
    for line in tests:
        if line["kind"] == AlertKind.POOLED and not line["code"].startswith(FOOTPRINT) \
                and line.get("p_value") is not None:
            index.setdefault(bets_key(line), []).append(line)
    dropped = set()
    for test in report_lines:
        if test["kind"] not in (AlertKind.EXPECTED, AlertKind.PAIR) or test.get("p_value") is None:
            continue
        for line in index.get(bets_key(test), []):
            ids, line_ids = test.get("hand_ids"), line.get("hand_ids")
            whole = ids is not None and len(ids) == test.get("hand_total", len(ids)) \
                and len(line_ids) == line["hand_total"]
            if id(line) in dropped or (whole and sorted(ids) != sorted(line_ids)):
                continue
            named = {(other.get("code"), other.get("a"), other.get("b")) for other in test.get("same", [])}
            test["same"] = [*test.get("same", []), *(other for other in [{"code": line["code"], "a": line["a"],
                                                                          "b": line["b"]}, *line["same"]]
                                                     if (other["code"], other["a"], other["b"]) not in named)]
            dropped.add(id(line))
            break
    return [line for line in tests if id(line) not in dropped] + list(report_lines)


def report_review_tests(day: date, *, theory=None, cards=True, reports=None) -> list[dict]:
    """The statistical tests of the reviews of the reports of gaming day ``day``
    (``reports``, default ``day_reports``), as tests of the run: ``detection.report_tests``
    of each, its card tests only with ``cards`` (their Monte Carlo takes seconds a report;
    the day's hands' card tests are the run's own as well)."""
    tests = []
    for report in day_reports(day) if reports is None else reports:
        for test in report_tests(report, theory=theory, card_observations=None if cards else {}):
            tests.append({**test, "window": REPORT_WINDOW, "from": day.isoformat(), "to": day.isoformat()})
    return tests


def pooled_review(day: date, *, theory=None, alpha=statistics.NIGHTLY_ALPHA, card_hands=CARD_HANDS_LIMIT,
                  report_cards=True, reports=None, tested_before=frozenset()) -> dict:
    """The pooled review of the windows ending with gaming day ``day``, read only.

    Args:
        day: the last gaming day of every window.
        theory: a ``detection.Theory`` (default: a new one, computing a missing edge).
        alpha: the level of the one correction over every test (``statistics.NIGHTLY_ALPHA``).
        card_hands: the day's latest hands at most whose cards are tested.
        report_cards: the card tests of the day's reports' reviews taken too
            (``report_review_tests``).
        reports: the reports whose reviews' tests are taken (default: ``day_reports(day)``).
        tested_before: the ``bets_digest`` of every test an earlier night's run made
            (``tested_before``): a test of the same bets is not made again.
    Returns:
        dict: ``day`` (ISO), ``alpha``, ``hands`` (settled hands of the month window),
        ``tests`` (every test with a p-value, each with ``combined_q`` and
        ``combined_alert``, by q; pooled groups have ``window``, ``from``, ``to``, ``a``,
        ``b``, the figures in euros, ``tables``, ``shifts``, ``hand_ids`` cut to
        ``EVIDENCE_LIMIT``, ``hand_total`` and ``same``: the other groups of the
        same bets, ``code``, ``a``, ``b``; a report's test, its review's, has its
        ``subject``, ``table_id``, ``shift_id``, ``report_id`` and window ``report``: the
        day), ``accumulating`` (the groups still under
        ``MIN_HANDS`` hands to date: ``code``, ``a``, ``b``, ``hands``), ``repeated``
        (how many tests were left out: their bets tested on an earlier night), ``findings``
        (``Finding``s of the alerts).
    """
    theory = theory or Theory()
    tests, untested, seen = [], {}, {}
    month_hands = 0
    for window, days in WINDOWS:
        first, start, end = window_bounds(day, days)
        sums = PooledSums(Hand.objects.filter(opened_at__gte=start, opened_at__lt=end), theory)
        if window == WINDOWS[-1][0]:
            month_hands = sums.counts()[0]
        tested, rest = _group_tests(sums, window=window, first=first.isoformat(), last=day.isoformat(), alpha=alpha)
        lines = {}
        for key, line in tested.items():
            untested.pop(key, None)
            lines.setdefault(id(line), (line, []))[1].append(key)
        for line, keys in lines.values():
            # The same hands as a shorter window's, for every group it names: the same test.
            if any(seen.get(key) != line["hands"] for key in keys):
                tests.append(line)
            for key in keys:
                seen[key] = line["hands"]
        untested.update(rest)
    accumulating = []
    if untested:
        end = gaming_day_bounds(day)[1]
        sums = PooledSums(Hand.objects.filter(opened_at__lt=end), theory)
        earliest = Hand.objects.filter(opened_at__lt=end).order_by("opened_at").values_list("opened_at", flat=True)
        since = gaming_day(earliest.first()).isoformat() if earliest.exists() else day.isoformat()
        tested, rest = _group_tests(sums, window=TO_DATE, first=since, last=day.isoformat(), alpha=alpha)
        added = set()
        for key in untested:
            if key in tested:
                if id(tested[key]) not in added:
                    added.add(id(tested[key]))
                    tests.append(tested[key])
            else:
                line = rest.get(key, untested[key])
                accumulating.append({"code": line["code"], "a": line["a"], "b": line["b"], "hands": line["hands"]})
    start, end = gaming_day_bounds(day)
    observations = hand_card_observations(Hand.objects.filter(opened_at__gte=start, opened_at__lt=end),
                                          limit=card_hands)
    for deck, found in sorted(observations.items()):
        for test in statistics.card_tests(found, deck=deck, alpha=alpha):
            tests.append({"kind": AlertKind.CARDS, "code": f"{test['test']}:{test['who']}",
                          "identity": ["pooled", day.isoformat(), deck, test["test"], test["who"]], "deck": deck,
                          "test": test["test"], "who": test["who"], "cards": test["cards"],
                          "categories": test["categories"], "statistic": test["statistic"], "df": test["df"],
                          "p_value": test["p_value"], "method": test["method"], "rank": test["evidence"]["rank"],
                          "hand_ids": test["evidence"]["hands"][:EVIDENCE_LIMIT],
                          "rank_total": test["evidence"]["total"], "window": "day", "from": day.isoformat(),
                          "to": day.isoformat()})
    tests.extend(shift_card_tests(day))
    tests = merge_report_tests(tests, report_review_tests(day, theory=theory, cards=report_cards, reports=reports))
    # The bets an earlier night tested, under any name or window, are judged: made again they would
    # add a second chance at a false alert and raise the bar every other test of the night must pass.
    fresh = [test for test in tests if not tested_before or bets_digest(test) not in tested_before]
    repeated, tests = len(tests) - len(fresh), fresh
    combined = statistics.combined_alerts(tests, alpha=alpha)
    findings = [_finding(test, day) for test in combined if test["combined_alert"]]
    accumulating.sort(key=lambda line: (line["code"], str(line["a"]), str(line["b"])))
    for test in combined:
        test["kind"] = str(test["kind"])
    return {"day": day.isoformat(), "alpha": alpha, "hands": month_hands, "tests": combined,
            "accumulating": accumulating, "repeated": repeated, "findings": findings}


def tested_before(day: date) -> frozenset:
    """The bets the pooled runs of the gaming days before ``day`` tested, for
    ``pooled_review``'s ``tested_before``: the ``bets_digest`` of every test of each run
    done for a day of the month window before ``day`` (a test made tonight has hands in
    that window, so its bets, if tested before, were tested on one of those nights).

    Returns:
        frozenset of 64-hex-digit digests (tests of no bets, cards for one, left out).
    """
    first = day - timedelta(days=WINDOWS[-1][1])
    runs = PooledReview.objects.filter(status=PooledReview.Status.DONE, day__lt=day, day__gte=first)
    found = set()
    for result in runs.values_list("result", flat=True).iterator(chunk_size=5):
        for test in (result or {}).get("tests", []):
            found.add(bets_digest(test))
    found.discard("")
    return frozenset(found)


def _finding(test, day):
    """A test that alerts as a ``Finding``: a pooled group's (subject ``pooled:<code>``),
    a card test of the day's hands (``pooled:<day>``), or a shift report's card test (as
    ``detection.exception_findings`` would raise it: its report's subject), or a report's
    review test (as its report's close raised it before: the report's subject, identity,
    evidence with this run's ``combined_q``, table, shift and report)."""
    if test["kind"] in REPORT_TEST_KINDS and test.get("report_id") is not None:
        evidence = {key: value for key, value in test.items() if key not in ("kind", "code", "identity", *REPORT_IDS)}
        return Finding(kind=test["kind"], code=test["code"], subject=test["subject"], identity=test["identity"],
                       table_id=test["table_id"], shift_id=test["shift_id"], report_id=test["report_id"],
                       evidence=evidence, bets=bets_digest(test))
    if test["kind"] == AlertKind.EXCEPTION:
        item = {**test["item"], "q_value": test["combined_q"]}
        return Finding(kind=AlertKind.EXCEPTION, code=test["code"], subject=test["subject"],
                       identity=test["identity"], table_id=test["table_id"], shift_id=test["shift_id"],
                       report_id=test["report_id"],
                       evidence={"code": test["code"], "count": 1, "items": [item], "item_total": 1,
                                 "combined_q": test["combined_q"]})
    evidence = {key: value for key, value in test.items() if key not in ("kind", "code", "identity")}
    if test["kind"] == AlertKind.CARDS:
        return Finding(kind=AlertKind.CARDS, code=test["code"], subject=f"pooled:{day.isoformat()}",
                       identity=test["identity"], evidence=evidence)
    subject = f"pooled:{test['code']}:{test['a']}" + ("" if test["b"] is None else f":{test['b']}")
    return Finding(kind=AlertKind.POOLED, code=test["code"], subject=subject[:120], identity=test["identity"],
                   evidence=evidence, group=finding_group(test), bets=bets_digest(test))


#: Whose bets a group's test counts, by its code: the player's (his side of the group,
#: ``"a"`` or ``"b"``), or every bet of its hands (absent).
BETS_OF = {"dealer×player": "b", "bank×player": "b", "player": "a"}


def bets_digest(test) -> str:
    """The bets a test tested, as ``Finding.bets``: SHA-256 (hex) of whose bets (the
    player's, ``BETS_OF``, or every bet of the hands), what it counts (the bank's result:
    the stakes and result to the cent; a footprint: its hands and hits) and its hands (their
    count, lowest and highest id and sum of ids: a pooled group's ``hand_set``, a report's
    whole's ``hand_set``, or a report's test's hand ids when it lists them all).

    Args:
        test: a test of ``pooled_review``'s (a pooled group's, or a report's review's).
    Returns:
        str: 64 hex digits; "" for a test of no bets (cards, large losses) or a report's
        test listing only its first ``EVIDENCE_LIMIT`` hands.
    """
    if test["kind"] == AlertKind.POOLED:
        hand_set = list(test["identity"][2:])
    elif test["kind"] in (AlertKind.EXPECTED, AlertKind.PAIR):
        ids = test.get("hand_ids") or []
        if test.get("hand_set"):  # a review's whole ("all"): its hands listed nowhere, their set given
            hand_set = list(test["hand_set"])
        elif not ids or len(ids) != test.get("hand_total", len(ids)):
            return ""
        else:
            hand_set = [len(ids), min(ids), max(ids), sum(ids)]
    else:
        return ""
    code = test["code"]
    if code.startswith(FOOTPRINT):
        figures = [FOOTPRINT, test["hands"], test["observed"]]
        code = code.partition(":")[2]
    else:
        figures = ["result", round(float(test["staked"]) * 100), round(float(test["actual"]) * 100)]
    side = BETS_OF.get(code)
    whose = None if side is None else str(test.get(side))
    return hashlib.sha256(json.dumps([whose, *figures, *hand_set], ensure_ascii=False).encode()).hexdigest()


def finding_group(test) -> list:
    """A pooled group's test's ``Finding.group``: its window (``"week"``, ``"month"``,
    ``"to_date"``), so that the group found again over the same kind of window on a later
    night, with more hands, joins its open alert; a day's window with its day (another
    day's hands are another finding)."""
    window = test.get("window")
    return [window, test.get("to")] if window == "day" else [window]


# ---------------------------------------------------------------------------------------
# Stored runs


def pooled_review_request(*, day: date, requested_by=None) -> PooledReview:
    """Ask for the pooled review of the windows ending with gaming day ``day``: a pending
    ``PooledReview``, sent to the queue (``reports.pooled_review``) once this commits.

    Args:
        day: the gaming day (not after today's).
        requested_by: the auditor asking, None for the nightly run.
    Returns:
        the PooledReview (pending).
    Raises:
        ValueError: ``day`` after today's gaming day.
    """
    if day > gaming_day(timezone.now()):
        raise ValueError("the pooled review's day is after today's gaming day")
    with db.atomic():
        run = PooledReview.objects.create(day=day, requested_by=requested_by)
        run_id = run.pk

        def send():
            from reports.tasks import pooled_review as task

            task.delay(run_id)

        db.on_commit(send, robust=True)
    return run


def pooled_review_run(*, run_id: int, theory=None) -> PooledReview:
    """Compute ``PooledReview`` ``run_id`` and raise its alerts, in one transaction
    (idempotent: a run already done is returned as it is; a finding already raised is
    not raised again). A run left running (its worker killed: the task is given again,
    acknowledged late) or failed (retried) is computed again.

    Returns:
        the PooledReview, done (``result`` as ``pooled_review``'s without its findings, with
        ``joined``: the ids of the open alerts its findings joined,
        ``opened`` the alerts opened now) or failed (``error``).
    """
    with db.atomic():
        run = PooledReview.objects.select_for_update().filter(pk=run_id).first()
        if run is None or run.status == PooledReview.Status.DONE:
            return run
        run.status = PooledReview.Status.RUNNING
        run.started_at = timezone.now()
        run.save(update_fields=["status", "started_at"])
    try:
        with db.atomic():
            result = pooled_review(run.day, theory=theory, tested_before=tested_before(run.day))
            raised = alerts_raise_counted(findings=result.pop("findings"), run=run)
            result["joined"] = sorted({alert.pk for alert in raised["joined"]})
            run.result = result
            run.opened = len(raised["opened"])
            run.alerts = sum(1 for test in result["tests"] if test["combined_alert"])
            run.status = PooledReview.Status.DONE
            run.finished_at = timezone.now()
            run.save(update_fields=["result", "opened", "alerts", "status", "finished_at"])
    except Exception as error:
        PooledReview.objects.filter(pk=run_id).update(status=PooledReview.Status.FAILED, error=str(error)[:2000],
                                                      finished_at=timezone.now())
        raise
    return run


def latest_pooled_review():
    """The latest pooled review done (None before the first), and the one asked for and
    not yet done after it (None when none is)."""
    done = PooledReview.objects.filter(status=PooledReview.Status.DONE).order_by("-finished_at", "-id").first()
    waiting = PooledReview.objects.filter(status__in=[PooledReview.Status.PENDING, PooledReview.Status.RUNNING])
    if done is not None:
        waiting = waiting.filter(created_at__gte=done.created_at)
    return done, waiting.order_by("-created_at", "-id").first()
