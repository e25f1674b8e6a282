"""Hand records in and out: the import, the dry-run settlement, a hand as a record, and
the audit replay: a table's hands exported as JSON Lines settle, with ``manage.py
settle`` in another process, to exactly the ledger's postings."""

import json
import random
import subprocess
import sys
from collections import defaultdict
from datetime import timedelta
from decimal import Decimal

from django.utils import timezone

from cage.services.slips import cashier_buy_in
from game.simulate import NAMES, random_record
from ledger.models import Account, Entry, Transaction
from ledger.selectors import player_balance
from tables.models import Hand
from tests.api.conftest import error_of
from tests.conftest import ROOT
from tests.factories import PlayerFactory
from tests.hands import event, record

P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


def played(api, mesa, lines, seats=("luis", "marta")):
    """A hand played through the API; its id."""
    hand_id = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": list(seats)}).json()["hand"]["id"]
    for line in lines:
        response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": event(line)})
        assert response.status_code == 201, response.json()
    return hand_id


def test_a_record_is_imported_settled_and_posted(api, mesa):
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1", number=1)
    response = api["supervisor"].post("/api/hand-records/", body)
    assert response.status_code == 201, response.json()
    hand = response.json()
    assert hand["status"] == "settled" and hand["imported"] and hand["number"] == 1
    assert hand["settlement"]["players"] == {"luis": "10.00", "marta": "-20.00"}
    assert player_balance(player=mesa.players["marta"]) == Decimal("480.00")


def test_an_illegal_record_names_the_event_and_the_rule_and_writes_nothing(api, mesa):
    transactions = Transaction.objects.count()
    bad = record(*P01[:6], "marta bet 500", *P01[7:], seats=["luis", "marta"], table="Mesa 1")
    response = api["supervisor"].post("/api/hand-records/", bad)
    assert response.status_code == 400
    error = error_of(response)
    assert (error["field"], error["event"], error["rule"]) == ("events", 7, "max_bet")
    elsewhere = api["supervisor"].post("/api/hand-records/", record(*P01, seats=["luis", "marta"], table="Mesa 7"))
    assert elsewhere.status_code == 400 and error_of(elsewhere)["rule"] == "record"
    wrong_bank = api["supervisor"].post("/api/hand-records/",
                                        record(*P01, seats=["luis", "marta"], bank="pepe", table="Mesa 1"))
    assert wrong_bank.status_code == 400 and "ana" in error_of(wrong_bank)["message"]
    not_an_object = api["supervisor"].post("/api/hand-records/", ["a", "list"])
    assert not_an_object.status_code == 400 and error_of(not_an_object)["rule"] == "record"
    assert Transaction.objects.count() == transactions and not Hand.objects.exists()


def test_importing_is_for_pit_supervisors_and_creating_tables_for_admins(api, mesa):
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1")
    assert api["dealer"].post("/api/hand-records/", body).status_code == 403
    assert api["auditor"].post("/api/hand-records/", body).status_code == 403
    response = api["supervisor"].post("/api/hand-records/?create_tables=true", body)
    assert response.status_code == 403 and error_of(response)["field"] == "create_tables"


def test_the_dry_run_settles_as_manage_py_settle_and_writes_nothing(api, mesa):
    transactions = Transaction.objects.count()
    body = record(*P01, seats=["luis", "marta"], table="Mesa 1", number=4)
    response = api["auditor"].post("/api/settle/", body)
    assert response.status_code == 200
    done = subprocess.run([sys.executable, "manage.py", "settle", "-"], cwd=ROOT, input=json.dumps(body),
                          capture_output=True, text=True, timeout=60)
    printed = json.loads(done.stdout)
    printed.pop("file")
    assert response.json() == printed
    assert response.json()["bank"] == {"player": "ana", "points": "6", "net": "10.00"}
    refused = api["auditor"].post("/api/settle/", record(*P01[:-1], seats=["luis", "marta"]))
    assert refused.status_code == 400
    assert (error_of(refused)["event"], error_of(refused)["rule"]) == (0, "unfinished")
    bad_header = api["auditor"].post("/api/settle/", {**body, "min_bet": "5.001"})
    assert bad_header.status_code == 400
    assert (error_of(bad_header)["field"], error_of(bad_header)["rule"]) == ("min_bet", "min_bet")
    assert Transaction.objects.count() == transactions and not Hand.objects.exists()


def test_a_hand_as_a_record_settles_to_its_settlement(api, mesa):
    hand_id = played(api, mesa, P01)
    out = api["auditor"].get(f"/api/hands/{hand_id}/record/")
    assert out.status_code == 200
    body = out.json()
    assert (body["table"], body["number"], body["bank"]) == ("Mesa 1", 1, "ana")
    settled = api["auditor"].post("/api/settle/", body).json()
    assert {k: settled[k] for k in ("players", "bank", "commission", "next_bank")} == {
        k: Hand.objects.get(pk=hand_id).settlement[k] for k in ("players", "bank", "commission", "next_bank")}


def test_a_face_down_card_still_unnamed_has_no_record_yet(api, mesa):
    hand_id = played(api, mesa, ["luis deal ?", "bank deal 2E"], seats=("luis",))
    response = api["auditor"].get(f"/api/hands/{hand_id}/record/")
    assert response.status_code == 409 and error_of(response)["rule"] == "identify"


def _ledger_nets(hands):
    """``({player: Decimal}, bank Decimal, house Decimal)`` of the hands' ledger postings."""
    players, bank, house = defaultdict(Decimal), Decimal("0"), Decimal("0")
    for entry in Entry.objects.filter(transaction__in=[h.transaction_id for h in hands]).select_related(
            "account__player"):
        if entry.account.kind == Account.Kind.PLAYER:
            players[entry.account.player.code] += entry.signed
        elif entry.account.kind == Account.Kind.TENURE:
            bank += entry.signed
        else:
            house += entry.signed
    return {code: net for code, net in players.items() if net}, bank, house


def test_the_audit_replay_settles_the_export_to_the_ledgers_totals(api, mesa, tmp_path):
    for code in NAMES:
        cashier_buy_in(player=PlayerFactory(code=code), amount=Decimal("5000.00"), posted_by=mesa.cashier)
    rng = random.Random(20240531)
    old_id = played(api, mesa, P01)  # before the period
    Hand.objects.filter(pk=old_id).update(opened_at=timezone.now() - timedelta(days=3))
    voided_id = played(api, mesa, P01)
    assert api["supervisor"].post(f"/api/hands/{voided_id}/void/", {"reason": "test"}).status_code == 200
    for _ in range(14):
        holder = api["auditor"].get(f"/api/tables/{mesa.table.pk}/").json()["bank_holder"]
        seats = rng.sample([n for n in NAMES if n != holder], rng.randint(1, 6))
        hand = random_record(rng, rules=mesa.table.rules, seats=seats, bank=holder, min_bet=500, max_bet=10000)
        opened = api["dealer"].post(f"/api/tables/{mesa.table.pk}/hands/", {"seats": seats})
        assert opened.status_code == 201, opened.json()
        hand_id = opened.json()["hand"]["id"]
        for ev in hand["events"]:
            response = api["dealer"].post(f"/api/hands/{hand_id}/events/", {"event": ev})
            assert response.status_code == 201, (ev, response.json())
            if response.json()["hand"]["status"] == "settled":
                break  # the console settles when the bank need not play: the record may go on
        assert response.json()["hand"]["status"] == "settled"
    imported = record(*P01, seats=["luis", "marta"],
                      bank=api["auditor"].get(f"/api/tables/{mesa.table.pk}/").json()["bank_holder"], table="Mesa 1")
    if imported["bank"] == "ana":
        assert api["supervisor"].post("/api/hand-records/", imported).status_code == 201

    since = (timezone.localdate() - timedelta(days=1)).isoformat()
    export = api["auditor"].client.get(f"/api/tables/{mesa.table.pk}/hands.jsonl", {"from": since,
                                                                                      "to": timezone.localdate()})
    assert export.status_code == 200 and export["Content-Type"].startswith("application/jsonl")
    text = b"".join(export.streaming_content).decode()
    lines = [json.loads(line) for line in text.splitlines()]
    expected = list(Hand.objects.filter(table=mesa.table, status="settled", opened_at__gte=timezone.now()
                                        - timedelta(days=2)).order_by("number"))
    assert [r["number"] for r in lines] == [h.number for h in expected] and len(lines) >= 14
    assert old_id not in {h.pk for h in expected} and voided_id not in {h.pk for h in expected}
    path = tmp_path / "mesa-1.jsonl"
    path.write_text(text)

    done = subprocess.run([sys.executable, "manage.py", "settle", str(path)], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    replays = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(replays) == len(expected)
    players, bank, commission = defaultdict(Decimal), Decimal("0"), Decimal("0")
    for replay, hand in zip(replays, expected, strict=True):
        assert replay["number"] == hand.number
        one_players, one_bank, one_house = _ledger_nets([hand])
        assert {p: Decimal(n) for p, n in replay["players"].items() if Decimal(n)} == one_players
        assert Decimal(replay["bank"]["net"]) == one_bank and Decimal(replay["commission"]) == one_house
        for code, net in replay["players"].items():
            players[code] += Decimal(net)
        bank += Decimal(replay["bank"]["net"])
        commission += Decimal(replay["commission"])
    ledger_players, ledger_bank, ledger_house = _ledger_nets(expected)
    assert {code: net for code, net in players.items() if net} == ledger_players
    assert (bank, commission) == (ledger_bank, ledger_house)
    assert sum(players.values()) + bank + commission == 0


def test_the_export_refuses_a_bad_period_and_a_missing_table(api, mesa):
    bad = api["auditor"].client.get(f"/api/tables/{mesa.table.pk}/hands.jsonl", {"from": "last week"})
    assert bad.status_code == 400 and json.loads(bad.content)["error"]["field"] == "from"
    assert api["auditor"].client.get("/api/tables/999999/hands.jsonl").status_code == 404
    assert api["dealer"].client.get(f"/api/tables/{mesa.table.pk}/hands.jsonl").status_code == 403
    empty = api["supervisor"].client.get(f"/api/tables/{mesa.table.pk}/hands.jsonl")
    assert empty.status_code == 200 and b"".join(empty.streaming_content) == b""
