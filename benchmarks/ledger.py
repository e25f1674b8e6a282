"""Ledger speed: hand settlements posted one by one next to pgbench, and a balance read on
an account with 1,000,000 entries. A script that prints figures, never a timed test.

    .venv/bin/python benchmarks/ledger.py [--hands 10000] [--entries 1000000]

Everything happens in scratch databases on the PostgreSQL server of ``PGHOST``/``PGPORT``
/``PGUSER`` (default 127.0.0.1:5432, postgres), created with ``createdb`` and dropped at
the end:

1. ``ledger_bench_<pid>``, with the production settings: migrated; a bank tenure; ``--hands`` settlements of random
   legal hands (``game.simulate``; the public conformance hands if it is
   missing), settled beforehand, then posted one by one with ``ledger_post_settlement``
   (one database transaction each, triggers on), half before and half after step 2.
   Prints postings/s.
2. ``ledger_pgbench_<pid>``: ``pgbench -i`` then ``pgbench -c 1 -T 10`` (TPC-B-like, one
   client). Prints its TPS and the ratio (goal: postings/s at least half of it).
3. Back in the first database: ``--entries`` entries on one player's account, bulk-loaded
   with SQL (triggers off for the load only: ``session_replication_role = replica``; the
   balance column set from the entries), then the balance read timed (goal: under 5 ms),
   with the sum over the entries for comparison (what a ledger without a balance column
   must do; django-hordak reports 420 ms).
"""

import argparse
import json
import os
import statistics
import sys
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from postgres import PG, create_scratch, database_url, pgbench_tps, run  # noqa: E402  (beside this script)


def settlements(count, seed=7):
    """``count`` (rules name, Settlement) of hands banked by ``banca``, settled now."""
    import random

    from game.payouts import settle
    from game.record import play_record

    try:
        from game.simulate import NAMES, random_record
    except ImportError:
        random_record = None
    rng = random.Random(seed)
    hands = []
    if random_record is not None:
        while len(hands) < count:
            seats = rng.sample(NAMES, rng.randint(1, 6))
            record = random_record(rng, seats=seats, bank="banca")
            hands.append(settle(play_record(record)))
        return hands
    cases = sorted((ROOT.parent / "shared" / "conformance").glob("p*.json"))
    records = [json.loads(path.read_text()) for path in cases if not path.name.endswith(".expected.json")]
    valid = []
    for record in records:
        record["bank"] = "banca"
        try:
            valid.append(settle(play_record(record)))
        except Exception:  # the invalid cases
            continue
    return [valid[i % len(valid)] for i in range(count)]


def prepare_postings(count):
    """Players with chips, an open tenure and ``count`` settlements ready to post."""
    from django.contrib.auth.models import User

    from benchmarks.cage import cage_cashier, identity
    from cage.services.slips import cashier_buy_in
    from patrons.models import Player
    from tables.bank.tenures import tenure_open
    from tables.models import Table

    hands = settlements(count)
    codes = sorted({code for hand in hands for code in hand.players} | {"banca"})
    players = {code: Player.objects.create(code=code, name=code, **identity(code)) for code in codes}
    table = Table.objects.create(name="Mesa bench", rules="reglamento", min_bet=Decimal(1), max_bet=Decimal(1000))
    cashier = cage_cashier(User.objects.create_user("bench-cashier"))
    for player in players.values():
        cashier_buy_in(player=player, amount=Decimal("100000.00"), posted_by=cashier)
    tenure = tenure_open(table=table, holder=players["banca"], capital=Decimal("100000.00"),
                                  began="draw", posted_by=cashier)
    return hands, tenure, players


def post_hands(hands, tenure, first_number):
    """Post ``hands`` one by one (one database transaction each); (postings/s, seconds)."""
    from tables.settlement import ledger_post_settlement


    post = ledger_post_settlement
    started = time.perf_counter()
    for number, hand in enumerate(hands, start=first_number):
        post(tenure=tenure, settlement=hand, idempotency_key=f"hand:bench:{number}",
             reference=f"hand Mesa bench #{number}")
    elapsed = time.perf_counter() - started
    return len(hands) / elapsed, elapsed


def bench_pgbench(seconds):
    return pgbench_tps(seconds, "ledger")


def bench_balance_read(entries, players):
    from django.db import connection

    from ledger import posting
    from ledger.models import Account
    from ledger.selectors import SIGNED, account_balance, player_statement

    whale = Account.objects.get(pk=posting.player_accounts([players["banca"].pk])[players["banca"].pk])
    cage = posting.singleton_account(Account.Kind.CAGE)
    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")  # bulk load only: triggers off
        cursor.execute("SELECT coalesce(max(id), 0) FROM ledger_transaction")
        (base,) = cursor.fetchone()
        cursor.execute("""
            INSERT INTO ledger_transaction (id, kind, reference, idempotency_key, source, posted_at, memo, detail)
            SELECT %(base)s + g, 'hand', 'bulk hand ' || g, 'bulk:' || g, 'system:bench', now(), '', '{}'
              FROM generate_series(1, %(n)s) g""", {"base": base, "n": entries})
        cursor.execute("""
            INSERT INTO ledger_entry (transaction_id, account_id, side, amount)
            SELECT %(base)s + g, a.account, a.side, ((g %% 97) + 1)::numeric
              FROM generate_series(1, %(n)s) g,
                   LATERAL (VALUES (%(whale)s, CASE WHEN g %% 2 = 0 THEN 'C' ELSE 'D' END),
                                   (%(cage)s, CASE WHEN g %% 2 = 0 THEN 'D' ELSE 'C' END)) a(account, side)""",
                       {"base": base, "n": entries, "whale": whale.id, "cage": cage})
        cursor.execute("SELECT setval(pg_get_serial_sequence('ledger_transaction', 'id'), %s)", [base + entries])
        cursor.execute("""
            UPDATE ledger_account a SET balance = coalesce(
                (SELECT sum(CASE side WHEN 'C' THEN amount ELSE -amount END) FROM ledger_entry e
                  WHERE e.account_id = a.id), 0)
             WHERE a.id IN (%s, %s)""", [whale.id, cage])
        cursor.execute("SET session_replication_role = origin")
        cursor.execute("ANALYZE ledger_entry")
        cursor.execute("ANALYZE ledger_transaction")
        cursor.execute("SELECT count(*) FROM ledger_entry WHERE account_id = %s", [whale.id])
        (count,) = cursor.fetchone()
    load = time.perf_counter() - started

    def timed(function, repeat):
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            result = function()
            times.append((time.perf_counter() - started) * 1000)
        times.sort()
        return statistics.median(times), times[int(len(times) * 0.99) - 1], result

    read_median, read_p99, balance = timed(lambda: account_balance(account=whale), 1000)
    from django.db.models import Sum

    from ledger.models import Entry
    sum_median, _sum_max, total = timed(
        lambda: Entry.objects.filter(account=whale).aggregate(total=Sum(SIGNED))["total"], 5)
    page_median, _page_max, _statement = timed(lambda: player_statement(player=players["banca"], page=1), 20)
    return {"entries": count, "load_s": load, "read_median_ms": read_median, "read_p99_ms": read_p99,
            "balance": balance, "sum_median_ms": sum_median, "sum_agrees": total == balance,
            "statement_page_ms": page_median}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10000)
    parser.add_argument("--entries", type=int, default=1_000_000)
    parser.add_argument("--pgbench-seconds", type=int, default=10)
    args = parser.parse_args()

    name = f"ledger_bench_{os.getpid()}"
    needs_migrate = create_scratch(name)
    # The shipped settings (production's: no query log, statements prepared as configured).
    redis = os.environ.get("CELERY_BROKER_URL", "redis://127.0.0.1:6379/0")
    os.environ.update(DATABASE_URL=database_url(name), DJANGO_SETTINGS_MODULE="casino.settings.production",
                      DJANGO_SECRET_KEY="bench-only-not-a-secret", CHAIN_KEY="bench-only-chain-key-not-a-secret-0000", DJANGO_ALLOWED_HOSTS="127.0.0.1",
                      CELERY_BROKER_URL=redis, CACHE_URL=os.environ.get("CACHE_URL", redis))
    try:
        import django

        django.setup()
        from django.core.management import call_command
        from django.db import connection

        if needs_migrate:
            call_command("migrate", verbosity=0)
        hands, tenure, players = prepare_postings(args.hands)
        # pgbench runs between the two halves of the postings, so that the load other
        # processes put on the machine weighs on both figures alike.
        half = len(hands) // 2
        rate_1, seconds_1 = post_hands(hands[:half], tenure, 1)
        tps = bench_pgbench(args.pgbench_seconds)
        rate_2, seconds_2 = post_hands(hands[half:], tenure, half + 1)
        rate = len(hands) / (seconds_1 + seconds_2)
        print(f"ledger postings : {len(hands)} hand settlements one by one in {seconds_1 + seconds_2:.2f} s "
              f"= {rate:.0f} postings/s (first half {rate_1:.0f}/s, second half {rate_2:.0f}/s)")
        print(f"pgbench -c 1 -T {args.pgbench_seconds}: {tps:.0f} TPS (run between the two halves)")
        print(f"ratio           : {rate / tps:.2f} of pgbench (goal: at least 0.50)")
        reads = bench_balance_read(args.entries, players)
        print(f"balance read    : account with {reads['entries']:,} entries (loaded in {reads['load_s']:.1f} s): "
              f"median {reads['read_median_ms']:.3f} ms, 99th percentile {reads['read_p99_ms']:.3f} ms over 1000 reads "
              f"(goal: under 5 ms)")
        print(f"sum of entries  : {reads['sum_median_ms']:.0f} ms median (what a ledger without a balance "
              f"column reads; agrees with the balance: {reads['sum_agrees']})")
        print(f"statement page 1: {reads['statement_page_ms']:.1f} ms median (50 lines with running balance)")
        connection.close()
    finally:
        run("dropdb", *PG, "--if-exists", "--force", name)


if __name__ == "__main__":
    main()
