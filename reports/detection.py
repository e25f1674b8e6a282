"""What raises the auditors' alerts: a stored report's exceptions, large bets, and the
statistical review of the report's hands against the theory. [issue 17]

``report_findings(report)`` reads the database and returns ``reports.alerts.Finding``s;
``reports.tasks.raise_alerts`` raises them after each report is stored. The statistics are
``reports.statistics`` (pure); the theory is the stored simulation of the bank's edge
(``EdgeFigure``, per rule set and seat count; computed and stored when first needed).

The review of a set of hands (a shift's, or a table's over a period) runs these tests:
the bank's result against the expected for the whole set, each bank tenure and each
dealer; the pairs dealer × bank holder, dealer × player and bank holder × player; the
card tests (the bank's first card, each seat's, the draws); a player losing his large
stakes to the same bank. Their p-values take one Benjamini–Hochberg correction together
(``statistics.combined_alerts``): an honest review raises an alert with probability at
most ``ALPHA`` (1%). The bank's sales and transfers between the same players, and sale
prices far from the bank's balance, are patterns (no p-value): each is an alert.
"""

import json
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db.models import Sum
from django.utils import timezone

from ledger.models import BankTenure, Entry, Transaction
from reports import statistics
from reports.alerts import Finding
from reports.models import AlertKind, EdgeFigure, ReportKind
from tables.engine import IllegalEvent, Profile
from tables.models import Hand, HandBet

ALPHA = statistics.ALPHA
#: Hands at most whose cards are replayed for the card tests (a review's latest).
CARD_HANDS_LIMIT = 20_000
#: The bank's sales and transfers looked at: this long before the reviewed hands' end.
BANK_CHANGES_WINDOW = timedelta(days=30)
#: Evidence lists (hand ids) are cut to this many, with their full count kept.
EVIDENCE_LIMIT = 200
#: A result against the expected is tested from this many hands (the normal approximation).
MIN_HANDS = 30


def edge_key(rules, seats) -> str:
    """The stored edge's key: the canonical rules (profile and overrides) as sorted JSON and the seats."""
    canonical = Profile.from_rules(rules).rules
    return f"{json.dumps(canonical, sort_keys=True, default=str)}|{int(seats)}"


def edge_figure(rules, seats, *, hands=None, seed=None) -> dict:
    """The bank's edge for a rule set and seat count (``EdgeResult.as_dict()``): the stored
    simulation, or a new one computed now (``bank_edge`` with ``settings.EDGE_HANDS``
    hands and ``settings.EDGE_SEED``) and stored.

    Raises:
        InvalidRules: the rules are not valid.
    """
    from tables.engine.edge import bank_edge

    key = edge_key(rules, seats)
    stored = EdgeFigure.objects.filter(key=key).values_list("result", flat=True).first()
    if stored is not None:
        return stored
    return edge_store(rules=rules, seats=seats, hands=hands or settings.EDGE_HANDS,
                      seed=settings.EDGE_SEED if seed is None else seed,
                      result=bank_edge(rules, seats=int(seats), hands=hands or settings.EDGE_HANDS,
                                       seed=settings.EDGE_SEED if seed is None else seed).as_dict()).result


def edge_store(*, rules, seats: int, hands: int, seed: int, result: dict) -> EdgeFigure:
    """Store (or replace) the simulation of a rule set and seat count. Returns the EdgeFigure."""
    figure, _created = EdgeFigure.objects.update_or_create(
        key=edge_key(rules, seats),
        defaults={"rules": Profile.from_rules(rules).rules, "seats": seats, "hands": hands, "seed": seed,
                  "result": result, "computed_at": timezone.now()})
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
            .values_list("hand_id", "id", "hand__shift__dealer__username", "hand__bank__code", "hand__tenure_id",
                         "player__code", "stake", "net", "hand__rules", "hand__seats"))
    return [{"hand": hand, "bet": bet, "dealer": dealer or "—", "bank": bank, "tenure": tenure, "player": player,
             "stake": stake, "bank_result": -net, "rules": rules, "seats": len(seats)}
            for hand, bet, dealer, bank, tenure, player, stake, net, rules, seats in rows]


class MissingTheory(LookupError):
    """No stored edge for these rules and seats (``Theory(compute=False)``); ``rules``, ``seats``."""

    def __init__(self, rules, seats):
        super().__init__(f"no stored edge for {rules} with {seats} seats")
        self.rules, self.seats = rules, seats


class Theory:
    """The stored edges a review needs, one per (rules, seats), read once; a missing one is
    simulated and stored (``edge_figure``), or with ``compute=False`` raises ``MissingTheory``
    (a page does not wait for a simulation)."""

    def __init__(self, compute=True):
        self._edges = {}
        self.compute = compute

    def __call__(self, rules, seats):
        key = edge_key(rules, seats)
        if key not in self._edges:
            if self.compute:
                self._edges[key] = edge_figure(rules, seats)
            else:
                stored = EdgeFigure.objects.filter(key=key).values_list("result", flat=True).first()
                if stored is None:
                    raise MissingTheory(rules, seats)
                self._edges[key] = stored
        return self._edges[key]


def _hand_groups(rows, theory):
    """``{hand: (stake, bank result, expected, variance)}`` in cents, from its bets."""
    from tables.engine.edge import hand_variance

    bets = defaultdict(list)
    for row in rows:
        bets[row["hand"]].append(row)
    hands = {}
    for hand, items in bets.items():
        edge = theory(items[0]["rules"], items[0]["seats"])
        stakes = [float(r["stake"]) * 100 for r in items]
        hands[hand] = (sum(stakes), sum(float(r["bank_result"]) * 100 for r in items),
                       edge["mean_per_unit"],
                       hand_variance(stakes, edge["sd_per_unit_bet"], edge["within_hand_correlation"]))
    return hands


def expected_figures(rows, theory, *, k=3.0):
    """The bank's actual result against the expected for the hands of ``rows`` (``bet_rows``):
    ``statistics.expected_vs_actual`` with each hand's variance from its bets' stakes and
    the edge of its rules and seats. Money in cents (floats)."""
    hands = _hand_groups(rows, theory)
    values = list(hands.values())
    return statistics.expected_vs_actual([v[0] for v in values], [v[1] for v in values],
                                         mean=[v[2] for v in values], variances=[v[3] for v in values], k=k)


def _cents(value):
    return None if value is None else round(value) / 100


def _money_figures(figures):
    """``expected_vs_actual``'s money (cents) as euros, for evidence; the p-value None
    (not tested) under ``MIN_HANDS`` hands."""
    out = {name: figures[name] for name in ("hands", "effective_hands", "k", "z", "p_value", "per_unit_actual",
                                            "per_unit_expected", "outside")}
    if figures["hands"] < MIN_HANDS:
        out["p_value"] = None
    for name in ("staked", "actual", "expected", "sd"):
        out[name] = _cents(figures[name])
    out["band"] = [_cents(x) for x in figures["band"]]
    return out


# ---------------------------------------------------------------------------------------
# The review


def review(hands, *, subject, theory=None, alpha=ALPHA, card_observations=None, large_stake=None):
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
    Returns:
        dict: ``tests`` (every test, with ``combined_q`` and ``combined_alert``; evidence
        cut to ``EVIDENCE_LIMIT`` hand ids) and ``findings`` (``(kind, code, identity,
        evidence)`` of each alert).
    """
    theory = theory or Theory()
    rows = bet_rows(hands)
    tests = []
    if rows:
        whole = expected_figures(rows, theory)
        tests.append({"kind": AlertKind.EXPECTED, "code": "all", "identity": [], "group": subject,
                      **_money_figures(whole), "hand_ids": None})
        for field in ("tenure", "dealer"):
            groups = defaultdict(list)
            for row in rows:
                groups[row[field]].append(row)
            if len(groups) < 2:
                continue
            for group, items in sorted(groups.items(), key=lambda item: str(item[0])):
                figures = expected_figures(items, theory)
                tests.append({"kind": AlertKind.EXPECTED, "code": field, "identity": [field, group], "group": group,
                              **_money_figures(figures), "hand_ids": sorted({r["hand"] for r in items})})
        edges = [theory(rows[0]["rules"], rows[0]["seats"])]
        mean, sd, rho = (edges[0][name] for name in ("mean_per_unit", "sd_per_unit_bet", "within_hand_correlation"))
        pair_rows = []
        for row in rows:
            edge = theory(row["rules"], row["seats"])
            pair_rows.append({**row, "stake": float(row["stake"]), "bank_result": float(row["bank_result"]),
                              "mean": edge["mean_per_unit"], "sd": edge["sd_per_unit_bet"]})
        pairs = statistics.pair_analysis(pair_rows, mean=mean, sd=sd, rho=rho, alpha=alpha)
        for pair in pairs["pairs"]:
            if pair["p_value"] is None:
                continue
            tests.append({"kind": AlertKind.PAIR, "code": pair["kind"], "identity": [pair["a"], pair["b"]],
                          "a": pair["a"], "b": pair["b"], "hands": pair["hands"], "bets": pair["bets"],
                          "staked": pair["staked"], "actual": pair["actual"], "expected": pair["expected"],
                          "sd": pair["sd"], "z": pair["z"], "p_value": pair["p_value"], "q_value": pair["q_value"],
                          "hand_ids": pair["evidence"]})
        losses = statistics.large_losses(pair_rows, p_lose=edges[0]["bank_wins_bet"], alpha=alpha,
                                         large_stake=None if large_stake is None else float(large_stake))
        for pair in losses["pairs"]:
            if pair["lost"] < 3:
                continue
            tests.append({"kind": AlertKind.LARGE_LOSSES, "code": "player×bank",
                          "identity": [pair["player"], pair["bank"]], "player": pair["player"], "bank": pair["bank"],
                          "large_stake": losses["large_stake"], "large_bets": pair["large_bets"],
                          "lost": pair["lost"], "amount_lost": pair["amount_lost"], "p_value": pair["p_value"],
                          "hand_ids": pair["evidence"]})
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
    findings = []
    for test in combined:
        if test.get("hand_ids") is not None:
            test["hand_total"] = len(test["hand_ids"])
            test["hand_ids"] = test["hand_ids"][:EVIDENCE_LIMIT]
        if test["combined_alert"]:
            evidence = {key: value for key, value in test.items() if key not in ("kind", "code", "identity")}
            findings.append((str(test["kind"]), test["code"], test["identity"], evidence))
    return {"tests": combined, "findings": findings}


def hand_card_observations(hands, limit=CARD_HANDS_LIMIT, chunk=2000):
    """``{deck: [(hand id, kind, who, card, stock)]}`` of the settled and voided hands'
    records (``statistics.card_observations``), the latest ``limit`` hands; a hand whose
    record cannot be read (a card never named) is left out. The entries are read ``chunk``
    hands at a time, one query each (as ``tables.selectors.hand_record`` reads one hand's)."""
    from tables.engine.console import effective_events, fold_record_events
    from tables.engine.record import FORMAT
    from tables.models import HandEvent
    from tables.services import new_hand_state

    out = defaultdict(list)
    chosen = list(hands.exclude(status=Hand.Status.OPEN).select_related("bank").order_by("-opened_at", "-id")
                  [:limit])
    for first in range(0, len(chosen), chunk):
        part = chosen[first:first + chunk]
        entries = defaultdict(list)
        for hand_id, kind, event in (HandEvent.objects.filter(hand_id__in=[h.pk for h in part])
                                     .order_by("hand_id", "sequence").values_list("hand_id", "kind", "event")
                                     .iterator(chunk_size=5000)):
            entries[hand_id].append((kind, event))
        for hand in part:
            try:
                record = {"format": FORMAT, "rules": hand.rules, "min_bet": f"{hand.min_bet:.2f}",
                          "max_bet": f"{hand.max_bet:.2f}", "bank": hand.bank.code, "seats": list(hand.seats),
                          "events": fold_record_events(new_hand_state(hand), effective_events(entries[hand.pk]))}
                observations = statistics.card_observations(record, hand=hand.pk)
            except IllegalEvent:
                continue
            out[Profile.from_rules(hand.rules).deck].extend(observations)
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
        entries = (Entry.objects.filter(account__tenure_id__in=previous_ids)
                   .exclude(transaction__kind__in=[Transaction.Kind.BANK_SALE, Transaction.Kind.DISTRIBUTION])
                   .values("account__tenure_id", "side").annotate(total=Sum("amount")).order_by())
        for row in entries:
            sign = 1 if row["side"] == Entry.Side.CREDIT else -1
            balances[row["account__tenure_id"]] += sign * row["total"]
    return [{"id": t.pk, "kind": t.began, "from": t.previous.holder.code, "to": t.holder.code,
             "price": float(t.price) if t.price is not None else None,
             "balance": float(balances[t.previous_id]) if t.began == BankTenure.Began.SALE else None}
            for t in tenures]


# ---------------------------------------------------------------------------------------
# A report's findings


def report_findings(report, *, theory=None, card_observations=None) -> list[Finding]:
    """Every finding of a stored report: its exceptions, its large bets, its hands' review
    and the bank's changes of holder around it.

    Args:
        report: a stored ``Report`` (shift or bank rotation).
    Returns:
        list of ``Finding``.
    """
    table = report.table
    base = {"table_id": table.pk, "shift_id": report.shift_id, "report_id": report.pk}
    findings = [Finding(kind=AlertKind.EXCEPTION, code=str(item.get("code", "?")), subject=report.key,
                        identity=item, evidence=item, **base)
                for item in report.result.get("exceptions", [])]
    if report.kind == ReportKind.SHIFT:
        shift = report.shift
        hands = Hand.objects.filter(shift=shift)
        end = shift.closed_at or timezone.now()
        start = shift.opened_at
    else:
        from reports.banks import period_bounds

        start, end = period_bounds(report.date_from, report.date_to)
        hands = Hand.objects.filter(table=table, opened_at__gte=start, opened_at__lt=end)
    if table.large_bet is not None:
        large = (HandBet.objects.filter(hand__in=hands.filter(status=Hand.Status.SETTLED), stake__gte=table.large_bet)
                 .values_list("id", "hand_id", "hand__number", "player__code", "stake", "net").order_by("id"))
        for bet, hand, number, player, stake, net in large:
            findings.append(Finding(kind=AlertKind.LARGE_BET, code="stake", subject=f"hand:{hand}", identity=bet,
                                    evidence={"bet": bet, "hand": hand, "number": number, "player": player,
                                              "stake": str(stake), "net": str(net),
                                              "threshold": str(table.large_bet)}, **base))
    result = review(hands, subject=report.key, theory=theory, card_observations=card_observations,
                    large_stake=table.large_bet)
    for kind, code, identity, evidence in result["findings"]:
        findings.append(Finding(kind=kind, code=code, subject=report.key, identity=identity, evidence=evidence,
                                **base))
    changes = bank_changes(table, start=end - BANK_CHANGES_WINDOW, end=end)
    for pattern in statistics.bank_change_patterns(changes):
        identity = pattern["players"] if pattern["pattern"] == "repeated_changes" else pattern["id"]
        findings.append(Finding(kind=AlertKind.BANK_CHANGES, code=pattern["pattern"], subject=f"table:{table.pk}",
                                identity=[identity, pattern["evidence"]] if pattern["pattern"] == "repeated_changes"
                                else identity, evidence=pattern, **base))
    return findings
