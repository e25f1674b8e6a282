"""The boxes and the bank's life through the API: the same services as the pages, the
pages' roles, errors naming the field, Idempotency-Keys on the money. [issue 16]"""

from decimal import Decimal

import pytest

from boxes.models import BoxCount, TableBuyIn, TableTip
from ledger.models import Account, Transaction
from ledger.selectors import ledger_faults, player_balance
from tables import services
from tables.models import BankAuction, BankTenure, Table
from tests.api.conftest import Api, error_of
from tests.factories import UserFactory
from tests.hands import event

pytestmark = pytest.mark.django_db


def test_the_bank_auctioned_through_the_api_with_a_tie_drawn_by_lot(api, mesa):
    table = Table.objects.create(name="Mesa 9", rules="reglamento", min_bet=Decimal("5"), max_bet=Decimal("100"))
    base = f"/api/tables/{table.pk}/bank/auction/"
    assert api["dealer"].post(base, {"sessions": 2}).status_code == 403
    assert api["auditor"].post(base, {"sessions": 2}).status_code == 403
    assert api["supervisor"].get(base).status_code == 404
    opened = api["supervisor"].post(base, {"sessions": 2})
    assert opened.status_code == 201, opened.json()
    assert opened.json()["sessions"] == 2 and opened.json()["bids"] == []
    again = api["supervisor"].post(base, {})
    assert again.status_code == 409 and error_of(again)["field"] == "table"
    for player, amount in (("luis", "300"), ("marta", "300.00"), ("pepe", "100")):
        assert api["supervisor"].post(base + "bids/", {"player": player, "amount": amount}).status_code == 201
    # A bid need not be covered by chips: the winner proves it by his deposit at the cage.
    bad = api["supervisor"].post(base + "bids/", {"player": "nadie", "amount": "10"})
    assert bad.status_code == 400 and error_of(bad)["field"] == "player"
    assert len(api["auditor"].get(base).json()["bids"]) == 3
    awarded = api["supervisor"].post(base + "award/")
    assert awarded.status_code == 200, awarded.json()
    data = awarded.json()
    assert data["draw"]["tied"] == ["luis", "marta"] and data["winner"] == data["draw"]["drawn"]
    assert data["amount"] == "300.00" and data["tenure"] == BankTenure.objects.get(table=table).pk
    assert BankAuction.objects.get(table=table).awarded_by == mesa.supervisor
    assert BankTenure.objects.get(table=table).deposit_required


#: luis 7 beats 6 (+10), marta 3 + 4 = 7 beats 6 (+20): the bank pays 30.00.
BANK_LOSES = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
              "marta bet 20", "marta card 4C", "marta stand", "bank card 4E", "bank stand"]


def test_a_withdrawal_a_rebuild_and_the_bank_given_up_through_the_api(api, mesa):
    mesa.table.bank_cover = True  # a limited bank: wiped out by its withdrawal, then rebuilt
    mesa.table.save(update_fields=["bank_cover"])
    base = f"/api/tables/{mesa.table.pk}/bank/"
    first_hand = api["supervisor"].post(base + "withdraw/", {"amount": "10"})
    assert first_hand.status_code == 409 and error_of(first_hand)["field"] == "amount"
    hand = services.hand_open(table=mesa.table, seats=["luis", "marta"], opened_by=mesa.dealer)
    for line in BANK_LOSES:
        hand = services.hand_record_event(hand=hand, event=event(line), entered_by=mesa.dealer,
                                          expected_version=hand.version)
    assert api["dealer"].post(base + "withdraw/", {"amount": "10"}).status_code == 403
    too_much = api["supervisor"].post(base + "withdraw/", {"amount": "70.01"})
    assert too_much.status_code in (400, 409) and error_of(too_much)["field"] == "amount"
    key = "withdraw-once"
    healthy = api["supervisor"].post(base + "rebuild/", {"amount": "30.00"})
    assert healthy.status_code == 409 and error_of(healthy)["field"] == "tenure"
    first = api["supervisor"].post(base + "withdraw/", {"amount": "66.00"}, key=key)
    assert first.status_code == 201, first.json()
    assert (first.json()["kind"], first.json()["amount"], first.json()["bank"]) == ("bank_withdrawal", "66.00",
                                                                                     "4.00")
    replay = api["supervisor"].post(base + "withdraw/", {"amount": "66.00"}, key=key)
    assert replay.status_code == 201 and replay.headers["Idempotent-Replayed"] == "true"
    assert Transaction.objects.filter(kind=Transaction.Kind.BANK_WITHDRAWAL).count() == 1
    rebuilt = api["supervisor"].post(base + "rebuild/", {"amount": "96.00"})
    assert rebuilt.status_code == 201, rebuilt.json()
    assert (rebuilt.json()["number"], rebuilt.json()["amount"], rebuilt.json()["held"],
            rebuilt.json()["ordered_by"]) == (1, "96.00", "4.00", "pit1")
    # Deposited at the cage by its syndicate (ana alone) before the next hand.
    awaiting = api["cashier"].get("/api/cashier/bank-deposits/").json()
    assert [(b["rebuild"], b["amount"], [(m["player"], m["owing"]) for m in b["members"]]) for b in awaiting] == [
        (1, "96.00", [("ana", "96.00")])]
    tenure = BankTenure.objects.get(table=mesa.table, closed_at__isnull=True)
    slip = api["cashier"].post("/api/cashier/bank-deposits/", {"tenure": tenure.pk, "player": "ana", "amount": "96"})
    assert slip.status_code == 201 and slip.json()["rebuild"] == 1, slip.json()
    assert tenure.account.balance == Decimal("100.00") and api["cashier"].get("/api/cashier/bank-deposits/").json() == []
    tenure = BankTenure.objects.get(table=mesa.table, closed_at__isnull=True)
    given = api["supervisor"].post(base + "give-up/")
    assert given.status_code == 200, given.json()
    assert given.json()["tenure"] == tenure.pk
    assert not BankTenure.objects.filter(table=mesa.table, closed_at__isnull=True).exists()
    none = api["supervisor"].post(base + "give-up/")
    assert none.status_code == 409
    assert ledger_faults() == []


def test_buy_ins_and_tips_at_the_table_through_the_api(api, mesa):
    base = f"/api/tables/{mesa.table.pk}/"
    assert api["cashier"].post(base + "buy-ins/", {"player": "luis", "amount": "50"}).status_code == 403
    other = UserFactory(username="dealer2", roles=["dealer"])
    assert Api(other).post(base + "tips/", {"player": "luis", "amount": "5"}).status_code == 403
    bought = api["dealer"].post(base + "buy-ins/", {"player": "luis", "amount": "50.00"}, key="b1")
    assert bought.status_code == 201, bought.json()
    assert api["dealer"].post(base + "buy-ins/", {"player": "luis", "amount": "50.00"}, key="b1").status_code == 201
    assert TableBuyIn.objects.count() == 1 and player_balance(player=mesa.players["luis"]) == Decimal("550.00")
    tip = api["dealer"].post(base + "tips/", {"player": "luis", "amount": "5.50"})
    assert tip.status_code == 201, tip.json()
    assert (tip.json()["kind"], tip.json()["player"], tip.json()["amount"]) == ("chips", "luis", "5.50")
    assert player_balance(player=mesa.players["luis"]) == Decimal("544.50")
    cash = api["supervisor"].post(base + "tips/", {"player": None, "amount": "2"})
    assert cash.status_code == 201 and cash.json()["kind"] == "cash" and cash.json()["transaction"] is None
    short = api["dealer"].post(base + "tips/", {"player": "marta", "amount": "500.01"}, HTTP_ACCEPT_LANGUAGE="es")
    error = error_of(short)
    assert short.status_code == 409 and error["field"] == "amount"
    assert "marta" in error["message"] and "500,00" in error["message"]
    float_amount = api["dealer"].post(base + "tips/", {"player": "luis", "amount": 1.5})
    assert float_amount.status_code == 400 and error_of(float_amount)["field"] == "amount"
    assert TableTip.objects.count() == 2


def test_counts_recounts_explanations_and_the_tronc_through_the_api(api, mesa):
    api["dealer"].post(f"/api/tables/{mesa.table.pk}/buy-ins/", {"player": "pepe", "amount": "200"})
    api["dealer"].post(f"/api/tables/{mesa.table.pk}/tips/", {"player": "luis", "amount": "10"})
    shift = mesa.table.shifts.get()
    services.shift_close(shift=shift, closed_by=mesa.supervisor)
    pit2 = UserFactory(username="pit2", roles=["pit_supervisor"])
    base = f"/api/shifts/{shift.pk}/boxes/"
    body = {"box": "drop", "denominations": {"100.00": 1, "50.00": 1}, "first_counter": "pit1",
            "second_counter": "pit1"}
    twice = api["supervisor"].post(base, body)
    assert twice.status_code == 400 and error_of(twice)["field"] == "second_counter"
    dealer = api["supervisor"].post(base, {**body, "second_counter": "dealer1"})
    assert dealer.status_code == 400 and error_of(dealer)["field"] == "second_counter"
    bad = api["supervisor"].post(base, {**body, "second_counter": "pit2", "denominations": {"3.00": 1}})
    assert bad.status_code == 400 and error_of(bad)["field"] == "denominations"
    assert api["auditor"].post(base, {**body, "second_counter": "pit2"}).status_code == 403
    counted = api["supervisor"].post(base, {**body, "second_counter": "pit2"})
    assert counted.status_code == 201, counted.json()
    count = counted.json()
    assert (count["total"], count["expected"], count["variance"], count["latest"]) == ("150.00", "200.00",
                                                                                       "-50.00", True)
    drop = Account.objects.get(kind=Account.Kind.DROP)
    assert drop.balance == 0 and Account.objects.get(kind=Account.Kind.VARIANCE).balance == Decimal("-50.00")
    no_reason = api["supervisor"].post(f"/api/counts/{count['id']}/recount/", {
        "denominations": {"100.00": 2}, "first_counter": "pit2", "second_counter": "pit1", "reason": ""})
    assert no_reason.status_code == 400 and error_of(no_reason)["field"] == "reason"
    recount = api["supervisor"].post(f"/api/counts/{count['id']}/recount/", {
        "denominations": {"100.00": 2}, "first_counter": "pit2", "second_counter": "pit1",
        "reason": "a 50 note stuck in the slot"})
    assert recount.status_code == 201, recount.json()
    assert (recount.json()["supersedes"], recount.json()["variance"]) == (count["id"], "0.00")
    stale = api["supervisor"].post(f"/api/counts/{count['id']}/recount/", {
        "denominations": {"100.00": 2}, "first_counter": "pit2", "second_counter": "pit1", "reason": "again"})
    assert stale.status_code == 400 and error_of(stale)["field"] == "count"
    tips = api["supervisor"].post(base, {"box": "tips", "denominations": {"5.00": 1}, "first_counter": "pit1",
                                         "second_counter": "pit2"}).json()
    assert (tips["expected"], tips["variance"]) == ("10.00", "-5.00")
    empty = api["supervisor"].post(f"/api/counts/{tips['id']}/explanation/", {"text": "  "})
    assert empty.status_code == 400 and error_of(empty)["field"] == "text"
    note = api["supervisor"].post(f"/api/counts/{tips['id']}/explanation/",
                                  {"text": "a 5 € chip went to the cagnotte box"})
    assert note.status_code == 201 and note.json()["explained_by"] == "pit1"
    read = api["auditor"].get(base).json()
    assert [(c["box"], c["latest"]) for c in read["counts"]] == [("drop", False), ("drop", True), ("tips", True)]
    assert read["tips"] == "10.00" and read["buy_ins"] == "200.00"
    plan = api["auditor"].get("/api/tronc/").json()
    assert plan["total"] == "5.00" and plan["counts"] == [tips["id"]]
    assert api["auditor"].post("/api/tronc/distribute/").status_code == 403
    shared = api["supervisor"].post("/api/tronc/distribute/")
    assert shared.status_code == 201, shared.json()
    data = shared.json()
    assert Decimal(data["staff_total"]) + Decimal(data["casino_total"]) == Decimal("5.00")
    assert sum(Decimal(s["amount"]) for s in data["shares"]) == Decimal(data["staff_total"])
    nothing = api["supervisor"].post("/api/tronc/distribute/")
    assert nothing.status_code == 400 and error_of(nothing)["field"] == "tronc"
    assert BoxCount.objects.count() == 3 and pit2.pk
    assert ledger_faults() == []
