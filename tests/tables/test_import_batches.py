"""The batched import (``hand_import_records``: records in batches, entries in bulk, the
head written once per batch) records exactly what the services record one entry at a
time, as the console enters them: the same entries with the same hashes, the same hands,
the same ledger transactions and balances. [issue 18 "The import crawls"]

Each way runs on an emptied database whose id sequences start again at 1, with the clock
stopped, so that ids and times (both in the hashes) are the same in every run; the runs
commit for real (``transaction=True``), so the deferred ledger triggers check every
posting at COMMIT.
"""

import json
import random
from datetime import UTC, datetime
from decimal import Decimal
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection
from django.utils import translation

from cage.models import AmlAlert, AmlMovement
from cage.services.slips import cashier_buy_in
from game.simulate import NAMES, random_night
from ledger.models import Account, Entry, Transaction
from patrons.models import Player
from tables import importing, services
from tables.bank.tenures import tenure_open
from tables.integrity import chain_faults, number_gaps
from tables.models import BankTenure, Hand, HandEvent, SyndicateShare, Table
from tests.factories import UserFactory, open_drawer

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def seated_without_identity(settings):
    """The night's patrons have no identity on file (the AML rules' ``unidentified``
    alerts are part of what is compared): a casino that seats them
    (``ADMISSION_WITHOUT_IDENTITY``), their chips bought at the cage."""
    settings.ADMISSION_WITHOUT_IDENTITY = True


@pytest.fixture(autouse=True, params=[4, 1000], ids=["sent-every-4", "sent-at-the-end"])
def send_every(request, monkeypatch):
    """Each test twice: a batch's rows written every 4 records (``SEND_EVERY``), and all
    written at the batch's end."""
    monkeypatch.setattr(importing, "SEND_EVERY", request.param)
    return request.param

NOW = datetime(2026, 11, 21, 22, 30, tzinfo=UTC)


def night(count=40, seed=18):
    """``count`` chained random hands at Mesa 1 (reglamento: a 7½ takes the bank, so the
    bank passes several times, each time with the table's takeover capital)."""
    return random_night(random.Random(seed), count, table="Mesa 1", rules="reglamento", min_bet=500,
                        max_bet=10000, bank="ana")


def fresh_casino(bank_cover=False, poor=(), rules="reglamento", limits=(Decimal("5.00"), Decimal("100.00"))):
    """An empty database (ids from 1 again), then the cashier, every player with chips and
    Mesa 1 without a bank (a limited bank with ``bank_cover``) of ``rules`` and ``limits``
    (min, max bet); the players ``poor`` with 1.00 of chips only."""
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    connection.ops.execute_sql_flush(connection.ops.sql_flush(no_style(), tables, reset_sequences=True,
                                                              allow_cascade=True))
    cashier = UserFactory(username="caja1", roles=["cashier"])
    open_drawer(cashier)
    for code in sorted({"ana", *NAMES, *poor}):
        cashier_buy_in(player=Player.objects.create(code=code), amount=Decimal("1.00" if code in poor else "1000.00"),
                       posted_by=cashier)
    Table.objects.create(name="Mesa 1", rules=rules, min_bet=limits[0], max_bet=limits[1],
                         bank_capital=Decimal("1000.00") if bank_cover else Decimal("150.00"), bank_cover=bank_cover)


def one_entry_at_a_time(records):
    """Each record through the services as the console enters a hand: the bank drawn if
    the table has none, the hand opened, then one ``hand_record_event`` per event (one
    transaction each; the last settles and posts the hand)."""
    for record in records:
        table = Table.objects.get(name=record["table"])
        if services.pending_bank_holder(table) is None:
            tenure_open(table=table, holder=Player.objects.get(code=record["bank"]), capital=table.bank_capital,
                        began=BankTenure.Began.DRAW, posted_by=None, source="system:import")
        hand = services.hand_open(table=table, seats=record["seats"], opened_by=None, require_shift=False,
                                  imported=True)
        last = len(record["events"])
        for number, event in enumerate(record["events"], 1):
            hand = services.hand_record_event(hand=hand, event=event, entered_by=None, source="import",
                                              settle=number == last)


def one_record_at_a_time(records):
    for record in records:
        importing.hand_import_record(record=record)


def in_batches(path):
    """The command, 7 records per transaction (the last batch shorter)."""
    def run(records):
        with translation.override("en"):
            call_command("import_hands", "--batch", "7", str(path))
    return run


def in_batches_of(size):
    """``hand_import_records`` of ``size`` records at a time, as the command calls it; a
    refusal ends the import (as the command's)."""
    def run(records):
        for start in range(0, len(records), size):
            importing.hand_import_records(records=records[start:start + size])
    return run


def recorded(way, records, bank_cover=False, poor=(), **table):
    """What ``way`` records for ``records`` in a fresh casino (``table``: Mesa 1's rules and
    limits, as ``fresh_casino``), with the clock stopped."""
    with mock.patch("django.utils.timezone.now", return_value=NOW):
        fresh_casino(bank_cover, poor, **table)
        way(records)
    table = Table.objects.get(name="Mesa 1")
    owners = {account.id: (account.kind, account.player.code if account.player else None,
                           account.tenure.pk if account.kind == Account.Kind.TENURE else None)
              for account in Account.objects.select_related("player", "tenure")}
    return {
        "faults": chain_faults(table) + [f"gap {n}" for n in number_gaps(table)],
        "head": (table.last_hand_number, table.last_event_hash),
        "entries": list(HandEvent.objects.order_by("id").values_list(
            "hand__number", "sequence", "kind", "event", "entered_at", "previous_hash", "hash")),
        "hands": list(Hand.objects.order_by("number").values_list(
            "number", "status", "bank__code", "seats", "tenure_id", "version", "settlement", "next_bank",
            "transaction_id", "splits", "exchanges", "fusilados", "muertos", "cards", "imported")),
        "bets": sorted(Hand.objects.values_list("number", "bets__player__code", "bets__seat", "bets__seat_hand",
                                                "bets__stake", "bets__result", "bets__net")),
        "tenures": list(BankTenure.objects.order_by("id").values_list(
            "id", "holder__code", "began", "ended", "capital", "closed_at", "previous_id")),
        "shares": list(SyndicateShare.objects.order_by("id").values_list("id", "tenure_id", "player__code",
                                                                          "percent")),
        "accounts": sorted(owners.items()),
        "transactions": list(Transaction.objects.order_by("id").values_list(
            "id", "kind", "reference", "idempotency_key", "source", "detail")),
        "legs": sorted((leg[0], owners[leg[1]], leg[2], leg[3]) for leg in Entry.objects.values_list(
            "transaction_id", "account_id", "side", "amount")),
        "balances": sorted((owners[account_id], balance, is_open) for account_id, balance, is_open
                           in Account.objects.values_list("id", "balance", "is_open")),
        "aml_movements": list(AmlMovement.objects.order_by("id").values_list(
            "id", "player__code", "kind", "direction", "amount", "at", "gaming_day", "transaction_id", "identified")),
        "aml_alerts": list(AmlAlert.objects.order_by("id").values_list(
            "kind", "player__code", "gaming_day", "total", "movements", "movement_id", "raised_at")),
    }


@pytest.mark.parametrize(("seed", "bank_cover"), [(18, False), (4, False), (18, True)])
def test_the_batched_import_records_what_the_console_services_record(tmp_path, seed, bank_cover):
    """Seeded random nights (``game.simulate``); with ``bank_cover`` every stake is
    checked against the bank's funds, which the batch holds in memory."""
    records = night(seed=seed)
    path = tmp_path / "noche.jsonl"
    path.write_text("".join(f"{__import__('json').dumps(record)}\n" for record in records))

    batched = recorded(in_batches(path), records, bank_cover)
    assert batched["faults"] == [] and batched["head"][0] == len(records)
    assert len(batched["hands"]) == len(records) and {hand[1] for hand in batched["hands"]} == {"settled"}
    assert sum(1 for tenure in batched["tenures"] if tenure[2] == "natural") >= 3  # the bank passed
    assert sum(1 for t in batched["transactions"] if t[1] == "hand") == len(records)

    by_entry = recorded(one_entry_at_a_time, records, bank_cover)
    by_record = recorded(one_record_at_a_time, records, bank_cover)
    for key in batched:
        assert batched[key] == by_entry[key], key
        assert batched[key] == by_record[key], key


def takeovers(records):
    """The positions of the records whose bank a 7½ of the record before passed."""
    return [k for k in range(1, len(records)) if records[k]["bank"] != records[k - 1]["bank"]]


@pytest.mark.parametrize("seed", [18, 7])
def test_sixty_chained_hands_in_batches_pass_the_bank_in_memory_as_the_services_pass_it(settings, seed):
    """60 chained hands, 25 a batch, each 7½ takeover passed in memory with its batch
    (``SettlementBatch.pass_bank``) and the AML days kept per batch (``AmlBatch``): the
    same tenures, shares, accounts, postings, balances, AML movements and alerts (the
    threshold lowered to 1,200.00, above the 1,000.00 each player buys in, so that takeovers raise them) and hash chain as the
    console's services, one entry at a time (``bank_transfer`` for each takeover)."""
    settings.AML_THRESHOLD = "1200.00"
    records = night(count=60, seed=seed)
    assert len(takeovers(records)) >= 6

    batched = recorded(in_batches_of(25), records)
    assert batched["faults"] == [] and batched["head"][0] == 60
    assert sum(1 for tenure in batched["tenures"] if tenure[2] == "natural") == len(takeovers(records))
    assert {alert[0] for alert in batched["aml_alerts"]} == {"unidentified", "structuring"}
    assert any(movement[2] == "distribution" for movement in batched["aml_movements"])
    assert any(movement[2] == "capital_in" for movement in batched["aml_movements"])

    by_entry = recorded(one_entry_at_a_time, records)
    for key in batched:
        assert batched[key] == by_entry[key], key


def test_a_record_refused_mid_batch_after_a_takeover_leaves_out_only_itself(settings):
    """A record whose bank a 7½ passed (in memory), in a batch where the bank passed
    before, refused at a bet its player cannot cover: the records before it are written
    as the services write them, nothing of it (not its takeover, postings, AML movements)."""
    settings.AML_THRESHOLD = "1200.00"
    records = night(count=60)
    refused_at = next(k for k in takeovers(records)
                      if k % 25 and any(k - k % 25 < j < k for j in takeovers(records)))
    bad = json.loads(json.dumps(records[refused_at]))
    seat = bad["seats"][0]
    bad["seats"][0] = "pobre"  # 1.00 of chips: his first bet is refused
    for event in bad["events"]:
        if event.get("seat") == seat:
            event["seat"] = "pobre"
    records = [*records[:refused_at], bad, *records[refused_at + 1:]]

    caught = []

    def batched_until_refused(records):
        try:
            in_batches_of(25)(records)
        except ValidationError as error:
            caught.append(error)

    batched = recorded(batched_until_refused, records, poor=["pobre"])
    (error,) = caught
    assert error.index == refused_at % 25 and "pobre" in str(error)
    assert len(error.imported) == refused_at % 25
    assert batched["head"][0] == refused_at and batched["faults"] == []
    assert batched["tenures"][-1][1] == records[refused_at - 1]["bank"]  # the refused record's takeover: not written

    by_entry = recorded(one_entry_at_a_time, records[:refused_at], poor=["pobre"])
    for key in batched:
        assert batched[key] == by_entry[key], key
