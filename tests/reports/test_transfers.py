"""Chip transfers analysed: value moved one way, in a round, or right after a win, raised
as alerts by the nightly task; honest transfers (once, back and forth, a pair twice, a
round of two) stay quiet. Planted and honest, every time."""

from datetime import datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from django.test import Client
from django.utils import timezone, translation
from hypothesis import given
from hypothesis import strategies as st

from casino.periods import gaming_day
from ledger.chips import chips_transfer
from ledger.models import Transaction
from ledger.posting import reverse
from reports.models import Alert
from reports.tasks import transfer_alerts
from reports.texts import alert_text
from reports.transfers import transfer_patterns
from tests.api.conftest import Api

D = Decimal
T0 = datetime(2026, 11, 20, 22, 0, tzinfo=ZoneInfo("Europe/Madrid"))


def moved(*pairs, amount="100.00", start=0):
    """Transfers ``giver>receiver`` an hour apart, ids from ``start`` + 1."""
    out = []
    for n, pair in enumerate(pairs, start=start + 1):
        giver, receiver = pair.split(">")
        out.append({"id": n, "at": T0 + timedelta(hours=n), "giver": giver, "receiver": receiver,
                    "amount": D(amount)})
    return out


def codes(patterns):
    return sorted((p["pattern"], tuple(p["players"])) for p in patterns)


def test_a_patron_giving_another_chips_again_and_again_is_found():
    patterns = transfer_patterns(moved(*["luis>marta"] * 6, amount="900.00"))
    assert codes(patterns) == [("one_way", ("luis", "marta"))]
    assert patterns[0]["count"] == 6 and patterns[0]["total"] == D("5400.00")
    assert patterns[0]["transactions"] == [1, 2, 3, 4, 5, 6]


@pytest.mark.parametrize("honest", [
    ["luis>marta"],  # once
    ["luis>marta", "luis>marta"],  # twice: under the count
    ["luis>marta", "marta>luis", "luis>marta", "luis>marta"],  # back and forth: friends sharing a stake
    ["luis>marta", "marta>luis"],  # a round of two is not a cycle
    ["ana>luis", "luis>marta", "marta>pepe"],  # a chain that does not come back
])
def test_honest_transfers_stay_quiet(honest):
    assert transfer_patterns(moved(*honest), wins={}) == []


def test_chips_that_go_round_three_or_four_patrons_are_found_once():
    patterns = transfer_patterns(moved("marta>pepe", "luis>marta", "pepe>luis"))
    assert codes(patterns) == [("cycle", ("luis", "marta", "pepe"))]
    assert patterns[0]["count"] == 3 and patterns[0]["transactions"] == [1, 2, 3]
    four = transfer_patterns(moved("a>b", "b>c", "c>d", "d>a"))
    assert codes(four) == [("cycle", ("a", "b", "c", "d"))]
    assert transfer_patterns(moved("a>b", "b>c", "c>d", "d>e", "e>a")) == []  # five: beyond CYCLE_MAX


def test_a_gift_right_after_a_big_win_is_found_and_one_after_losing_it_is_not():
    gift = moved("luis>marta")  # at T0 + 1 h
    won = {"luis": [(T0, D("700.00")), (T0 + timedelta(minutes=30), D("400.00"))]}
    patterns = transfer_patterns(gift, wins=won, after_win=D("1000.00"))
    assert codes(patterns) == [("after_win", ("luis", "marta"))] and patterns[0]["won"] == D("1100.00")
    lost_again = {"luis": [*won["luis"], (T0 + timedelta(minutes=45), D("-300.00"))]}
    assert transfer_patterns(gift, wins=lost_again, after_win=D("1000.00")) == []
    long_ago = {"luis": [(T0 - timedelta(hours=3), D("5000.00"))]}
    assert transfer_patterns(gift, wins=long_ago, after_win=D("1000.00")) == []


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.sampled_from("abcdef")), max_size=30))
def test_every_pattern_names_transfers_that_make_it(pairs):
    transfers = moved(*[f"{a}>{b}" for a, b in pairs if a != b])
    by_id = {t["id"]: t for t in transfers}
    for pattern in transfer_patterns(transfers):
        chosen = [by_id[i] for i in pattern["transactions"]]
        assert pattern["count"] == len(chosen) and pattern["total"] == sum(t["amount"] for t in chosen)
        if pattern["pattern"] == "one_way":
            giver, receiver = pattern["players"]
            assert len(chosen) >= 3 and all((t["giver"], t["receiver"]) == (giver, receiver) for t in chosen)
            assert not any((t["giver"], t["receiver"]) == (receiver, giver) for t in transfers)
        else:
            ring = pattern["players"]
            links = {(ring[i], ring[(i + 1) % len(ring)]) for i in range(len(ring))}
            assert 3 <= len(ring) <= 4 and {(t["giver"], t["receiver"]) for t in chosen} == links


@pytest.mark.django_db
def test_the_nightly_task_raises_a_one_way_run_once_and_the_auditor_reads_it(mesa):
    luis, marta, pepe = (mesa.players[code] for code in ("luis", "marta", "pepe"))
    supervisor = mesa.supervisor
    for _n in range(6):
        chips_transfer(giver=luis, receiver=marta, amount=D("60.00"), reason="le debe dinero", posted_by=supervisor)
    chips_transfer(giver=pepe, receiver=marta, amount=D("20.00"), reason="una copa", posted_by=supervisor)  # honest
    # A transfer reversed (a mistake corrected) does not count.
    mistaken = chips_transfer(giver=pepe, receiver=luis, amount=D("5.00"), reason="error", posted_by=supervisor)
    reverse(transaction=mistaken, reason="entered by mistake", posted_by=supervisor)
    today = gaming_day(timezone.now()).isoformat()
    assert transfer_alerts(today) == 1
    assert transfer_alerts(today) == 0  # the same run found again is the same alert
    alert = Alert.objects.get()
    assert (alert.kind, alert.code, alert.evidence["count"], alert.evidence["total"]) == (
        "transfers", "one_way", 6, "360.00")
    assert len(alert.evidence["transactions"]) == 6 and set(alert.evidence["transactions"]) <= set(
        Transaction.objects.filter(kind="transfer").values_list("id", flat=True))
    with translation.override("es"):
        words = alert_text(alert.kind, alert.code, alert.evidence)
    assert "luis" in words and "marta" in words and "6" in words and "360,00" in words
    client = Client()
    client.force_login(mesa.staff["auditor"])
    page = client.get("/reports/alerts/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "luis" in page and "360,00" in page
    listed = Api(mesa.staff["auditor"]).get("/api/alerts/", kind="transfers").json()
    assert [a["id"] for a in listed["results"]] == [alert.pk]


@pytest.mark.django_db
def test_honest_transfers_raise_nothing_at_night(mesa):
    luis, marta = mesa.players["luis"], mesa.players["marta"]
    chips_transfer(giver=luis, receiver=marta, amount=D("50.00"), reason="a medias", posted_by=mesa.supervisor)
    chips_transfer(giver=marta, receiver=luis, amount=D("20.00"), reason="a medias", posted_by=mesa.supervisor)
    chips_transfer(giver=luis, receiver=marta, amount=D("50.00"), reason="a medias", posted_by=mesa.supervisor)
    assert transfer_alerts(gaming_day(timezone.now()).isoformat()) == 0 and not Alert.objects.exists()
