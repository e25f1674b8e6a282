"""The auditor's alerts: their power against planted cheats and their noise on honest
play. A script that prints a table, never a timed test.

    .venv/bin/python benchmarks/detection.py [--seeds 10] [--honest-seeds 5] [--days 7] [--hands 50]

In a scratch database ``detection_bench_<pid>`` (``createdb``, migrated, dropped at the
end). Each trial is seeded and rolled back at its end: ``--tables`` tables of one rule set
(``tests/reports/sessions.py``'s, 4 seats, stakes of 1.00, the profile ``--profile``:
reglamento unless told), ``--days`` gaming
days ending yesterday, one shift per table and day of ``--hands`` hands, its dealer drawn
from ``--dealers``, its 4 seats from ``--players``, the bank handed (``table_bank_transfer``)
to a holder drawn from ``--holders`` at each shift; the hands played by the edge's own
simulation (``game.edge.play_hands``, seeds standing at ``stand_at``) and imported through
``tables.importing.hand_import_records`` into the open shift. Then, as in production:
each shift's report stored at its close (a bare ``Report``: its close raises no
statistical alert, ``reports.detection.report_findings``, counted "per shift") and the
pooled review (``reports.pooling.pooled_review``, with the day's card tests and the
review tests of the night's shift reports, their card tests with ``--shift-cards`` only:
their Monte Carlo takes seconds a shift) of every night, each leaving out the bets an
earlier night tested, as the nightly run does (``tested_before``; ``--retest`` tests them
again, as before it: the same runs' A/B; the mean tests a night, and left out, are
printed). A planted shift's own review, under its own
correction, is still read to say whether it alone would have named the cheat.

The trials:

- ``honest``: nothing planted; the honest seats standing at each ``--stand-at`` (half-
  points: 8 = 4 points, 13 = 6½) where the theory assumes the profile's default. Every
  alert is false: counted per 10,000 honest hands (distinct alerts: a finding raised
  again the next night with the same figures is one, and so is a group's finding that
  joins its open alert, found again over the same kind of window with more hands).
- ``pair``: dealer d1 and player p1 together in 3 shifts, one at each of 3 tables on 3
  different days (``--hands`` each: 150 hands at 50), p1 winning his bet in a share of
  those hands (``--pair-shares``; the hand dealt again until he does: a dealer feeding
  him; with ``--pair-rig natural`` until his bet is paid double, his 7½, or won with the
  bank bust). Detected: a pooled alert on dealer×player d1 × p1 on any night, its bank's
  result or its footprint (``footprint:dealer×player``: the hands p1 won with 7½ or the
  bank bust; the seeds found by it printed beside).
- ``holder``: holder h1 holds the bank in ``--holder-tenures`` shifts over the tables,
  in each beating the expectation by ``k`` standard errors of that tenure
  (``--holder-sigmas``; hands the bank lost dealt again while it is short of that).
  Detected: a pooled alert on the holder h1 (code ``bank``) on any night.

For each planted trial the share of seeds detected, and whether any single shift's review
named the cheat, are printed; for the honest trials the false alerts (pooled and per shift)
and per 10,000 hands. With ``--levels``, the same runs are read again at other levels of
the one correction (its q-values do not depend on the level): per level, the alerts an
honest trial's tests with q below it would open per 10,000 hands (``Alerts``: a group found
again, or the same bets under another name, is one), and the planted trials' seeds whose
cheat's group would alert: the trade between noise and power, measured. With ``--bound``,
nothing is played: ``pair_bound`` prints the most any test could find of the pair. The theory is
``bank_edge`` of the rule set (``--theory-hands``,
seed 17), stored as the reviews read it.
"""

import argparse
import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import create_scratch, database_url, drop_scratch  # noqa: E402  (beside this script)

#: The rule set of the run's tables (``--profile``): ``tests/reports/sessions.py``'s with that profile.
RULES = None


def rules_of(profile):
    """The sessions' rules (the bank stays with its holder) with ``profile``."""
    from tests.reports.sessions import RULES as SESSION_RULES

    return {**SESSION_RULES, "profile": profile}


class Rollback(Exception):
    """Raised at a trial's end: its rows are rolled back."""


def moments(day, count):
    from casino.periods import gaming_day_bounds

    start = gaming_day_bounds(day)[0].replace(hour=20, minute=0)
    return [start + timedelta(minutes=i) for i in range(count)]


def fed(result, seat, rig):
    """Whether a simulated hand is one a feeding dealer deals seat ``seat`` (position from
    1): ``"win"``, his bet won; ``"natural"``, his bet paid at least twice its stake (his
    7½ at a table paying 7½ double) or won with the bank bust (the issue's rig)."""
    won = [(stake, bank) for position, stake, bank in result.bets if position == seat and bank < 0]
    if rig == "win":
        return bool(won)
    return any(-bank >= 2 * stake for stake, bank in won) or (bool(won) and result.bank_points > 15)


def shift_records(rng, hands, *, edge, stand_at=None, feed_seat=None, feed_share=0.0, feed_rig="win",
                  bank_sigmas=0.0):
    """``hands`` simulated records of one shift (seats s1 … s4, bank ``banca``), with:
    ``feed_seat`` (position from 1) winning his bet in ``feed_share`` of the hands, or the
    bank beating its expectation by ``bank_sigmas`` standard errors over the shift."""
    from game.edge import default_strategy, hand_variance, play_hands
    from tests.reports.sessions import SEATS

    strategy = None if stand_at is None else default_strategy(RULES, stand_at=stand_at)
    plays = play_hands(RULES, seats=SEATS, hands=10 ** 9, rng=random.Random(rng.random()), strategy=strategy,
                       record=True)
    out, excess, variance = [], 0.0, 0.0
    mean, sd, rho = edge["mean_per_unit"], edge["sd_per_unit_bet"], edge["within_hand_correlation"]
    for _ in range(hands):
        result = next(plays)
        if feed_seat is not None and rng.random() < feed_share:
            while not fed(result, feed_seat, feed_rig):
                result = next(plays)
        if bank_sigmas:
            while sum(b for _p, _s, b in result.bets) < 0 and (not variance or excess / variance ** 0.5
                                                                < bank_sigmas):
                result = next(plays)
        stakes = [stake / 100 for _p, stake, _b in result.bets]
        excess += sum(b for _p, _s, b in result.bets) / 100 - mean * sum(stakes)
        variance += hand_variance(stakes, sd, rho)
        out.append(result.record)
    return out


def plan(rng, args, kind):
    """The trial's shifts: ``[(day offset, table index, dealer, seated, holder, plant)]``,
    plant a dict of ``shift_records``' keywords."""
    dealers = [f"d{i}" for i in range(1, args.dealers + 1)]
    players = [f"p{i}" for i in range(1, args.players + 1)]
    holders = [f"h{i}" for i in range(1, args.holders + 1)]
    shifts = []
    for day in range(args.days):
        for table in range(args.tables):
            dealer = rng.choice(dealers[1:] if kind == "pair" else dealers)
            seated = rng.sample(players[1:] if kind == "pair" else players, 4)
            holder = rng.choice(holders[1:] if kind == "holder" else holders)
            shifts.append([day, table, dealer, seated, holder, {}])
    if kind == "pair":  # d1 deals p1 at 3 tables on 3 different days
        for table, day in enumerate(rng.sample(range(args.days), 3)):
            shift = next(s for s in shifts if s[0] == day and s[1] == table % args.tables)
            shift[2] = "d1"
            shift[3] = ["p1", *shift[3][1:]]
            shift[5] = {"feed_seat": 1, "feed_share": args.share, "feed_rig": args.pair_rig}
    if kind == "holder":
        for shift in rng.sample(shifts, min(args.holder_tenures, len(shifts))):
            shift[4] = "h1"
            shift[5] = {"bank_sigmas": args.sigmas}
    return shifts


def trial(args, kind, seed, *, edge, theory, stand_at=None):
    """One trial (rolled back): ``{"hands", "pooled", "single", "detected", "single_named"}``.
    ``theory``: the run's one ``Theory`` (computing a missing edge: the strategy fitted to
    the hands; its edges kept in memory across the trials, whose rows are rolled back)."""
    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.utils import timezone

    from casino.periods import gaming_day
    from patrons.models import Player
    from reports.alerts import alert_raise_joined
    from reports.detection import STATISTICAL_KINDS, report_findings, review
    from reports.models import Report, ReportKind
    from reports.pooling import bets_digest, pooled_review
    from tables import services
    from tables.models import Hand
    from tests.reports.sessions import cast, play_shift, simulated_table

    rng = random.Random(f"{kind}-{seed}-{stand_at}")
    shifts = plan(rng, args, kind)
    yesterday = gaming_day(timezone.now()) - timedelta(days=1)
    out = {}
    try:
        with transaction.atomic():
            staff = {"cashier": get_user_model().objects.get(username="caja1"),
                     "supervisor": get_user_model().objects.get(username="pit1")}
            people = sorted({s[4] for s in shifts} | {p for s in shifts for p in s[3]} | {"h1"})
            tables = [simulated_table(f"Mesa {n + 1}", staff, holders=(shifts[n][4],), players=people,
                                      rules=RULES)
                      for n in range(args.tables)]
            dealers = {user.username: user for user in get_user_model().objects.filter(username__startswith="d")}
            hands = 0
            single, single_named, night_reports = set(), False, {}
            for day, table_index, dealer, seated, holder, planted in sorted(shifts, key=lambda s: (s[0], s[1])):
                table = tables[table_index]
                if table.bank_tenures.get(closed_at__isnull=True).holder.code != holder:
                    services.table_bank_transfer(table=table, holder=Player.objects.get(code=holder),
                                                 capital=services_capital(), by=staff["supervisor"])
                when = yesterday - timedelta(days=args.days - 1 - day)
                records = shift_records(rng, args.hands, edge=edge, stand_at=stand_at, **planted)
                shift = play_shift(table, dealers[dealer], staff["supervisor"],
                                   [cast(r, seated, started_at=at) for r, at in
                                    zip(records, moments(when, len(records)), strict=True)])
                hands += len(records)
                # The shift's report stored at its close: its close raises no statistical alert (its review's
                # tests go to the night's pooled run, ``night_reports``); a report's result is not needed for them.
                report = Report.objects.create(kind=ReportKind.SHIFT, key=f"shift:{shift.pk}", at_close=True,
                                               table=table, shift=shift, result={"shift": {"open": False}})
                night_reports.setdefault(day, []).append(report)
                if planted:  # would the shift's own review, under its own correction, have named the cheat?
                    result = review(Hand.objects.filter(shift=shift), subject=f"shift:{shift.pk}",
                                    theory=theory, card_observations=None if args.shift_cards else {})
                    single_named = single_named or any(kind_ in ("pair", "expected")
                                                       for kind_, *_rest in result["findings"])
                single.update((f.kind, f.code, str(f.identity), shift.pk) for f in report_findings(report)
                              if f.kind in STATISTICAL_KINDS)  # none: left to the pooled run
            pooled, detected, footprint = set(), False, False
            levels = {level: Alerts() for level in args.levels}  # the alerts each level would open
            tested = set()  # the bets the nights before tested (``reports.pooling.tested_before``)
            tests_made = repeated = 0
            for night in range(args.days):
                day = yesterday - timedelta(days=args.days - 1 - night)
                # The night's shift reports, as in production (each night's run takes the reports of its day).
                result = pooled_review(day, theory=theory, report_cards=args.shift_cards,
                                       reports=night_reports.get(night, []), tested_before=frozenset(tested))
                if not args.retest:
                    tested.update(bets_digest(test) for test in result["tests"])
                tests_made += len(result["tests"])
                repeated += result["repeated"]
                for test in result["tests"]:
                    for level, groups in levels.items():
                        if test["combined_q"] < level and (kind == "honest" or planted_group(kind, test)):
                            groups.add(test)
                # Raised as the nightly run raises them (rolled back with the trial): a finding of a group
                # whose alert is open joins it (one ongoing alert), so the false alerts are the alerts opened.
                raised = {}
                for finding in result["findings"]:
                    alert, outcome = alert_raise_joined(finding=finding)
                    raised[id(finding)] = (alert.pk, outcome)
                for finding in result["findings"]:
                    alert_id, outcome = raised[id(finding)]
                    if args.show_alerts and outcome != "known":
                        show_alert(f"pooled night {night}" + (f" (joins #{alert_id})" if outcome == "joined" else ""),
                                   finding.kind, finding.code, finding.evidence)
                    pooled.add(alert_id)
                    e = finding.evidence
                    named = [(finding.code, e.get("a"), e.get("b"))] + [(o.get("code"), o.get("a"), o.get("b"))
                                                                        for o in e.get("same") or []]
                    if kind == "pair" and {("dealer×player", "d1", "p1"), ("footprint:dealer×player", "d1", "p1")} \
                            & set(named):
                        detected = True
                        footprint = footprint or ("footprint:dealer×player", "d1", "p1") in named
                    if kind == "holder" and ("bank", "h1", None) in named:
                        detected = True
            out = {"hands": hands, "pooled": len(pooled), "single": len(single), "detected": detected,
                   "single_named": single_named, "footprint": footprint, "tests": tests_made, "repeated": repeated,
                   "levels": {level: len(groups) for level, groups in levels.items()}}
            raise Rollback
    except Rollback:
        pass
    return out


def pair_bound(args, *, tests=(1, 10, 50, 100, 150)):
    """The most any test can find of the planted pair, printed: the rig multiplies the
    likelihood of each hand it would deal alike, so the count of such hands among the
    pair's ``3 × --hands`` is the sufficient statistic, and the one-sided binomial test of
    it at a level is the most powerful test there is (Neyman–Pearson; the count's
    likelihood ratio grows with it for every share). For each share, level and number of
    tests a night (a correction over ``m`` tests asks the first about level / m of it):
    that test's exact power, with the rig's rate in honest hands simulated
    (``--theory-hands`` hands, seat 1, the profile's default strategy, seed 17)."""
    from scipy.stats import binom

    from game.edge import play_hands
    from tests.reports.sessions import SEATS

    hands = args.theory_hands
    plays = play_hands(RULES, seats=SEATS, hands=hands, rng=random.Random(17))
    rate = sum(fed(result, 1, args.pair_rig) for result in plays) / hands
    n = 3 * args.hands
    print(f"the pair's bound: {n} hands, the rig ({args.pair_rig}) met in {rate:.4f} of honest hands "
          f"({hands} simulated)\n")
    print("| share rigged | level | " + " | ".join(f"{m} test{'s' * (m > 1)}" for m in tests) + " |")
    print("|---|---|" + "---|" * len(tests))
    for share in [float(x) for x in args.pair_shares.split(",") if x]:
        rigged = (1 - share) * rate + share
        for level in args.levels or [0.0025]:
            cells = []
            for m in tests:
                count = int(binom.isf(level / m, n, rate)) + 1  # the fewest hands that reject at level / m
                cells.append(f"{binom.sf(count - 1, n, rigged):.2f} (≥ {count})")
            print(f"| {share:.0%} | {level:.2%} | " + " | ".join(cells) + " |")


def tests_a_night(made, left, nights) -> str:
    """The mean tests a night's run made and left out (their bets tested before), printed."""
    return f"{made / nights:.1f} ({left / nights:.1f})" if nights else "—"


def test_group(test) -> tuple:
    """A tested group as one ongoing alert is one: its kind, code, people or subject, window."""
    return (test.get("kind"), test.get("code"), test.get("a"), test.get("b"), test.get("subject"),
            str(test.get("group")), test.get("window"))


class Alerts:
    """The alerts a level's tests would open, counted as the nightly run raises them: a test
    of a group found before (``test_group``: one ongoing alert) or of the same bets as one
    found before under any name (``reports.pooling.bets_digest``: ``Finding.bets``) is that
    alert. ``len()``: how many."""

    def __init__(self):
        self._alert = {}  # a group's or bets' key -> its alert (an int)
        self._count = 0

    def add(self, test) -> None:
        from reports.pooling import bets_digest

        keys = [("group", test_group(test))]
        digest = bets_digest(test)  # "" for a test of no bets
        if digest:
            keys.append(("bets", digest))
        known = [self._alert[key] for key in keys if key in self._alert]
        alert = known[0] if known else self._count
        if not known:
            self._count += 1
        for key in keys:
            self._alert.setdefault(key, alert)

    def __len__(self):
        return self._count


def planted_group(kind, test) -> bool:
    """Whether a test (or one of its same bets') is of the planted cheat: d1 × p1 (its result
    or its footprint) for ``pair``, the holder h1 for ``holder``."""
    named = [(test.get("code"), test.get("a"), test.get("b"))] + [(o.get("code"), o.get("a"), o.get("b"))
                                                                   for o in test.get("same") or []]
    if kind == "pair":
        return bool({("dealer×player", "d1", "p1"), ("footprint:dealer×player", "d1", "p1")} & set(named))
    return ("bank", "h1", None) in named


def show_alert(where, kind, code, evidence):
    """Print one alert with its group, figure, expectation, band and fit (``--show-alerts``)."""
    e = evidence
    fit = e.get("fit") or {}
    parts = [f"  ALERT {where}: {kind} {code}"]
    for name in ("group", "a", "b", "window", "from", "to", "hands", "tables", "shifts", "staked", "actual",
                 "expected", "sd", "theory_sd", "observed", "expected_count", "rate", "baseline", "baseline_hands", "z", "p_value", "combined_q", "per_unit_actual", "per_unit_expected",
                 "per_unit_band", "deck", "test", "who", "statistic", "items"):
        if e.get(name) is not None:
            value = e[name]
            if name == "items":
                value = [{k: v for k, v in item.items() if k in ("code", "deck", "p_value", "q_value")}
                         for item in value]
            parts.append(f"{name}={value:.4g}" if isinstance(value, float) else f"{name}={value}")
    if e.get("same"):
        parts.append(f"same={e['same']}")
    if fit:
        parts.append(f"fit stand_at={fit.get('stand_at')} bank={fit.get('bank_stand_at')} "
                     f"plausible={fit.get('plausible')} agreement={fit.get('agreement')} hands={fit.get('hands')}")
    print(" ".join(parts), flush=True)


def services_capital():
    from decimal import Decimal

    return Decimal("500.00")


def setup(theory_hands):
    """The staff and dealers, the theory stored. Returns the edge's figures."""
    from game.edge import bank_edge
    from reports.detection import edge_store
    from tests.factories import UserFactory, open_drawer
    from tests.reports.sessions import SEATS

    cashier = UserFactory(username="caja1", roles=["cashier"])
    UserFactory(username="pit1", roles=["pit_supervisor"])
    open_drawer(cashier)
    for n in range(1, 10):
        UserFactory(username=f"d{n}", roles=["dealer"])
    edge = bank_edge(RULES, seats=SEATS, hands=theory_hands, seed=17).as_dict()
    edge_store(rules=RULES, seats=SEATS, hands=theory_hands, seed=17, result=edge)
    return edge


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10, help="seeds per planted strength")
    parser.add_argument("--honest-seeds", type=int, default=5, help="seeds per honest stand threshold")
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--tables", type=int, default=3)
    parser.add_argument("--hands", type=int, default=50, help="hands per shift")
    parser.add_argument("--dealers", type=int, default=4)
    parser.add_argument("--players", type=int, default=10)
    parser.add_argument("--holders", type=int, default=4)
    parser.add_argument("--stand-at", default="8,10,13", help="honest seats' thresholds, half-points")
    parser.add_argument("--pair-shares", default="0.1,0.2,0.3")
    parser.add_argument("--pair-rig", choices=("win", "natural"), default="win",
                        help="win: the player's bet won; natural: paid double (his 7½) or the bank bust")
    parser.add_argument("--holder-sigmas", default="2,3")
    parser.add_argument("--holder-tenures", type=int, default=6)
    parser.add_argument("--theory-hands", type=int, default=100_000)
    parser.add_argument("--shift-cards", action="store_true",
                        help="each shift's review with its card tests (Monte Carlo: slow at small shifts)")
    parser.add_argument("--profile", default="reglamento",
                        choices=("reglamento", "tradicional", "americana", "profesional"),
                        help="the tables' rule profile (the bank stays with its holder)")
    parser.add_argument("--database-prefix", default="detection_bench", help="the scratch database's name before _<pid>")
    parser.add_argument("--show-alerts", action="store_true", help="print every alert with its figures")
    parser.add_argument("--bound", action="store_true",
                        help="print the most any test can find of the pair (pair_bound), nothing else")
    parser.add_argument("--retest", action="store_true",
                        help="each night tests again the bets an earlier night tested (as before tested_before)")
    parser.add_argument("--levels", default="",
                        help="other levels of the one correction (e.g. 0.0025,0.005,0.02): the same runs' q-values "
                             "read at each, a table of the alerts each would open (honest: the alerts its tests "
                             "with q below it open, per 10,000 hands; planted: seeds whose cheat's group has one)")
    args = parser.parse_args()
    args.levels = sorted(float(x) for x in args.levels.split(",") if x)
    name = f"{args.database_prefix}_{os.getpid()}"
    migrate = create_scratch(name)
    os.environ["DATABASE_URL"] = database_url(name)
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ["EDGE_HANDS"] = str(args.theory_hands)  # the edges of the fitted strategies, computed as needed
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")
    try:
        import django

        django.setup()
        global RULES
        RULES = rules_of(args.profile)
        if args.bound:
            pair_bound(args)
            return
        from django.core.management import call_command

        if migrate:
            call_command("migrate", verbosity=0)
        started = time.perf_counter()
        edge = setup(args.theory_hands)
        from reports.detection import Theory

        theory = Theory()
        print(f"theory: {args.theory_hands} hands, mean {edge['mean_per_unit']:+.4f} per unit "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
        print(f"{args.profile}: {args.tables} tables × {args.days} days × 1 shift of {args.hands} hands; {args.dealers} dealers, "
              f"{args.players} players, {args.holders} holders", flush=True)
        print("| trial | strength | seeds | detected (pooled) | named by a single shift's review | "
              "false alerts pooled / per shift | per 10,000 hands | tests a night (and left out: tested before) |")
        print("|---|---|---|---|---|---|---|---|")
        nights = args.days
        by_level = []  # (row, {level: figure})
        for stand_at in [int(x) for x in args.stand_at.split(",") if x]:
            hands = pooled = single = made = left = 0
            counts = dict.fromkeys(args.levels, 0)
            for seed in range(args.honest_seeds):
                result = trial(args, "honest", seed, edge=edge, theory=theory, stand_at=stand_at)
                hands, pooled, single = hands + result["hands"], pooled + result["pooled"], single + result["single"]
                made, left = made + result["tests"], left + result["repeated"]
                for level in args.levels:
                    counts[level] += result["levels"][level]
            per = (pooled + single) / hands * 10_000 if hands else 0.0
            print(f"| honest, seats stand at {stand_at / 2:g} | — | {args.honest_seeds} ({hands} hands) | — | — | "
                  f"{pooled} / {single} | {per:.2f} | {tests_a_night(made, left, args.honest_seeds * nights)} |",
                  flush=True)
            by_level.append((f"honest, seats stand at {stand_at / 2:g}: false alerts per 10,000 hands",
                             {level: f"{counts[level] / hands * 10_000:.2f} ({counts[level]})" if hands else "—"
                              for level in args.levels}))
        for kind, strengths, label in (("pair", args.pair_shares, "of the pair's hands rigged"),
                                       ("holder", args.holder_sigmas, "SE per tenure")):
            for strength in [float(x) for x in strengths.split(",") if x]:
                args.share, args.sigmas = strength, strength
                detected = named = hands = footprints = made = left = 0
                counts = dict.fromkeys(args.levels, 0)
                for seed in range(args.seeds):
                    result = trial(args, kind, seed, edge=edge, theory=theory)
                    for level in args.levels:
                        counts[level] += bool(result["levels"][level])
                    detected += result["detected"]
                    footprints += result["footprint"]
                    named += result["single_named"]
                    hands += result["hands"]
                    made, left = made + result["tests"], left + result["repeated"]
                shown = f"{strength:.0%}" if kind == "pair" else f"{strength:g}"
                rig = f" ({args.pair_rig})" if kind == "pair" else ""
                by = f" (footprint {footprints})" if kind == "pair" else ""
                print(f"| {kind}{rig} | {shown} {label} | {args.seeds} | {detected}/{args.seeds}{by} | {named}/{args.seeds} "
                      f"| — | — | {tests_a_night(made, left, args.seeds * nights)} |", flush=True)
                by_level.append((f"{kind}{rig}, {shown} {label}: seeds detected",
                                 {level: f"{counts[level]}/{args.seeds}" for level in args.levels}))
        if args.levels and by_level:
            print("\nThe same runs read at other levels of the one correction (q below the level):\n")
            print("| row | " + " | ".join(f"{level:.2%}" for level in args.levels) + " |")
            print("|---|" + "---|" * len(args.levels))
            for row, figures in by_level:
                print(f"| {row} | " + " | ".join(figures[level] for level in args.levels) + " |")
        print(f"total {time.perf_counter() - started:.0f} s", flush=True)
    finally:
        drop_scratch(name)


if __name__ == "__main__":
    main()
