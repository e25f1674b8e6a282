"""Eight threads posting at once, each on its own connection: every balance is exact,
no deadlock (locks are taken in account-id order), and a hand posted by all of them at
once is posted exactly once."""
import threading
from collections import Counter
from decimal import Decimal

import pytest
from django.db import connection

from cage.services.slips import cashier_buy_in, cashier_cash_out
from ledger.errors import AlreadyPosted, InsufficientChips
from ledger.models import Account, Transaction
from ledger.selectors import account_balance, ledger_faults, player_balance
from tables.bank.tenures import tenure_open
from tables.models import Table
from tables.settlement import ledger_post_settlement
from tests.ledger.conftest import conformance_record, settlement_of

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 8
HANDS_PER_THREAD = 15


def test_eight_threads_posting_at_once_leave_every_balance_exact(players, table, fund, cashier):
    other = Table.objects.create(name="Mesa 2", rules="reglamento", min_bet=Decimal(5), max_bet=Decimal(100))
    fund(players["ana"], "1000.00")
    fund(players["rosa"], "1000.00")
    banks = [tenure_open(table=table, holder=players["ana"], capital=Decimal("1000.00"), began="draw",
                                  posted_by=cashier),
             tenure_open(table=other, holder=players["rosa"], capital=Decimal("1000.00"), began="draw",
                                  posted_by=cashier)]
    # p01, p03 and p04 are banked by ana; at Mesa 2 the same hands are banked by rosa.
    hands = [settlement_of(conformance_record(prefix), bank=bank)
             for prefix in ("p01", "p03", "p04") for bank in ("ana", "rosa")]
    start = threading.Barrier(THREADS)
    errors, duplicates, posted = [], Counter(), Counter()

    def work(n):
        try:
            start.wait()
            try:
                ledger_post_settlement(tenure=banks[0], settlement=hands[0], idempotency_key="everyone",
                                                reference="the same hand from every thread")
                posted["everyone"] += 1
            except AlreadyPosted:
                duplicates["everyone"] += 1
            for i in range(HANDS_PER_THREAD):
                k = (n + i) % len(hands)
                ledger_post_settlement(tenure=banks[k % 2], settlement=hands[k],
                                                idempotency_key=f"t{n}-{i}", reference=f"hand {n}-{i}")
                posted[k] += 1
                if n % 2:  # half the threads also work the cage for the same players
                    cashier_buy_in(player=players["luis"], amount=Decimal("1.00"), posted_by=cashier)
        except Exception as error:  # reported by the main thread
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert (posted["everyone"], duplicates["everyone"]) == (1, THREADS - 1)

    counts = Counter({k: posted[k] for k in range(len(hands))})
    counts[0] += 1  # "everyone"
    expected = Counter()
    for k, settlement in enumerate(hands):
        for code, net in settlement.players.items():
            expected[code] += net * counts[k]
    buy_ins = HANDS_PER_THREAD * (THREADS // 2)
    expected["luis"] += 100 * buy_ins
    for code in ("luis", "marta", "pepe"):
        assert player_balance(player=players[code]) == Decimal(expected[code]) / 100, code
    for index, bank in enumerate(banks):
        net = sum(settlement.bank_net * counts[k] for k, settlement in enumerate(hands) if k % 2 == index)
        assert account_balance(account=bank.account) == Decimal("1000.00") + Decimal(net) / 100
    assert Transaction.objects.filter(kind="hand").count() == THREADS * HANDS_PER_THREAD + 1
    floats = Account.objects.filter(kind="floats").values_list("balance", flat=True).first() or Decimal("0.00")
    assert Account.objects.get(kind="cage").balance == Decimal("-2000.00") - Decimal(buy_ins) - floats
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought


def test_concurrent_cash_outs_never_overdraw_a_player(players, fund, cashier):
    # 100.00 of chips, eight cash-outs of 30.00 at once: exactly three are paid.
    fund(players["luis"], "100.00")
    start = threading.Barrier(THREADS)
    paid, refused, errors = [], [], []

    def cash_out():
        try:
            start.wait()
            paid.append(cashier_cash_out(player=players["luis"], amount=Decimal("30.00"),
                                                  posted_by=cashier).number)
        except InsufficientChips:
            refused.append(1)
        except Exception as error:  # reported by the main thread
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=cash_out) for _n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert (len(paid), len(refused)) == (3, THREADS - 3)
    assert sorted(paid) == [2, 3, 4]  # slip numbers without gaps
    assert player_balance(player=players["luis"]) == Decimal("10.00")
    assert ledger_faults() == []


def test_first_hands_and_first_buy_ins_of_new_players_at_once_do_not_deadlock(players, table, fund, cashier):
    # luis, marta and pepe have no account yet: hands, buy-ins and cash-outs all create
    # or lock them at once (accounts are created before any row lock is taken).
    fund(players["ana"], "1000.00")
    fund(players["rosa"], "1000.00")
    bank = tenure_open(table=table, holder=players["ana"], capital=Decimal("1000.00"), began="draw",
                                posted_by=cashier)
    hands = [settlement_of(conformance_record(prefix)) for prefix in ("p01", "p03", "p04")]
    start = threading.Barrier(THREADS)
    errors = []

    def work(n):
        try:
            start.wait()
            for i in range(6):
                if n % 3 == 0:
                    ledger_post_settlement(tenure=bank, settlement=hands[i % 3],
                                                    idempotency_key=f"new-{n}-{i}", reference=f"hand {n}-{i}")
                elif n % 3 == 1:
                    cashier_buy_in(player=players[("luis", "marta", "pepe")[i % 3]],
                                            amount=Decimal("5.00"), posted_by=cashier)
                else:
                    cashier_cash_out(player=players["rosa"], amount=Decimal("1.00"), posted_by=cashier)
        except Exception as error:  # reported by the main thread
            errors.append(repr(error))
        finally:
            connection.close()

    threads = [threading.Thread(target=work, args=(n,)) for n in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    hand_threads = len(range(0, THREADS, 3))
    buy_in_threads = len(range(1, THREADS, 3))
    for code in ("luis", "marta", "pepe"):
        expected = sum(hand.players.get(code, 0) for hand in hands) * 2 * hand_threads + 500 * 2 * buy_in_threads
        assert player_balance(player=players[code]) == Decimal(expected) / 100, code
    assert ledger_faults(chips=False) == []  # hands posted straight to the ledger: no chips bought
