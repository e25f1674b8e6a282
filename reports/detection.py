"""What raises the auditors' alerts: a stored report's exceptions, large bets and bank
changes at once, and the statistical review of the report's hands against the theory
through the nightly pooled review.

``report_findings(report)`` reads the database and returns ``reports.alerts.Finding``s;
``reports.tasks.raise_alerts`` raises them after each report is stored. A report's
review (``report_tests``) raises nothing at the report's close: its tests go into the
nightly pooled review's one correction (``reports.pooling``), which raises those that
alert with the report's subject and ids. The statistics are
``reports.statistics`` (pure); the theory is the stored simulation of the bank's edge
(``EdgeFigure``, per rule set and seat count; computed and stored when first needed).

The review of a set of hands (a shift's, or a table's over a period) runs these tests:
the bank's result against the expected for the whole set, each bank tenure and each
dealer; the pairs dealer × bank holder, dealer × player and bank holder × player; the
card tests (the bank's first card, each seat's, the draws); a player losing his large
stakes to the same bank. Their p-values take one Benjamini–Hochberg correction together
(``statistics.combined_alerts``): an honest review's q-values are below ``ALPHA`` (1%)
with probability at most ``ALPHA``; the pooled run corrects them again with every test of
its run, and only that correction alerts. The bank's sales and transfers between the same players, and sale
prices far from the bank's balance, are patterns (no p-value): each is an alert.
"""

import json
import math
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal
from statistics import NormalDist

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.postgres.aggregates import ArrayAgg
from django.db import connection
from django.db.models import (
    Count,
    DateField,
    Exists,
    F,
    Func,
    IntegerField,
    Max,
    Min,
    OuterRef,
    Sum,
)
from django.utils import timezone

from game import IllegalEvent, Profile
from ledger.models import Entry, Transaction
from reports import statistics
from reports.alerts import Finding
from reports.models import Alert, AlertKind, EdgeFigure, ReportKind
from tables.models import BankTenure, Hand, HandBet

ALPHA = statistics.ALPHA
#: Hands at most whose cards are replayed for the card tests (a review's latest).
CARD_HANDS_LIMIT = 20_000
#: The bank's sales and transfers looked at: this long before the reviewed hands' end.
BANK_CHANGES_WINDOW = timedelta(days=30)
#: Evidence lists (hand ids) are cut to this many, with their full count kept.
EVIDENCE_LIMIT = 200
#: A result against the expected is tested from this many hands (the normal approximation).
MIN_HANDS = 30
#: A pair's band per unit staked in evidence: this many standard deviations (as the
#: expected-against-actual lines' ``k``).
PAIR_BAND_K = 3.0
#: The two-sided 95% normal quantile (``expectation``'s band).
Z95 = NormalDist().inv_cdf(0.975)
#: A report's exceptions that are statistical tests (a p-value each): raised by the pooled
#: review (``reports.pooling``) under its one correction, never alone.
STATISTICAL_EXCEPTIONS = ("cards_not_uniform",)



def _strategy_for(rules, strategy):
    """``strategy`` (a ``Strategy``, its ``as_dict()`` or None: the profile's default) as a
    ``Strategy``."""
    from game.edge import Strategy, default_strategy

    if strategy is None:
        return default_strategy(Profile.from_rules(rules))
    return strategy if isinstance(strategy, Strategy) else Strategy(**strategy)


def edge_key(rules, seats, strategy=None) -> str:
    """The stored edge's key: the canonical rules (profile and overrides) as sorted JSON and
    the seats, and for a strategy other than the profile's default (``strategy``: a
    ``Strategy``, its fields, or None) its fields as sorted JSON: ``<rules>|<seats>`` or
    ``<rules>|<seats>|<strategy>`` (the default's figures keep the key they always had)."""
    from game.edge import default_strategy

    profile = Profile.from_rules(rules)
    canonical = profile.rules
    key = f"{json.dumps(canonical, sort_keys=True, default=str)}|{int(seats)}"
    strategy = _strategy_for(rules, strategy)
    if strategy != default_strategy(profile):
        key += "|" + json.dumps(strategy.as_dict(), sort_keys=True)
    return key


def edge_figure(rules, seats, *, strategy=None, hands=None, seed=None) -> dict:
    """The bank's edge for a rule set, seat count and strategy (``EdgeResult.as_dict()``):
    the stored simulation, or a new one computed now (``bank_edge`` with
    ``settings.EDGE_HANDS`` hands and ``settings.EDGE_SEED``) and stored.

    Args:
        strategy: a ``Strategy`` (or its fields); None: the profile's default.
    Raises:
        InvalidRules: the rules are not valid.
    """
    from game.edge import bank_edge

    strategy = _strategy_for(rules, strategy)
    key = edge_key(rules, seats, strategy)
    stored = EdgeFigure.objects.filter(key=key).values_list("result", flat=True).first()
    if stored is not None:
        return stored
    hands = hands or settings.EDGE_HANDS
    seed = settings.EDGE_SEED if seed is None else seed
    return edge_store(rules=rules, seats=seats, hands=hands, seed=seed, strategy=strategy,
                      result=bank_edge(rules, seats=int(seats), hands=hands, seed=seed,
                                       strategy=strategy).as_dict()).result


def edge_store(*, rules, seats: int, hands: int, seed: int, result: dict, strategy=None) -> EdgeFigure:
    """Store (or replace) the simulation of a rule set, seat count and strategy (a
    ``Strategy`` or its fields; None: the profile's default). Returns the EdgeFigure."""
    strategy = _strategy_for(rules, strategy)
    figure, _created = EdgeFigure.objects.update_or_create(
        key=edge_key(rules, seats, strategy),
        defaults={"rules": Profile.from_rules(rules).rules, "seats": seats, "strategy": strategy.as_dict(),
                  "hands": hands, "seed": seed, "result": result, "computed_at": timezone.now()})
    return figure


# ---------------------------------------------------------------------------------------
# Reading the hands


def bet_rows(hands):
    """Per settled bet of ``hands`` (a Hand queryset): dicts with ``hand``, ``bet``,
    ``dealer`` (username, or "—" for an imported hand without a shift), ``bank`` (the
    holder's code), ``tenure``, ``player``, ``stake`` (Decimal euros), ``bank_result``
    (Decimal euros, minus the player's net: positive, the bank won), ``rules``, ``seats``
    (how many seats the hand had). One query."""
    rows = (HandBet.objects.filter(hand__in=hands.filter(status=Hand.Status.SETTLED))
            .order_by("hand_id", "id")
            .values_list("hand_id", "id", "hand__dealer__username", "hand__bank__code", "hand__tenure_id",
                         "player__code", "stake", "net", "hand__rules", "hand__seats"))
    return [{"hand": hand, "bet": bet, "dealer": dealer or "—", "bank": bank, "tenure": tenure, "player": player,
             "stake": stake, "bank_result": -net, "rules": rules, "seats": len(seats)}
            for hand, bet, dealer, bank, tenure, player, stake, net, rules, seats in rows]


class MissingTheory(LookupError):
    """No stored edge for these rules, seats and strategy (``Theory(compute=False)``):
    ``rules``, ``seats``, ``strategy`` (its fields, or None for the profile's default)."""

    def __init__(self, rules, seats, strategy=None):
        super().__init__(f"no stored edge for {rules} with {seats} seats"
                         + (f" and the strategy {strategy}" if strategy else ""))
        self.rules, self.seats, self.strategy = rules, seats, strategy


class Theory:
    """The stored edges a review needs, one per (rules, seats, strategy), read once; a
    missing one is simulated and stored (``edge_figure``), or with ``compute=False`` raises
    ``MissingTheory`` (a page does not wait for a simulation)."""

    def __init__(self, compute=True):
        self._edges = {}
        self.compute = compute

    def __call__(self, rules, seats, strategy=None):
        from game.edge import default_strategy

        strategy = _strategy_for(rules, strategy)
        key = edge_key(rules, seats, strategy)
        if key not in self._edges:
            if self.compute:
                self._edges[key] = edge_figure(rules, seats, strategy=strategy)
            else:
                stored = EdgeFigure.objects.filter(key=key).values_list("result", flat=True).first()
                if stored is None:
                    default = strategy == default_strategy(Profile.from_rules(rules))
                    raise MissingTheory(rules, seats, None if default else strategy.as_dict())
                self._edges[key] = stored
        return self._edges[key]


# ---------------------------------------------------------------------------------------
# The expectation as played: the strategy fitted to the hands, its edge and uncertainty

#: The latest settled hands of a review whose records the strategy is fitted to.
FIT_HANDS_LIMIT = 3000


def rules_key(rules) -> str:
    """A hand's rules as the review groups them: the stored value as sorted JSON."""
    return json.dumps(rules, sort_keys=True)


def hand_records(hands, limit=None, chunk=2000, *, settled=False):
    """The hand records of ``hands`` (a Hand queryset; open hands left out, with
    ``settled`` only the settled), the latest ``limit`` (all when None): yields ``(hand id,
    rules, record)``; a hand whose entries do not make a record (a card never named) is
    left out. Entries are read ``chunk`` hands at a time, one query each."""
    from game.entries import effective_events, fold_record_events
    from game.record import FORMAT
    from tables.models import HandEvent
    from tables.services import state_maker

    chosen = hands.filter(status=Hand.Status.SETTLED) if settled else hands.exclude(status=Hand.Status.OPEN)
    chosen = chosen.order_by("-opened_at", "-id").values_list("pk", "rules", "min_bet", "max_bet", "bank__code",
                                                              "seats")
    chosen = list(chosen if limit is None else chosen[:limit])
    for first in range(0, len(chosen), chunk):
        part = chosen[first:first + chunk]
        entries = defaultdict(list)
        for hand_id, kind, event in (HandEvent.objects.filter(hand_id__in=[row[0] for row in part])
                                     .order_by("hand_id", "sequence").values_list("hand_id", "kind", "event")
                                     .iterator(chunk_size=5000)):
            entries[hand_id].append((kind, event))
        for pk, rules, min_bet, max_bet, bank_code, seats in part:
            try:
                new_state = state_maker(rules=rules, min_bet=min_bet, max_bet=max_bet, bank_code=bank_code,
                                        seats=seats)
                record = {"format": FORMAT, "rules": rules, "min_bet": f"{min_bet:.2f}",
                          "max_bet": f"{max_bet:.2f}", "bank": bank_code, "seats": list(seats),
                          "events": fold_record_events(new_state, effective_events(entries[pk]))}
            except IllegalEvent:
                continue
            yield pk, rules, record


def fit_records(records) -> dict:
    """``game.edge.fit_strategy`` of hand records, per rule set: ``{rules_key: fit}``; a
    rule set whose records do not replay is left out (its hands get the default)."""
    from game.edge import fit_strategy

    by_rules = defaultdict(list)
    for record in records:
        by_rules[rules_key(record["rules"])].append(record)
    fits = {}
    for key, found in by_rules.items():
        try:
            fits[key] = fit_strategy(found)
        except IllegalEvent:
            continue
    return fits


def fit_hands(hands, limit=FIT_HANDS_LIMIT) -> dict:
    """``fit_records`` of the latest ``limit`` settled hands of ``hands`` (a Hand queryset)."""
    return fit_records(record for _pk, _rules, record in hand_records(hands, limit, settled=True))


def fit_summary(fit) -> dict | None:
    """A fit as plain data, for evidence and the API: ``stand_at`` and ``bank_stand_at``
    (half-points; the bank's None: it replies to what it sees), ``agreement`` and
    ``bank_agreement`` (shares of their choices), ``plausible`` (the seats' thresholds not
    told apart), ``options`` (``{option: [offered, used]}``), ``strategy`` (its fields),
    ``hands`` (records fitted). None for None."""
    if fit is None:
        return None
    strategy = fit["strategy"]
    bank = fit["bank"]
    return {"stand_at": strategy.stand_at, "bank_stand_at": strategy.bank_stand_at,
            "agreement": fit["seats"]["agreement"],
            "bank_agreement": bank["agreement"] if strategy.bank_stand_at is not None else bank["reply_agreement"],
            "plausible": fit["seats"]["plausible"], "options": fit["options"], "strategy": strategy.as_dict(),
            "hands": fit["hands"]}


def fitted_edge(rules, seats, fit, theory) -> dict:
    """The expectation of one rule set and seat count as played: the edge of the fitted
    strategy (the profile's default without a fit) and its uncertainty per unit staked.

    The uncertainty ``u`` is ``√(se² + spread²)``: the simulation's standard error and the
    fit's spread, the largest difference between the fitted strategy's edge and a
    neighbour's (``fit["neighbours"]``: the plausible thresholds of the seats and of the
    bank). A group's expected result then has a variance of its sampling plus
    ``(u · staked)²`` (one error common to all its hands).

    The share of bets the bank wins, for the large-losses test, is likewise taken at its
    most lenient plausible value: ``p_lose_high``, the largest ``bank_wins_bet`` of the
    fitted strategy and its neighbours (a player losing more often than the fit expects
    is no finding if a plausible reading of the table's play expects it).

    Returns:
        dict: ``edge`` (the stored ``EdgeResult.as_dict()``), ``mean``, ``sd`` (per bet),
        ``rho``, ``u``, ``spread``, ``strategy`` (a ``Strategy``), ``p_lose_high`` (None
        when the edge has no ``bank_wins_bet``).
    Raises:
        MissingTheory: ``theory`` does not compute and an edge is not stored.
    """
    strategy = fit["strategy"] if fit else None
    edge = theory(rules, seats, strategy)
    mean = float(edge["mean_per_unit"])
    spread = 0.0
    p_lose = edge.get("bank_wins_bet")
    p_lose_high = None if p_lose is None else float(p_lose)
    for neighbour in (fit["neighbours"] if fit else []):
        other = theory(rules, seats, neighbour)
        spread = max(spread, abs(float(other["mean_per_unit"]) - mean))
        if p_lose_high is not None and other.get("bank_wins_bet") is not None:
            p_lose_high = max(p_lose_high, float(other["bank_wins_bet"]))
    se = float(edge.get("standard_error") or 0.0)
    return {"edge": edge, "mean": mean, "sd": float(edge["sd_per_unit_bet"]),
            "rho": float(edge["within_hand_correlation"]), "u": math.sqrt(se * se + spread * spread),
            "spread": spread, "strategy": _strategy_for(rules, strategy), "p_lose_high": p_lose_high}


def expectation(hands, *, theory=None, fits=None) -> dict:
    """What the bank should win on ``hands`` as they were played: for the pooled tests and
    any caller that compares a bank's result with the theory.

    Args:
        hands: a Hand queryset (its settled hands with bets; the strategy is fitted to the
            latest ``FIT_HANDS_LIMIT``), or a list of hand records (``hand-record.md``,
            each settled by the engine for its stakes).
        theory: a ``Theory`` (default: one that computes and stores a missing edge).
        fits: ``{rules_key: fit}`` already made (``fit_hands``/``fit_records``).
    Returns:
        dict: ``edge`` (expected result per unit staked, stake-weighted over the rule
        sets and seat counts), ``band`` (``[low, high]`` per unit staked: ``edge ± 1.96 u``,
        the theory's 95% band; a set of hands adds its own sampling), ``uncertainty`` (u
        per unit staked: the simulation's and the fit's), ``stand_at`` and
        ``bank_stand_at`` (half-points; the bank's None: it replies to what it sees) and
        ``agreement`` of the fit of the most-staked rule set, ``hands`` (hands whose
        records were fitted), ``staked`` (units: euros or the records' stakes in
        euros), ``edges`` (per rule set and seat count: ``rules``, ``seats``, ``staked``,
        ``mean``, ``u``, ``sd_per_unit_bet``, ``within_hand_correlation``,
        ``bank_wins_bet``, ``strategy``, ``fit``: ``fit_summary``). Without any bet:
        ``edge`` and ``band`` None.
    Raises:
        MissingTheory: ``theory`` does not compute and an edge is not stored.
    """
    theory = theory or Theory()
    stakes = defaultdict(float)
    rules_of = {}
    if isinstance(hands, list | tuple):
        from game.payouts import settle
        from game.record import play_record

        for record in hands:
            key = (rules_key(record["rules"]), len(record["seats"]))
            rules_of[key[0]] = record["rules"]
            stakes[key] += sum(bet.stake for bet in settle(play_record(record)).bets) / 100
        if fits is None:
            fits = fit_records(hands)
    else:
        rows = (HandBet.objects.filter(hand__in=hands.filter(status=Hand.Status.SETTLED))
                .annotate(n_seats=Func(F("hand__seats"), function="jsonb_array_length", output_field=IntegerField()))
                .values_list("hand__rules", "n_seats").annotate(staked=Sum("stake")).order_by())
        for rules, seats, staked in rows:
            key = (rules_key(rules), seats)
            rules_of[key[0]] = rules
            stakes[key] += float(staked)
        if fits is None:
            fits = fit_hands(hands)
    edges = []
    for (key, seats), staked in sorted(stakes.items()):
        fit = fits.get(key)
        fitted = fitted_edge(rules_of[key], seats, fit, theory)
        edges.append({"rules": rules_of[key], "seats": seats, "staked": staked, "mean": fitted["mean"],
                      "u": fitted["u"], "sd_per_unit_bet": fitted["sd"], "within_hand_correlation": fitted["rho"],
                      "bank_wins_bet": fitted["edge"].get("bank_wins_bet"),
                      "strategy": fitted["strategy"].as_dict(), "fit": fit_summary(fit)})
    total = sum(e["staked"] for e in edges)
    fitted_hands = sum(fit["hands"] for fit in fits.values())
    if not total:
        return {"edge": None, "band": None, "uncertainty": None, "stand_at": None, "bank_stand_at": None,
                "agreement": None, "hands": fitted_hands, "staked": 0.0, "edges": edges}
    edge = sum(e["mean"] * e["staked"] for e in edges) / total
    u = sum(e["u"] * e["staked"] for e in edges) / total
    main = max(edges, key=lambda e: e["staked"])
    strategy = main["strategy"]
    return {"edge": edge, "band": [edge - Z95 * u, edge + Z95 * u], "uncertainty": u,
            "stand_at": strategy["stand_at"], "bank_stand_at": strategy.get("bank_stand_at"),
            "agreement": main["fit"]["agreement"] if main["fit"] else None, "hands": fitted_hands,
            "staked": total, "edges": edges}


def _cents(value):
    return None if value is None else round(value) / 100


def _money_figures(figures, theory_sd=0.0):
    """``expected_vs_actual``'s money (cents) as euros, for evidence; the p-value None
    (not tested) under ``MIN_HANDS`` hands. ``per_unit_band``: the band's half-width per
    unit staked (``k · sd / staked``, the sampling's and the theory's); ``theory_sd`` (cents
    in, euros out): the theory's part of ``sd``."""
    out = {name: figures[name] for name in ("hands", "effective_hands", "k", "z", "p_value", "per_unit_actual",
                                            "per_unit_expected", "outside")}
    if figures["hands"] < MIN_HANDS:
        out["p_value"] = None
    for name in ("staked", "actual", "expected", "sd"):
        out[name] = _cents(figures[name])
    out["band"] = [_cents(x) for x in figures["band"]]
    out["per_unit_band"] = figures["k"] * figures["sd"] / figures["staked"] if figures["staked"] else None
    out["theory_sd"] = _cents(theory_sd)
    return out


# ---------------------------------------------------------------------------------------
# The hands' sums, aggregated in PostgreSQL


class Sums:
    """The sums a review needs over a set of hands, aggregated in PostgreSQL (per bet,
    then per hand or hand × player, then per group or pair): nothing is read per bet.

    The theory enters the SQL as four arrays (the edge's ``mean_per_unit``,
    ``sd_per_unit_bet`` and ``within_hand_correlation``, and its uncertainty ``u`` per
    unit staked: ``fitted_edge`` of the strategy fitted to the hands, ``fit_hands``), one
    element per rule set and seat count of the settled hands with bets, indexed per hand
    by a ``CASE``. The uncertainty enters each group's and pair's variance as
    ``(Σ u · stake)²`` (``theory_sd``). Evidence lists (hand ids) are cut to
    ``evidence`` in the database (``(array_agg(id ORDER BY id))[1:n]``) with their full
    count kept (``hand_total``).

    Args:
        hands: a Hand queryset (its settled hands are summed).
        theory: a ``Theory``.
        evidence: hand ids kept per group, pair or player × bank.
        fits: ``{rules_key: fit}`` (default: ``fit_hands(hands)``); ``fit`` is then the
            first hand's rule set's (None without one) and ``first_edge`` its edge.
    Raises:
        MissingTheory: the theory is ``compute=False`` and an edge is not stored.
    """

    def __init__(self, hands, theory, *, evidence=EVIDENCE_LIMIT, fits=None):
        self.theory = theory
        self.evidence = int(evidence)
        settled = hands.filter(status=Hand.Status.SETTLED).order_by().values("id")
        self._ids_sql, self._ids_params = settled.query.sql_with_params()
        with_bets = Hand.objects.filter(pk__in=settled).filter(Exists(HandBet.objects.filter(hand=OuterRef("pk"))))
        first = with_bets.order_by("id").values_list("rules", "seats").first()
        self.empty = first is None
        self._edges = []
        self._names = {}
        self.fits = {}
        self.fit = None
        if self.empty:
            self.first_edge = None
            return
        self.fits = fit_hands(hands) if fits is None else fits
        first_key = rules_key(first[0])
        self.fit = self.fits.get(first_key)
        self.first_fitted = fitted_edge(first[0], len(first[1]), self.fit, theory)
        self.first_edge = self.first_fitted["edge"]
        keys = {(rules_key(rules), seats) for rules, seats in
                with_bets.annotate(n_seats=Func(F("seats"), function="jsonb_array_length", output_field=IntegerField()))
                .values_list("rules", "n_seats").distinct().order_by()}
        for rules_text, seats in sorted(keys):
            fitted = fitted_edge(json.loads(rules_text), seats, self.fits.get(rules_text), theory)
            self._edges.append((rules_text, seats, fitted["mean"], fitted["sd"], fitted["rho"], fitted["u"]))

    def _with(self):
        """The common CTEs and their parameters: ``hand`` (each settled hand's tenure,
        shift, bank holder's and dealer's ids (the hand's own dealer, reliefs followed), and
        its edge's ``mean``, ``sd`` per bet and ``rho``: the theory as arrays indexed by a ``CASE`` over the rule sets and seat
        counts, so that no join upsets the planner's estimates; ``edge``, that index) and ``bet`` (its bets:
        player id, stake, the bank's result)."""
        names = {"hand": Hand._meta.db_table, "bet": HandBet._meta.db_table}
        cases = " ".join(f"WHEN h.rules = %s::jsonb AND jsonb_array_length(h.seats) = %s THEN {i}"
                         for i in range(1, len(self._edges) + 1))
        arrays = [[row[column] for row in self._edges] for column in (2, 3, 4, 5)]
        sql = f"""
            WITH hand AS MATERIALIZED (
                SELECT x.id, x.tenure, x.shift, x.bank, x.dealer, (%s::float8[])[x.edge] AS mean,
                       (%s::float8[])[x.edge] AS sd, (%s::float8[])[x.edge] AS rho,
                       (%s::float8[])[x.edge] AS u, x.edge
                  FROM (SELECT h.id, h.tenure_id AS tenure, h.shift_id AS shift, h.bank_id AS bank,
                               h.dealer_id AS dealer, CASE {cases} END AS edge
                          FROM {names['hand']} h
                         WHERE h.id IN ({self._ids_sql})) x
                 WHERE x.edge IS NOT NULL),
            bet AS (
                SELECT b.hand_id, b.id, b.player_id AS player, b.stake, -b.net AS result
                  FROM {names['bet']} b WHERE b.hand_id IN (SELECT id FROM hand))"""
        params = [*arrays, *(value for row in self._edges for value in row[:2]), *self._ids_params]
        return sql, params

    def _fetch(self, sql, params):
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()

    def _name(self, kind, pk):
        """A dealer's username (``"—"`` for none: an imported hand without a shift) or a
        player's code, by id (read once per review)."""
        if kind not in self._names:
            if kind == "dealer":
                user = get_user_model()
                self._names[kind] = dict(user.objects.values_list("pk", user.USERNAME_FIELD))
            else:
                self._names[kind] = dict(HandBet._meta.get_field("player").related_model.objects
                                         .values_list("pk", "code"))
        if pk is None:
            return "—"
        return self._names[kind][pk]

    def groups(self):
        """The bank's result against the expected per group, in cents: ``{(field, group):
        {"hands", "bets", "staked", "actual", "expected", "variance", "stake_squares",
        "hand_ids" (sorted, cut), "hand_total", "theory_sd", "hand_set" (the hands' count,
        lowest and highest id and sum of ids: the same set, as ``pooling.bets_digest``
        reads it)}}`` for field ``"all"`` (group None),
        ``"tenure"`` (its id) and ``"dealer"`` (his username). A hand's variance is
        ``edge.hand_variance`` of its bets' stakes: ``sd² · (Σ s² + ρ · ((Σ s)² − Σ s²))``
        (the sampling's); ``theory_sd`` is ``Σ u · stake`` (the theory's, to be squared)."""
        if self.empty:
            return {}
        common, params = self._with()
        rows = self._fetch(common + """,
            per_hand AS (
                SELECT hand_id AS id, count(*) AS bets, sum(stake) * 100 AS staked, sum(result) * 100 AS actual,
                       sum(stake * stake) * 10000 AS squares
                  FROM bet GROUP BY hand_id)
            SELECT GROUPING(hand.tenure), GROUPING(hand.dealer), hand.tenure, hand.dealer, count(*), sum(p.bets),
                   sum(p.staked), sum(p.actual), sum(hand.mean * p.staked::float8),
                   sum(hand.sd * hand.sd * (p.squares::float8 + hand.rho * (p.staked * p.staked - p.squares)::float8)),
                   sum(p.staked * p.staked), (array_agg(p.id ORDER BY p.id))[1:%s],
                   sum(hand.u * p.staked::float8), min(p.id), max(p.id), sum(p.id)
              FROM per_hand p JOIN hand ON hand.id = p.id
             GROUP BY GROUPING SETS ((), (hand.tenure), (hand.dealer))""", params + [self.evidence])
        out = {}
        for no_tenure, no_dealer, tenure, dealer, hands, bets, staked, actual, expected, variance, squares, ids, \
                theory_sd, low, high, total in rows:
            if no_tenure and no_dealer:
                key = ("all", None)
            elif no_dealer:
                key = ("tenure", tenure)
            else:
                key = ("dealer", self._name("dealer", dealer))
            out[key] = {"hands": hands, "bets": int(bets), "staked": float(staked), "actual": float(actual),
                        "expected": expected, "variance": variance, "stake_squares": float(squares),
                        "hand_ids": list(ids), "hand_total": hands, "theory_sd": theory_sd,
                        "hand_set": [hands, low, high, int(total)]}
        return out

    def pairs(self, rho):
        """Each pair's sums for ``statistics.pair_figures``, in euros: dealer × bank holder
        (all the hand's bets), dealer × player and bank holder × player (the player's bets
        in the hand); ``rho`` the within-hand correlation of the pairs' variance, which
        includes the theory's (``theory_sd`` squared)."""
        if self.empty:
            return []
        common, params = self._with()
        rho = float(rho)
        figures = """count(*), sum(bets), sum(staked), sum(actual), sum(mean * staked::float8),
                     sum(sd * sd * ((1 - %s) * squares::float8 + %s * (staked * staked)::float8)),
                     (array_agg(id ORDER BY id))[1:%s], sum(u * staked::float8)"""
        rows = self._fetch(common + f""",
            per_player AS MATERIALIZED (
                SELECT p.*, hand.dealer, hand.bank, hand.mean, hand.sd, hand.u
                  FROM (SELECT hand_id AS id, player, count(*) AS bets, sum(stake) AS staked, sum(result) AS actual,
                               sum(stake * stake) AS squares
                          FROM bet GROUP BY hand_id, player) p
                  JOIN hand ON hand.id = p.id),
            per_hand AS (
                SELECT id, min(dealer) AS dealer, min(bank) AS bank, min(mean) AS mean, min(sd) AS sd, min(u) AS u,
                       sum(bets) AS bets, sum(staked) AS staked, sum(actual) AS actual, sum(squares) AS squares
                  FROM per_player GROUP BY id)
            SELECT 1, dealer, bank, {figures} FROM per_hand GROUP BY dealer, bank
            UNION ALL
            SELECT 2, dealer, player, {figures} FROM per_player GROUP BY dealer, player
            UNION ALL
            SELECT 3, bank, player, {figures} FROM per_player GROUP BY bank, player""",
                           params + [rho, rho, self.evidence] * 3)
        kinds = {1: ("dealer×bank", "dealer", "player"), 2: ("dealer×player", "dealer", "player"),
                 3: ("bank×player", "player", "player")}
        out = []
        for kind, a, b, hands, bets, staked, actual, expected, variance, ids, theory_sd in rows:
            name, first, second = kinds[kind]
            out.append({"kind": name, "a": self._name(first, a), "b": self._name(second, b), "hands": hands,
                        "bets": int(bets), "staked": float(staked), "actual": float(actual), "expected": expected,
                        "variance": variance + theory_sd * theory_sd, "evidence": list(ids), "hand_total": hands,
                        "theory_sd": theory_sd})
        return out

    def large_losses(self, large_stake=None, quantile=0.9):
        """Each player × bank holder's large stakes for ``statistics.large_loss_figures``
        (euros): ``(large stake, pairs)``; the large stake is ``large_stake`` or the
        ``quantile`` of the stakes (linear, as ``numpy.quantile``)."""
        if self.empty:
            return (float(large_stake) if large_stake is not None else 0.0), []
        common, params = self._with()
        if large_stake is None:
            large_stake = self._fetch(common + " SELECT percentile_cont(%s) WITHIN GROUP (ORDER BY stake) FROM bet",
                                      params + [quantile])[0][0] or 0.0
        large_stake = float(large_stake)
        rows = self._fetch(common + f"""
            SELECT b.player_id, hand.bank, count(*), count(*) FILTER (WHERE b.net < 0),
                   coalesce(sum(-b.net) FILTER (WHERE b.net < 0), 0),
                   (array_agg(b.hand_id ORDER BY b.hand_id, b.id) FILTER (WHERE b.net < 0))[1:%s]
              FROM {HandBet._meta.db_table} b JOIN hand ON hand.id = b.hand_id
             WHERE b.stake >= %s
             GROUP BY b.player_id, hand.bank""", params + [self.evidence, large_stake])
        return large_stake, [{"player": self._name("player", player), "bank": self._name("player", bank),
                              "large_bets": large_bets, "lost": lost, "amount_lost": float(amount),
                              "evidence": list(ids or []), "hand_total": lost}
                             for player, bank, large_bets, lost, amount, ids in rows]

    def funnel(self, key):
        """Per ``key`` (``"tenure"``, ``"dealer"`` or ``"shift"``) the sums of
        ``statistics.funnel_sums`` in euros (each hand's stake squared), in the order of
        each group's first hand."""
        if self.empty:
            return {}
        if key not in ("tenure", "dealer", "shift"):
            raise ValueError(f"funnel: by tenure, dealer or shift, not {key!r}")
        common, params = self._with()
        rows = self._fetch(common + f""",
            per_hand AS (
                SELECT hand_id AS id, sum(stake) AS staked, sum(result) AS actual FROM bet GROUP BY hand_id)
            SELECT hand.{key}, count(*), sum(p.staked), sum(p.actual), sum(p.staked * p.staked)
              FROM per_hand p JOIN hand ON hand.id = p.id
             GROUP BY hand.{key} ORDER BY min(p.id)""", params)
        return {self._name("dealer", group) if key == "dealer" else group:
                {"hands": hands, "staked": float(staked), "actual": float(actual), "stake_squares": float(squares)}
                for group, hands, staked, actual, squares in rows}

    def counts(self):
        """``(settled hands with bets, bets)``."""
        if self.empty:
            return 0, 0
        common, params = self._with()
        hands, bets = self._fetch(common + " SELECT count(*), coalesce(sum(n), 0) FROM (SELECT hand_id, count(*) AS n "
                                           "FROM bet GROUP BY hand_id) x", params)[0]
        return hands, int(bets)


def _sum_args(figures):
    """A group's sums as ``statistics.expected_vs_actual_sums``'s arguments: its variance
    the sampling's plus the theory's (``theory_sd`` squared: the fit's and the
    simulation's uncertainty, common to every hand of the group)."""
    args = {name: figures[name] for name in ("hands", "staked", "actual", "expected", "variance", "stake_squares")}
    theory_sd = figures.get("theory_sd") or 0.0
    args["variance"] = figures["variance"] + theory_sd * theory_sd
    return args


# ---------------------------------------------------------------------------------------
# The review


def review(hands, *, subject, theory=None, alpha=ALPHA, card_observations=None, large_stake=None, sums=None):
    """The statistical review of a set of hands: every test with a p-value, corrected
    together, and the ones that alert.

    Args:
        hands: a Hand queryset (its settled hands are reviewed).
        subject: what is reviewed, e.g. ``"shift:12"`` (goes into each finding's identity).
        theory: a ``Theory`` (default: a new one, reading the stored edges).
        alpha: the level of the combined correction.
        card_observations: the cards' observations (default: replayed from the hands' entries).
        large_stake: a large stake (euros) for the losses to one bank: the table's large bet;
            None: the top 10% of the stakes reviewed.
        sums: the hands' ``Sums`` (default: made here with ``theory``).
    Returns:
        dict: ``tests`` (every test, with ``combined_q`` and ``combined_alert``; evidence
        cut to ``EVIDENCE_LIMIT`` hand ids; the expected-against-actual lines and the
        pairs with ``fit``, the strategy fitted to the hands as ``fit_summary``, and
        ``per_unit_expected`` ± ``per_unit_band``: the expectation per unit staked and its
        band, the fit's and the simulation's uncertainty with the sampling's; tests of the
        same bets made once, the others named in its ``same`` and listed after it with
        its ``combined_q``, ``combined_alert`` False and ``same_as``: ``same_tests``), ``untested`` (the expected-against-actual
        lines without a p-value: fewer than ``MIN_HANDS`` hands, or no spread; their
        figures are still the hands' sums, shown as such) and ``findings`` (``(kind,
        code, identity, evidence)`` of each alert).
    """
    theory = theory or Theory()
    sums = sums or Sums(hands, theory)
    tests = []
    if not sums.empty:
        groups = sums.groups()
        fit = fit_summary(sums.fit)

        def figures_of(sums_row):
            return _money_figures(statistics.expected_vs_actual_sums(**_sum_args(sums_row)), sums_row["theory_sd"])

        whole = figures_of(groups[("all", None)])
        # Its hands are all the review's, listed nowhere: their set names its bets (``pooling.bets_digest``).
        tests.append({"kind": AlertKind.EXPECTED, "code": "all", "identity": [], "group": subject,
                      **whole, "hand_ids": None, "hand_set": groups[("all", None)]["hand_set"], "fit": fit})
        for field in ("tenure", "dealer"):
            found = sorted(((group, figures) for (name, group), figures in groups.items() if name == field),
                           key=lambda item: str(item[0]))
            if len(found) < 2:
                continue
            for group, figures in found:
                tests.append({"kind": AlertKind.EXPECTED, "code": field, "identity": [field, group], "group": group,
                              **figures_of(figures), "hand_ids": figures["hand_ids"],
                              "hand_total": figures["hand_total"], "fit": fit})
        first = sums.first_edge
        pairs = statistics.pair_figures(sums.pairs(first["within_hand_correlation"]), alpha=alpha)
        for pair in pairs["pairs"]:
            if pair["p_value"] is None:
                continue
            tests.append({"kind": AlertKind.PAIR, "code": pair["kind"], "identity": [pair["a"], pair["b"]],
                          "a": pair["a"], "b": pair["b"], "hands": pair["hands"], "bets": pair["bets"],
                          "staked": pair["staked"], "actual": pair["actual"], "expected": pair["expected"],
                          "sd": pair["sd"], "z": pair["z"], "p_value": pair["p_value"], "q_value": pair["q_value"],
                          "hand_ids": pair["evidence"], "hand_total": pair["hand_total"], "fit": fit,
                          "per_unit_expected": pair["expected"] / pair["staked"] if pair["staked"] else None,
                          "per_unit_band": PAIR_BAND_K * pair["sd"] / pair["staked"] if pair["staked"] else None})
        threshold, large = sums.large_losses(large_stake)
        p_lose = sums.first_fitted["p_lose_high"]
        losses = statistics.large_loss_figures(large, p_lose=p_lose, large_stake=threshold, alpha=alpha)
        for pair in losses["pairs"]:
            if pair["lost"] < 3:
                continue
            tests.append({"kind": AlertKind.LARGE_LOSSES, "code": "player×bank",
                          "identity": [pair["player"], pair["bank"]], "player": pair["player"], "bank": pair["bank"],
                          "large_stake": losses["large_stake"], "large_bets": pair["large_bets"],
                          "lost": pair["lost"], "amount_lost": pair["amount_lost"], "p_lose": p_lose,
                          "p_value": pair["p_value"],
                          "hand_ids": pair["evidence"], "hand_total": pair["hand_total"]})
    tests, copies = same_tests(tests)
    copies_of = {}  # the correction copies each test: its copies found again by a mark
    for mark, test in enumerate(tests):
        if id(test) in copies:
            test["same_mark"] = mark
            copies_of[mark] = copies[id(test)]
    if card_observations is None:
        card_observations = hand_card_observations(hands)
    for deck, observations in sorted(card_observations.items()):
        for test in statistics.card_tests(observations, deck=deck, alpha=alpha):
            tests.append({"kind": AlertKind.CARDS, "code": f"{test['test']}:{test['who']}",
                          "identity": [deck, test["test"], test["who"]], "deck": deck, "test": test["test"],
                          "who": test["who"], "cards": test["cards"], "categories": test["categories"],
                          "statistic": test["statistic"], "df": test["df"], "p_value": test["p_value"],
                          "method": test["method"], "rank": test["evidence"]["rank"],
                          "hand_ids": test["evidence"]["hands"], "rank_total": test["evidence"]["total"]})
    combined = statistics.combined_alerts(tests, alpha=alpha)
    untested = [{**test, "combined_q": None, "combined_alert": False} for test in tests
                if test["kind"] == AlertKind.EXPECTED and test.get("p_value") is None]
    for test in tests:
        test.pop("same_mark", None)
    findings = []
    for test in combined:
        mark = test.pop("same_mark", None)
        test["_copies"] = copies_of.get(mark, [])
    for test in combined:
        if test["combined_alert"]:
            evidence = {key: value for key, value in test.items() if key not in ("kind", "code", "identity", "_copies")}
            findings.append((str(test["kind"]), test["code"], test["identity"], evidence))
    shown = []
    for test in combined:  # each copy shown after its test, with its q: alerting once, as its test
        shown.append(test)
        for copy in test.pop("_copies"):
            shown.append({**copy, "combined_q": test["combined_q"], "combined_alert": False,
                          "same_as": {"kind": str(test["kind"]), "code": test["code"],
                                      "identity": test["identity"]}})
    combined = shown
    for test in untested:
        if test.get("hand_ids") is not None:
            test.setdefault("hand_total", len(test["hand_ids"]))
            test["hand_ids"] = test["hand_ids"][:EVIDENCE_LIMIT]
    for test in combined:
        if test.get("hand_ids") is not None:
            test.setdefault("hand_total", len(test["hand_ids"]))
            test["hand_ids"] = test["hand_ids"][:EVIDENCE_LIMIT]
    for _kind, _code, _identity, evidence in findings:
        if evidence.get("hand_ids") is not None:
            evidence.setdefault("hand_total", len(evidence["hand_ids"]))
            evidence["hand_ids"] = evidence["hand_ids"][:EVIDENCE_LIMIT]
    return {"tests": combined, "untested": untested, "findings": findings}


def bets_key(test) -> tuple:
    """What makes two expected-against-actual tests (or pairs, or pooled groups) the same
    bets: the hands, stakes, result, expectation and its spread, to the cent
    (``same_tests``, ``reports.pooling.merge_report_tests``)."""
    return (test["hands"], round(test["staked"], 2), round(test["actual"], 2), round(test["expected"], 2),
            round(test["sd"], 2))


def same_tests(tests):
    """``tests`` with the expected-against-actual lines and pairs of the same bets made
    once: a shift with one dealer and one bank holder has its dealer × bank pair the same
    hands as the whole shift, and each dealer × player pair the same bets as the bank
    holder × player. The first (in ``tests``' order) is kept, the others named in its
    ``same`` (``kind``, ``code``, ``a``, ``b`` or ``group``). The same bets: the same
    hands, stakes, result and expectation to the cent (and hand ids where both list
    them). Other tests are kept as they are.

    Returns:
        ``(kept, copies)``: the tests to correct together, and ``{id(kept test): [its
        copies]}`` (shown beside it, never tested nor raised on their own).
    """
    kept, first, copies = [], {}, {}
    for test in tests:
        if test["kind"] not in (AlertKind.EXPECTED, AlertKind.PAIR) or test.get("p_value") is None:
            kept.append(test)
            continue
        key = bets_key(test)
        ids = test.get("hand_ids")
        earlier = first.get(key)
        if earlier is not None and (ids is None or earlier.get("hand_ids") is None
                                    or list(ids) == list(earlier["hand_ids"])):
            earlier.setdefault("same", []).append(
                {"kind": str(test["kind"]), "code": test["code"],
                 **({"a": test["a"], "b": test["b"]} if test["kind"] == AlertKind.PAIR else {"group": test["group"]})})
            copies.setdefault(id(earlier), []).append(test)
            continue
        first.setdefault(key, test)
        kept.append(test)
    return kept, copies


def hand_card_observations(hands, limit=CARD_HANDS_LIMIT, chunk=2000):
    """``{deck: [(hand id, kind, who, card, stock)]}`` of the settled and voided hands'
    records (``statistics.card_observations``), the latest ``limit`` hands; a hand whose
    record cannot be read (a card never named) is left out. The records are
    ``hand_records``' (entries read ``chunk`` hands at a time, one query each)."""
    from game.record import profile_for

    out = defaultdict(list)
    for pk, rules, record in hand_records(hands, limit, chunk):
        try:
            observations = statistics.card_observations(record, hand=pk)
        except IllegalEvent:
            continue
        out[profile_for(rules).deck].extend(observations)
    return out


def bank_changes(table, *, start, end):
    """The bank's changes of holder at ``table`` opened in ``[start, end)``, for
    ``statistics.bank_change_patterns``: ``id`` (the new tenure's), ``kind`` (its
    ``began``), ``from`` (the previous holder's code), ``to``, ``price`` and ``balance``
    (euros as floats: the price paid, and the old tenure's balance before the price came
    in: its capital and hands)."""
    tenures = list(BankTenure.objects.filter(table=table, opened_at__gte=start, opened_at__lt=end,
                                             previous__isnull=False)
                   .select_related("holder", "previous__holder").order_by("opened_at", "id"))
    previous_ids = [t.previous_id for t in tenures if t.began == BankTenure.Began.SALE]
    balances = defaultdict(Decimal)
    if previous_ids:
        entries = (Entry.objects.filter(account__tenure__in=previous_ids)
                   .exclude(transaction__kind__in=[Transaction.Kind.BANK_SALE, Transaction.Kind.DISTRIBUTION])
                   .values("account__tenure", "side").annotate(total=Sum("amount")).order_by())
        for row in entries:
            sign = 1 if row["side"] == Entry.Side.CREDIT else -1
            balances[row["account__tenure"]] += sign * row["total"]
    return [{"id": t.pk, "kind": t.began, "from": t.previous.holder.code, "to": t.holder.code,
             "price": float(t.price) if t.price is not None else None,
             "balance": float(balances[t.previous_id]) if t.began == BankTenure.Began.SALE else None}
            for t in tenures]


# ---------------------------------------------------------------------------------------
# A report's findings


class GamingDay(Func):
    """The gaming day (a date) of a timestamp column, in SQL: the casino's date
    (``TIME_ZONE``) of the day that began at ``AML_GAMING_DAY_START`` o'clock at or before
    it, as ``casino.periods.gaming_day`` (wall-clock arithmetic: right on DST days)."""

    output_field = DateField()

    def as_sql(self, compiler, connection, **extra):
        sql, params = compiler.compile(self.source_expressions[0])
        return (f"(({sql} AT TIME ZONE %s) - make_interval(hours => %s))::date",
                [*params, settings.TIME_ZONE, int(settings.AML_GAMING_DAY_START)])


def _already_alerted(findings):
    """The fingerprints among ``findings``' that already have an alert (one query)."""
    prints = {f.fingerprint for f in findings}
    return set(Alert.objects.filter(fingerprint__in=prints).values_list("fingerprint", flat=True)) if prints else set()


def exception_findings(report) -> list[Finding]:
    """A report's exceptions as findings: one per exception code of the report's subject
    (``report.key``: its versions share it), in the order of each code's first exception.

    Evidence: ``code``, ``count`` (the code's exceptions), ``items`` (the exceptions as
    stored, the first ``EVIDENCE_LIMIT``), ``item_total``. Exceptions that already have an
    alert of their own (one per exception, as they were raised before they were grouped)
    are left out, so that nothing is raised twice; a code with none left raises nothing.
    The hands are the hand history's ``?report=&exception=`` filter. The statistical
    exceptions (``STATISTICAL_EXCEPTIONS``) are left to the pooled review, which tests
    them with every other test of its run (``reports.pooling``).
    """
    base = {"table_id": report.table_id, "shift_id": report.shift_id, "report_id": report.pk}
    items = [item for item in report.result.get("exceptions", [])
             if isinstance(item, dict) and item.get("code") not in STATISTICAL_EXCEPTIONS]
    singles = [Finding(kind=AlertKind.EXCEPTION, code=str(item.get("code", "?")), subject=report.key,
                       identity=item, **base) for item in items]
    done = _already_alerted(singles)
    by_code = {}
    for item, single in zip(items, singles, strict=True):
        if single.fingerprint not in done:
            by_code.setdefault(single.code, []).append(item)
    return [Finding(kind=AlertKind.EXCEPTION, code=code, subject=report.key, identity={"grouped": code},
                    evidence={"code": code, "count": len(found), "items": found[:EVIDENCE_LIMIT],
                              "item_total": len(found)}, **base)
            for code, found in by_code.items()]


def large_bet_findings(report, hands) -> list[Finding]:
    """The settled bets of ``hands`` at or above the table's large bet, as one finding per
    player × gaming day × shift (aggregated in PostgreSQL), however many bets.

    Identity: the player's code, the gaming day and the shift (not the report: a shift's
    report and a bank-rotation report over it raise the same alert). Evidence: ``player``,
    ``gaming_day`` (ISO date), ``shift`` (id, None for imported hands), ``threshold``,
    ``count`` (bets), ``total`` and ``largest`` (Decimal euros as strings), ``hand_ids``
    (the first ``EVIDENCE_LIMIT`` hands' ids, by number), ``hand_total`` and
    ``number_from``/``number_to`` (the first and last hand's numbers: with the shift, the
    player and the threshold they select exactly these hands in the hand history). Bets
    that already have an alert of their own (``code="stake"``, one per bet, as raised
    before bets were grouped) are left out.
    """
    table = report.table
    bets = HandBet.objects.filter(hand__in=hands.filter(status=Hand.Status.SETTLED), stake__gte=table.large_bet)
    if Alert.objects.filter(kind=AlertKind.LARGE_BET, code="stake", table=table).exists():
        singles = {Finding(kind=AlertKind.LARGE_BET, code="stake", subject=f"hand:{hand}", identity=bet).fingerprint:
                   bet for bet, hand in bets.values_list("id", "hand_id")}
        done = set(Alert.objects.filter(fingerprint__in=list(singles)).values_list("fingerprint", flat=True))
        bets = bets.exclude(id__in=[bet for fingerprint, bet in singles.items() if fingerprint in done])
    rows = (bets.annotate(day=GamingDay(F("hand__opened_at")))
            .values("player__code", "hand__shift_id", "day")
            .annotate(count=Count("id"), total=Sum("stake"), largest=Max("stake"),
                      hand_total=Count("hand_id", distinct=True), number_from=Min("hand__number"),
                      number_to=Max("hand__number"),
                      hand_ids=ArrayAgg("hand_id", distinct=True, order_by="hand_id"))
            .order_by("day", "hand__shift_id", "player__code"))
    findings = []
    for row in rows:
        player, shift, day = row["player__code"], row["hand__shift_id"], row["day"].isoformat()
        evidence = {"player": player, "gaming_day": day, "shift": shift, "threshold": str(table.large_bet),
                    "count": row["count"], "total": str(row["total"]), "largest": str(row["largest"]),
                    "hand_ids": row["hand_ids"][:EVIDENCE_LIMIT], "hand_total": row["hand_total"],
                    "number_from": row["number_from"], "number_to": row["number_to"]}
        findings.append(Finding(kind=AlertKind.LARGE_BET, code="stakes",
                                subject=f"player:{player}:{day}:shift:{shift or '-'}"[:120],
                                identity=[player, day, shift], evidence=evidence, table_id=table.pk,
                                shift_id=shift, report_id=report.pk))
    return findings


def report_hands(report):
    """The hands a stored report covers: ``(hands, start, end)``: a shift report's, its
    shift's hands (``end`` its close, or now while open); a bank-rotation report's, its
    table's hands opened in its period."""
    if report.kind == ReportKind.SHIFT:
        shift = report.shift
        return Hand.objects.filter(shift=shift), shift.opened_at, shift.closed_at or timezone.now()
    from casino.periods import period_bounds

    start, end = period_bounds(report.date_from, report.date_to)
    return Hand.objects.filter(table=report.table, opened_at__gte=start, opened_at__lt=end), start, end


#: The kinds of a report's review that are statistical tests: left to the nightly pooled
#: review (``reports.pooling``), which corrects them with every other test of its run.
STATISTICAL_KINDS = (AlertKind.EXPECTED, AlertKind.PAIR, AlertKind.LARGE_LOSSES, AlertKind.CARDS)


def report_tests(report, *, theory=None, card_observations=None) -> list[dict]:
    """The statistical tests of a stored report's review (``review`` of its hands, as the
    report's page and ``report_findings`` once raised them), for the nightly pooled
    review's one correction: each test with a p-value, tests of the same bets made once
    (``same_tests``: a copy is neither tested nor raised).

    Args:
        report: a stored ``Report`` (shift or bank rotation).
        theory: a ``Theory`` (default: a new one, computing a missing edge).
        card_observations: the cards' observations (default: replayed from the hands).
    Returns:
        list of dicts: the review's test (``kind``, ``code``, ``identity``, ``p_value`` and
        its evidence, without the review's own ``combined_q``/``combined_alert``) with
        ``subject`` (``report.key``), ``table_id``, ``shift_id`` and ``report_id``: the
        finding it raises when the pooled correction alerts is the one the report's close
        raised before (the same fingerprint).
    """
    hands, _start, _end = report_hands(report)
    result = review(hands, subject=report.key, theory=theory, card_observations=card_observations,
                    large_stake=report.table.large_bet)
    tests = []
    for test in result["tests"]:
        if test.get("same_as") is not None or test.get("p_value") is None:
            continue
        line = {key: value for key, value in test.items() if key not in ("combined_q", "combined_alert")}
        line.update(kind=str(test["kind"]), subject=report.key, table_id=report.table_id, shift_id=report.shift_id,
                    report_id=report.pk)
        tests.append(line)
    return tests


def report_findings(report) -> list[Finding]:
    """The findings a stored report raises at once (``reports.tasks.raise_alerts``): its
    exceptions (the statistical ones left out: ``exception_findings``), its large bets and
    the bank's changes of holder around it. Its review's statistical tests
    (``STATISTICAL_KINDS``: expected against actual, pairs, large losses, cards) raise
    nothing here: the nightly pooled review (``reports.pooling.pooled_review``) takes them
    (``report_tests``) into its one correction with every other test of its run, and
    raises those that alert with this report's subject and ids.

    Args:
        report: a stored ``Report`` (shift or bank rotation).
    Returns:
        list of ``Finding``.
    """
    table = report.table
    base = {"table_id": table.pk, "shift_id": report.shift_id, "report_id": report.pk}
    findings = exception_findings(report)
    hands, _start, end = report_hands(report)
    if table.large_bet is not None:
        findings.extend(large_bet_findings(report, hands))
    changes = bank_changes(table, start=end - BANK_CHANGES_WINDOW, end=end)
    for pattern in statistics.bank_change_patterns(changes):
        identity = pattern["players"] if pattern["pattern"] == "repeated_changes" else pattern["id"]
        findings.append(Finding(kind=AlertKind.BANK_CHANGES, code=pattern["pattern"], subject=f"table:{table.pk}",
                                identity=[identity, pattern["evidence"]] if pattern["pattern"] == "repeated_changes"
                                else identity, evidence=pattern, **base))
    return findings
