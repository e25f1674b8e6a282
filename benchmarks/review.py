"""The auditor's review page (``/reports/review/``): how long it takes to load, and where
the time goes. A script that prints figures, never a timed test.

    .venv/bin/python benchmarks/review.py [--shifts 3] [--hands 700] [--repeat 5]

In a scratch database ``review_bench_<pid>`` (``createdb``, migrated, dropped at the end):
one table of the simulation's rules (``tests/reports/sessions.py``), ``--shifts`` shifts
of ``--hands`` simulated hands each, imported as the import does, one dealer each; the
theory of the rules stored. Then, after one warm-up, ``--repeat`` times each (the median
printed): the page as the auditor's browser asks for it (the Django test client, the whole
view and its template), ``review_figures`` alone, and its parts (the hands' sums, the
card observations, the review's tests; the strategy fitted to the hands, which the sums
include).
"""

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import PG, database_url, drop_scratch, run  # noqa: E402  (beside this script)


def seed(shifts, hands):
    """The table, its shifts' hands imported, the theory stored. Returns the Table."""
    from reports.detection import edge_store
    from tests.factories import UserFactory, open_drawer
    from tests.reports.sessions import RULES, SEATS, play_shift, records, simulated_table

    staff = {"cashier": UserFactory(username="caja1", roles=["cashier"]),
             "supervisor": UserFactory(username="pit1", roles=["pit_supervisor"])}
    open_drawer(staff["cashier"])
    table = simulated_table("Mesa R", staff)
    for number in range(shifts):
        dealer = UserFactory(username=f"dealer{number + 1}", roles=["dealer"])
        play_shift(table, dealer, staff["supervisor"], records(number + 1, hands))
    edge_store(rules=RULES, seats=SEATS, hands=500_000, seed=17, result={
        "mean_per_unit": 0.06, "sd_per_unit_hand": 0.8, "sd_per_unit_bet": 1.1, "within_hand_correlation": 0.28,
        "bank_wins_bet": 0.52, "seats": SEATS, "hands": 500_000, "seed": 17})
    UserFactory(username="audit1", roles=["auditor"])
    return table


def timed(label, repeat, call):
    call()  # warm-up
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    print(f"{label:<34}: {statistics.median(times):6.3f} s  (min {min(times):.3f}, max {max(times):.3f})", flush=True)


def measure(table, repeat):
    from django.contrib.auth import get_user_model
    from django.test import Client
    from django.utils import timezone

    from reports.detection import Sums, Theory, fit_hands, hand_card_observations, review
    from reports.views.review import PAGE_CARD_HANDS, ReviewForm, _hands, review_figures

    today = timezone.localdate().isoformat()
    query = {"table": table.pk, "date_from": today, "date_to": today, "funnel": "tenure"}
    client = Client()
    client.force_login(get_user_model().objects.get(username="audit1"))

    def page():
        response = client.get("/reports/review/", query)
        assert response.status_code == 200, response.status_code

    form = ReviewForm(query)
    assert form.is_valid(), form.errors
    data = form.cleaned_data
    hands = _hands(data)

    def sums_alone():
        sums = Sums(hands, Theory(compute=False))
        sums.groups(), sums.pairs(0.28), sums.large_losses(), sums.funnel("tenure"), sums.counts()

    def review_alone():
        review(hands, subject="page", theory=Theory(compute=False), card_observations={})

    timed("the page (view and template)", repeat, page)
    timed("review_figures", repeat, lambda: review_figures(data))
    timed("  the hands' sums (SQL)", repeat, sums_alone)
    timed("  the strategy's fit (in the sums)", repeat, lambda: fit_hands(hands))
    timed("  the card observations", repeat, lambda: hand_card_observations(hands, limit=PAGE_CARD_HANDS))
    timed("  the review without the cards", repeat, review_alone)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shifts", type=int, default=3)
    parser.add_argument("--hands", type=int, default=700, help="hands per shift")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    name = f"review_bench_{os.getpid()}"
    run("createdb", *PG, name)
    os.environ["DATABASE_URL"] = database_url(name)
    os.environ["DJANGO_DEBUG"] = "false"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.test")
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.test.utils import setup_test_environment

        setup_test_environment()  # the test client's host allowed

        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        table = seed(args.shifts, args.hands)
        print(f"seed: {args.shifts} shifts of {args.hands} hands in {time.perf_counter() - started:.0f} s", flush=True)
        measure(table, args.repeat)
    finally:
        drop_scratch(name)


if __name__ == "__main__":
    main()
