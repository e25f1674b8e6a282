"""``manage.py edge``: the bank's theoretical edge under a rule set, by simulation (a thin
shell over ``game.edge.bank_edge``; nothing is read from or written to the
database unless ``--store``).

    manage.py edge --profile reglamento --seats 4 --hands 1000000 --seed 17
    manage.py edge --rules '{"profile": "reglamento", "deck": "spanish-36"}' --seats 1 4 9 --workers 2
    manage.py edge --profile americana --stand-at 5.5 --strategy '{"split": true}' --format text
    manage.py edge --profile reglamento --seats 1 2 3 4 5 6 7 8 9 --hands 500000 --seed 17 --store

``--store`` keeps each result as the stored simulation the auditors' alerts and review
compare with (``reports.models.EdgeFigure``, one per rule set, seat count and strategy,
replaced when computed again): the default strategy, or the one ``--stand-at`` and
``--strategy`` give (e.g. the play a review observed: ``--strategy '{"stand_at": 11,
"bank_stand_at": 10, "split": true}'``); without it nothing is written.

Prints one JSON object per seat count (a list when several are asked), as
``EdgeResult.as_dict``: the bank's expected result per unit staked with its 95%
interval, the standard deviations, the strategy in words, the seed. The time taken goes
to standard error. About 10,000 hands per second per worker with 4 seats.
"""

import json
import time
from decimal import Decimal, InvalidOperation

from django.core.management.base import BaseCommand, CommandError

from game import InvalidRules, Profile
from game.edge import bank_edge, default_strategy


def _json(text):
    try:
        return json.loads(text)
    except ValueError as error:
        raise CommandError(f"not JSON: {text!r} ({error})") from None


class Command(BaseCommand):
    help = "Estimate the bank's edge (expected result per unit staked) under a rule set by simulation."

    def add_arguments(self, parser):
        parser.add_argument("--profile", default="reglamento", help="a named profile (default reglamento)")
        parser.add_argument("--rules", help='a rules object in JSON, e.g. {"profile": "reglamento", "deck": "spanish-36"}; '
                                            "replaces --profile")
        parser.add_argument("--seats", type=int, nargs="+", default=[4], help="seats at the table, 1 to 9 (several: one result each)")
        parser.add_argument("--hands", type=int, default=100_000, help="hands to simulate per seat count")
        parser.add_argument("--seed", type=int, default=0, help="the same seed gives the same figures")
        parser.add_argument("--stand-at", help="the seats' threshold in points (e.g. 4 or 5.5); default: the profile's")
        parser.add_argument("--strategy", help='other strategy fields in JSON, e.g. {"split": false, "fusilar": true}')
        parser.add_argument("--workers", type=int, default=1, help="processes (the figures do not depend on it)")
        parser.add_argument("--format", choices=("json", "text"), default="json")
        parser.add_argument("--store", action="store_true",
                            help="store each result as the theory the alerts compare with (for its strategy)")

    def handle(self, *args, **options):
        rules = _json(options["rules"]) if options["rules"] else options["profile"]
        try:
            profile = Profile.from_rules(rules)
        except InvalidRules as error:
            raise CommandError(error.message) from None
        changes = _json(options["strategy"]) if options["strategy"] else {}
        if not isinstance(changes, dict):
            raise CommandError("--strategy must be a JSON object")
        if options["stand_at"] is not None:
            try:
                half = Decimal(options["stand_at"]) * 2
            except InvalidOperation:
                half = None
            if half is None or half != half.to_integral_value():
                raise CommandError(f"--stand-at must be points in halves (4, 5.5), not {options['stand_at']!r}")
            changes["stand_at"] = int(half)
        try:
            strategy = default_strategy(profile, **changes)
        except (TypeError, ValueError) as error:
            raise CommandError(f"--strategy: {error}") from None
        results = []
        for seats in options["seats"]:
            started = time.perf_counter()
            try:
                edge = bank_edge(rules, seats=seats, hands=options["hands"], seed=options["seed"],
                                 strategy=strategy, workers=options["workers"])
            except ValueError as error:
                raise CommandError(str(error)) from None
            seconds = time.perf_counter() - started
            self.stderr.write(f"{seats} seats: {edge.hands:,} hands in {seconds:.1f} s "
                              f"({edge.hands / seconds:,.0f} hands/s)")
            results.append(edge.as_dict())
            if options["store"]:
                from reports.detection import edge_store

                edge_store(rules=rules, seats=seats, hands=edge.hands, seed=options["seed"], result=edge.as_dict(),
                           strategy=strategy)
                self.stderr.write(f"{seats} seats: stored")
        if options["format"] == "json":
            self.stdout.write(json.dumps(results[0] if len(results) == 1 else results, indent=2))
            return
        for edge in results:
            low, high = edge["ci95"]
            self.stdout.write(
                f"{edge['profile']} {edge['seats']} seats, {edge['hands']:,} hands (seed {edge['seed']}): "
                f"bank {edge['mean_per_unit']:+.4f} per unit staked, 95% [{low:+.4f}, {high:+.4f}], "
                f"sd {edge['sd_per_unit_hand']:.3f} per hand, {edge['sd_per_unit_bet']:.3f} per bet, "
                f"correlation {edge['within_hand_correlation']:.3f}\n  {edge['strategy_text']}")
