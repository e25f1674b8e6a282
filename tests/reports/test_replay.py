"""Every hand worked out again (issue 14, points 4 and 5): a settled hand rewritten
consistently behind the triggers' back — its bets, its settlement, its ledger entries and
the balances, its entries at the table left alone (the keyed chain guards those) — passes
the ledger's sums and the shift report's reconciliation, and is found only by replaying
its entries through the engine: by ``ledger_check`` and by the shift report."""

import json
from collections import Counter
from io import StringIO

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import translation

from game.payouts import settle
from ledger.models import Account, Entry, Transaction
from ledger.money import euros
from ledger.selectors import ledger_faults
from reports.shift import shift_report
from reports.texts import exception_text
from tables.models import Hand, HandBet
from tables.replay import (
    _BETS_SQL,
    _ENTRIES_SQL,
    _HAND_COLUMNS,
    _LEGS_SQL,
    _expected_legs,
    _grouped,
    _hand,
    _holders,
    _one_hand,
)
from tables.services import hand_state
from tests.reports.test_exceptions import behind_the_back


def ledger_check(*options):
    out, err = StringIO(), StringIO()
    try:
        call_command("ledger_check", *options, stdout=out, stderr=err)
        return 0, out.getvalue()
    except SystemExit as exit_:
        return exit_.code, err.getvalue()


def rewrite_hand(hand, change_bet):
    """As the database's owner, triggers off: settle the hand anew with one bet changed by
    ``change_bet(Bet) -> Bet`` (the bank's net takes up the difference), and write that
    settlement everywhere a consistent forger would — the hand's bets and settlement, the
    transaction's entries and detail, the accounts' balances — leaving the entries."""
    old = settle(hand_state(hand))
    changed = [change_bet(bet) if i == 0 else bet for i, bet in enumerate(old.bets)]
    difference = changed[0].net - old.bets[0].net
    player = changed[0].player
    new = old._replace(bets=tuple(changed), players={**old.players, player: old.players[player] + difference},
                       bank_net=old.bank_net - difference)
    accounts = {("player", a.player.code): a.pk for a in Account.objects.filter(player__isnull=False)
                .select_related("player")}
    accounts[("tenure", hand.tenure_id)] = Account.objects.get(tenure=hand.tenure_id).pk
    house = Account.objects.filter(kind=Account.Kind.HOUSE).values_list("pk", flat=True).first()
    if house:
        accounts[("house",)] = house
    delta = Counter()
    for (holder, side, amount), n in _expected_legs(old, hand.tenure_id).items():
        delta[accounts[holder]] -= (amount if side == "C" else -amount) * n
    for (holder, side, amount), n in _expected_legs(new, hand.tenure_id).items():
        delta[accounts[holder]] += (amount if side == "C" else -amount) * n
    bet = HandBet.objects.filter(hand=hand).order_by("id").first()
    tx = hand.transaction_id
    statements = [
        ("UPDATE tables_handbet SET stake = %s, result = %s, multiplier = %s, net = %s WHERE id = %s",
         [euros(changed[0].stake), changed[0].result, changed[0].multiplier, euros(changed[0].net), bet.pk]),
        ("UPDATE tables_hand SET settlement = %s::jsonb WHERE id = %s", [json.dumps(new.as_dict()), hand.pk]),
        ("UPDATE ledger_transaction SET detail = %s::jsonb WHERE id = %s", [json.dumps(new.as_dict()), tx]),
        ("DELETE FROM ledger_entry WHERE transaction_id = %s", [tx]),
    ]
    for (holder, side, amount), n in _expected_legs(new, hand.tenure_id).items():
        for _ in range(n):
            statements.append(("INSERT INTO ledger_entry (transaction_id, account_id, side, amount)"
                               " VALUES (%s, %s, %s, %s)", [tx, accounts[holder], side, euros(amount)]))
    for account, cents in delta.items():
        if cents:
            statements.append(("UPDATE ledger_account SET balance = balance + %s WHERE id = %s",
                               [euros(cents), account]))
    for sql, params in statements:
        behind_the_back(sql, params)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def test_a_sound_shift_replays_clean(played):
    shift = played.close()
    report = shift_report(shift)
    assert report["exceptions"] == [] and report["replay"] == {"hands": 4, "faults": 0}
    code, out = ledger_check()
    assert code == 0, out
    assert "every hand replays" in out


def test_a_bust_rewritten_as_a_win_everywhere_is_found_by_replaying_the_hand(played):
    shift = played.close()
    third = Hand.objects.get(table=played.table, number=3)  # ana 3+5 busts: −10.00
    assert HandBet.objects.filter(hand=third, player__code="ana").get().result == "bust"
    rewrite_hand(third, lambda bet: bet._replace(result="win", multiplier=1, net=bet.stake))
    # Balances, transactions and slips add up: a consistent forgery, but for the posting's
    # signature (ledger.signing), which only the key could make again.
    assert [fault for fault in ledger_faults() if "(hand, hand Mesa 1 #3)" not in fault] == []
    assert any(f"transaction #{third.transaction_id} (hand, hand Mesa 1 #3)" in fault for fault in ledger_faults())
    report = shift_report(shift)
    assert report["reconciliation"]["differs"] is False  # the bets and the ledger agree
    replayed = [item for item in report["exceptions"] if item["code"] == "hand_replay"]
    assert {(item["hand"], item["what"]) for item in replayed} == {(3, "results"), (3, "nets"), (3, "posting")}
    assert {item["code"] for item in report["exceptions"]} == {"hand_replay"}
    assert exception_text(replayed[0]) == "hand #3: a replay of its entries disagrees with its results"
    code, err = ledger_check()
    assert code == 1
    assert "hand Mesa 1 #3: a replay of its entries disagrees with its nets" in err
    assert "hand Mesa 1 #3: a replay of its entries disagrees with its posting" in err


def test_a_stake_raised_everywhere_is_found(played):
    shift = played.close()
    third = Hand.objects.get(table=played.table, number=3)  # ana bets 10.00 and busts (under luis's open bank)
    rewrite_hand(third, lambda bet: bet._replace(stake=bet.stake * 5, net=bet.net * 5))
    assert HandBet.objects.filter(hand=third).order_by("id").first().stake == euros(5000)
    assert [fault for fault in ledger_faults() if "(hand, hand Mesa 1 #3)" not in fault] == []  # but its signature
    report = shift_report(shift)
    assert report["reconciliation"]["differs"] is False
    whats = {item["what"] for item in report["exceptions"] if item["code"] == "hand_replay"}
    assert whats == {"stakes", "nets", "posting"}
    code, err = ledger_check()
    assert code == 1 and "hand Mesa 1 #3: a replay of its entries disagrees with its stakes" in err


def test_a_hand_voided_by_sql_without_a_reversal_is_found(played):
    shift = played.close()
    second = Hand.objects.get(table=played.table, number=2)
    behind_the_back("UPDATE tables_hand SET status = 'voided', void_reason = 'x', voided_at = now() WHERE id = %s",
                    [second.pk])
    codes = [(item["code"], item.get("hand")) for item in shift_report(shift)["exceptions"]]
    assert ("void_not_reversed", 2) in codes and ("void_without_entry", 2) in codes
    code, err = ledger_check()
    assert code == 1
    assert "hand Mesa 1 #2 is voided but its posting was never reversed" in err
    assert "hand Mesa 1 #2 is voided but no void was entered at the table" in err


def test_a_hand_posting_no_hand_points_at_is_a_fault(played):
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    behind_the_back("UPDATE tables_hand SET transaction_id = NULL WHERE id = %s", [first.pk])
    tx = Transaction.objects.get(pk=first.transaction_id)
    report = shift_report(shift)
    assert {"code": "posting_without_hand", "transaction": tx.pk, "reference": tx.reference,
            "cause": tx.cause} in report["exceptions"]
    code, err = ledger_check()
    assert code == 1
    assert f"transaction #{tx.pk} (hand Mesa 1 #1) is a hand posting no hand points at" in err
    assert "hand Mesa 1 #1 is settled but has no ledger posting" in err


def test_stored_bets_changed_alone_are_found_too(played):
    """A careless forger: one bet's net changed, nothing else (the reconciliation sees it
    too, and the replay names what)."""
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    behind_the_back("UPDATE tables_handbet SET net = net + 1 WHERE hand_id = %s", [first.pk])
    whats = {item["what"] for item in shift_report(shift)["exceptions"] if item["code"] == "hand_replay"}
    assert whats == {"nets"}
    assert Entry.objects.filter(transaction_id=first.transaction_id).exists()



def test_the_same_bets_read_in_another_order_replay_clean_and_a_change_among_them_is_found(played):
    """The replay compares a hand's bets in the order they are read first and counts them
    only when that differs (the database gives no order within a hand): the same bets read
    in the other order are no fault, and a net changed among them still is."""
    played.close()
    hand = max(Hand.objects.filter(table=played.table), key=lambda each: each.bets.count())
    assert hand.bets.count() >= 2
    row = Hand.objects.filter(pk=hand.pk).values_list(*_HAND_COLUMNS).get()
    with connection.cursor() as cursor:
        entries = _grouped(cursor, _ENTRIES_SQL, [hand.pk])[hand.pk]
        bets = _grouped(cursor, _BETS_SQL, [hand.pk], hashable=True)[hand.pk]
        posted = _grouped(cursor, _LEGS_SQL, [hand.transaction_id])
    holders = _holders({account_id for legs in posted.values() for account_id, _side, _amount in legs})

    def faults(stored):
        return [fault.get("what") for fault in _one_hand(_hand(row), entries, stored, posted, holders)]

    assert faults(bets) == [] and faults(bets[::-1]) == []
    changed = bets[::-1]
    changed[0] = (*changed[0][:7], changed[0][7] + 1)
    assert faults(changed) == ["nets"]


@pytest.mark.parametrize("forged, found", [("settlement", ["next_bank"]), ("detail", ["posting"])])
def test_a_settlement_or_a_posting_detail_changed_alone_is_found_as_itself(played, forged, found):
    """The hand's settlement and its transaction's detail are read as one text where they
    are equal (jsonb's =): changed alone (its next bank), either is found as what it is, the
    other not."""
    shift = played.close()
    first = Hand.objects.get(table=played.table, number=1)
    sql = {"settlement": "UPDATE tables_hand SET settlement = jsonb_set(settlement, '{next_bank}', '\"x\"') "
                         "WHERE id = %s",
           "detail": "UPDATE ledger_transaction SET detail = jsonb_set(detail, '{next_bank}', '\"x\"') "
                     "WHERE id = (SELECT transaction_id FROM tables_hand WHERE id = %s)"}[forged]
    behind_the_back(sql, [first.pk])
    whats = [item["what"] for item in shift_report(shift)["exceptions"] if item["code"] == "hand_replay"]
    assert whats == found
