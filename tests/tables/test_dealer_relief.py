"""Dealer relief within a session (issue 34, item 2): the pit relieves the dealer between
hands, the console moves to the relieving dealer at once, each hand keeps the dealer who
dealt it, the shift report and the tronc follow the reliefs, PostgreSQL guards the record."""

from datetime import timedelta

import pytest
from django.conf import settings as django_settings
from django.db import DatabaseError, transaction
from django.urls import reverse
from django.utils import timezone, translation

from boxes.errors import BoxError
from boxes.services import box_count
from boxes.tronc import tronc_plan
from reports.shift import shift_report
from tables import services
from tables.errors import HandNotOpen, NoShift, NotTheDealer
from tables.models import DealerRelief, Hand, Shift
from tables.rotation import rotation_plan
from tests.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db

#: A whole hand: luis wins 10, marta loses 20 (the bank wins 10 before commission).
P01 = ["luis deal 5O", "marta deal 3C", "bank deal 2E", "luis bet 10", "luis card 2B", "luis stand",
       "marta bet 20", "marta card 1O", "marta stand", "bank card 4E", "bank stand"]


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


def english_client(client):
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    return client


@pytest.fixture
def relief(mesa):
    """dealer2 (a dealer) and the table's open shift."""
    mesa.relief_dealer = UserFactory(username="dealer2", roles=["dealer"])
    mesa.shift = mesa.table.shifts.get(closed_at__isnull=True)
    return mesa


def test_a_relief_is_recorded_and_moves_the_shifts_current_dealer(relief):
    made = services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    assert (made.relieved, made.relieving, made.relieved_by) == (relief.dealer, relief.relief_dealer,
                                                                 relief.supervisor)
    shift = Shift.objects.get(pk=relief.shift.pk)
    assert shift.dealer == relief.dealer and shift.current_dealer == relief.relief_dealer and shift.is_open
    assert services.dealer_shift(table=relief.table, user=relief.relief_dealer) == shift
    assert services.dealer_shift(table=relief.table, user=relief.dealer) is None
    # and back again: the last relief's relieving dealer deals
    services.dealer_relieve(shift=shift, dealer=relief.dealer, relieved_by=relief.supervisor)
    assert Shift.objects.get(pk=shift.pk).current_dealer == relief.dealer
    assert [(d, ) for d, _start, _end in shift.dealer_spells()] == [(relief.dealer.pk,), (relief.relief_dealer.pk,),
                                                                    (relief.dealer.pk,)]


def test_refused_the_same_dealer_a_user_without_the_role_and_a_dealer_busy_elsewhere(relief):
    with pytest.raises(NoShift, match="already dealing"):
        services.dealer_relieve(shift=relief.shift, dealer=relief.dealer, relieved_by=relief.supervisor)
    with pytest.raises(NoShift, match="dealer role"):
        services.dealer_relieve(shift=relief.shift, dealer=relief.cashier, relieved_by=relief.supervisor)
    busy = UserFactory(username="dealer3", roles=["dealer"])
    services.shift_open(table=TableFactory(name="Mesa 9"), dealer=busy, opened_by=relief.supervisor)
    with pytest.raises(NoShift, match="Mesa 9"):
        services.dealer_relieve(shift=relief.shift, dealer=busy, relieved_by=relief.supervisor)
    assert not DealerRelief.objects.exists()


def test_refused_while_a_hand_is_open_naming_it_and_for_a_closed_shift(relief):
    hand = relief.open("luis", "marta")
    with pytest.raises(HandNotOpen, match=f"#{hand.number} is open"):
        services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    relief.play(hand, *P01)
    shift = services.shift_close(shift=relief.shift, closed_by=relief.supervisor)
    with pytest.raises(NoShift, match="closed"):
        services.dealer_relieve(shift=shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    assert not DealerRelief.objects.exists()


def test_each_hand_keeps_the_dealer_who_dealt_it(relief):
    first = relief.play(relief.open("luis", "marta"), *P01)
    assert first.dealer == relief.dealer
    services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    with pytest.raises(NotTheDealer):
        services.console_open_hand(table_id=relief.table.pk, seats=["luis"], dealer=relief.dealer, after=1)
    opened = services.console_open_hand(table_id=relief.table.pk, seats=["luis", "marta"],
                                        dealer=relief.relief_dealer, after=1)
    assert opened.hand.dealer_id == relief.relief_dealer.pk
    assert list(Hand.objects.filter(table=relief.table).order_by("number").values_list("dealer__username", flat=True)) \
        == ["dealer1", "dealer2"]


def test_the_console_moves_at_once(client, relief):
    url = reverse("tables:console", args=[relief.table.pk])
    client.force_login(relief.dealer)
    assert client.get(url).status_code == 200
    made = services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    response = english_client(client).get(url)
    assert response.status_code == 403
    text = response.content.decode()
    at = timezone.localtime(made.at).strftime("%H:%M")
    assert f"You were relieved at Mesa 1 by dealer2 at {at}" in text
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "es"
    assert f"Le relevó en Mesa 1 dealer2 a las {at}" in client.get(url).content.decode()
    client.force_login(relief.relief_dealer)
    assert client.get(url).status_code == 200


def test_the_database_guards_the_relief(relief):
    made = services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    for change in (lambda: DealerRelief.objects.filter(pk=made.pk).update(at=timezone.now()),
                   lambda: DealerRelief.objects.filter(pk=made.pk).delete(),
                   lambda: Shift.objects.filter(pk=relief.shift.pk).update(current_dealer=relief.dealer),
                   lambda: DealerRelief.objects.create(shift=relief.shift, relieved=relief.dealer,  # not current
                                                       relieving=relief.supervisor, relieved_by=relief.supervisor)):
        with pytest.raises(DatabaseError), transaction.atomic():
            change()
    hand = relief.play(relief.open("luis", "marta"), *P01)
    with pytest.raises(DatabaseError), transaction.atomic():
        Hand.objects.filter(pk=hand.pk).update(dealer=relief.dealer)


def test_the_shift_report_and_the_tronc_split_across_a_relief(relief):
    """dealer1 deals 40 minutes and one hand, dealer2 20 minutes and one hand."""
    relief.play(relief.open("luis", "marta"), *P01)
    made = services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    services.hand_open(table=relief.table, seats=["luis", "marta"], opened_by=relief.relief_dealer)
    hand = Hand.objects.get(table=relief.table, status="open")
    relief.play(hand, *P01)
    shift = services.shift_close(shift=relief.shift, closed_by=relief.supervisor)
    Shift.objects.filter(pk=shift.pk).update(opened_at=made.at - timedelta(minutes=40),
                                             closed_at=made.at + timedelta(minutes=20))
    shift = Shift.objects.get(pk=shift.pk)

    report = shift_report(shift)
    assert report["shift"]["dealer"] == "dealer1" and report["shift"]["current_dealer"] == "dealer2"
    assert report["summary"]["settled"] == 2
    assert [(row["dealer"], row["minutes"], row["hands"], row["settled"], row["handle"], row["win"])
            for row in report["dealers"]] == [("dealer1", 40, 1, 1, "30.00", "10.00"),
                                              ("dealer2", 20, 1, 1, "30.00", "10.00")]

    second = UserFactory(username="pit2", roles=["pit_supervisor"])
    box_count(shift=shift, box="tips", pieces={"10.00": 3}, first_counter=relief.supervisor,
              second_counter=second, recorded_by=relief.supervisor)
    plan = tronc_plan()
    assert [(user.username, minutes) for user, minutes, _amount in plan["shares"]] == [("dealer1", 40),
                                                                                     ("dealer2", 20)]
    assert sum(amount for _user, _minutes, amount in plan["shares"]) == plan["staff_total"]


def test_the_dealer_relieved_does_not_count_the_sessions_boxes(relief):
    services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    shift = services.shift_close(shift=relief.shift, closed_by=relief.supervisor)
    with pytest.raises(BoxError, match="dealer2 dealt this session"):
        box_count(shift=shift, box="tips", pieces={"10.00": 1}, first_counter=relief.supervisor,
                  second_counter=relief.relief_dealer, recorded_by=relief.supervisor)


def test_the_rotation_plan_says_who_is_due_and_suggests_a_free_dealer(relief, settings):
    settings.DEALER_ROTATION_MINUTES = 20
    shift = Shift.objects.select_related("current_dealer").get(pk=relief.shift.pk)
    now = shift.opened_at + timedelta(minutes=25)
    dealing = rotation_plan([shift], now=now)[relief.table.pk]
    assert (dealing.dealer, dealing.minutes, dealing.due, dealing.suggested) == (relief.dealer, 25, True,
                                                                                relief.relief_dealer)
    assert not rotation_plan([shift], now=shift.opened_at + timedelta(minutes=19))[relief.table.pk].due


def test_the_pit_relieves_through_its_pages(client, relief):
    client = english_client(client)
    client.force_login(relief.supervisor)
    page = client.get(reverse("tables:pit_table", args=[relief.table.pk]))
    assert b"Relieve the dealer" in page.content
    url = reverse("tables:dealer_relieve", args=[relief.shift.pk])
    confirm = client.get(url, {"dealer": relief.relief_dealer.pk})
    assert b"dealer2 takes Mesa 1 from dealer1" in confirm.content and not DealerRelief.objects.exists()
    done = client.post(url, {"dealer": relief.relief_dealer.pk, "confirm": "yes"})
    assert done.status_code == 302
    assert Shift.objects.get(pk=relief.shift.pk).current_dealer == relief.relief_dealer
    assert b"dealer2" in client.get(reverse("tables:pit")).content
    client.force_login(UserFactory(username="audit2", roles=["auditor"]))  # reads, changes nothing
    assert client.post(url, {"dealer": relief.dealer.pk, "confirm": "yes"}).status_code == 403


def test_the_api_relieves(relief):
    from tests.api.conftest import Api
    url = f"/api/shifts/{relief.shift.pk}/relieve/"
    assert Api(relief.dealer).post(url, {"dealer": "dealer2"}).status_code == 403
    response = Api(relief.supervisor).post(url, {"dealer": "dealer2"})
    assert response.status_code == 201, response.content
    assert response.json()["relieved"] == "dealer1" and response.json()["relieving"] == "dealer2"
    refused = Api(relief.supervisor).post(url, {"dealer": "dealer2"})
    assert refused.status_code in (400, 409, 422)
    assert Api(relief.supervisor).get(f"/api/shifts/{relief.shift.pk}/").json()["current_dealer"] == "dealer2"


def test_the_reviews_dealer_figures_follow_the_hands_dealer(relief):
    from reports.detection import bet_rows
    relief.play(relief.open("luis", "marta"), *P01)
    services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    relief.play(relief.open("luis", "marta"), *P01)
    rows = bet_rows(Hand.objects.filter(table=relief.table))
    by_hand = {}
    for row in rows:
        by_hand.setdefault(Hand.objects.get(pk=row["hand"]).number, set()).add(row["dealer"])
    assert by_hand == {1: {"dealer1"}, 2: {"dealer2"}}


def test_the_shift_reports_pdf_and_csv_have_the_dealers_section(relief):
    """The stored report's PDF (and CSV) carry the HTML's per-dealer section: a row per
    dealer, his spells at the table, minutes, hands and figures."""
    from reports.exports import report_csv, report_pdf, sections
    from reports.models import Report
    from reports.services import report_request, report_run

    relief.play(relief.open("luis", "marta"), *P01)
    services.dealer_relieve(shift=relief.shift, dealer=relief.relief_dealer, relieved_by=relief.supervisor)
    services.hand_open(table=relief.table, seats=["luis", "marta"], opened_by=relief.relief_dealer)
    relief.play(Hand.objects.get(table=relief.table, status="open"), *P01)
    shift = services.shift_close(shift=relief.shift, closed_by=relief.supervisor)
    request = report_request(kind="shift", table=relief.table, shift=shift, requested_by=None)
    report = Report.objects.get(pk=report_run(request_id=request.pk).report.pk)
    (dealers,) = [(header, rows) for title, header, rows in sections(report) if title == "Dealers"]
    header, rows = dealers
    assert header[:4] == ("dealer", "at the table", "minutes", "hands")
    assert [(row[0], row[3], row[4], row[5], row[6]) for row in rows] == [
        ("dealer1", "1", "1 / 0 / 0", "30.00", "10.00"), ("dealer2", "1", "1 / 0 / 0", "30.00", "10.00")]
    assert all(" – " in row[1] for row in rows)
    pdf = report_pdf(report)
    text = _pdf_text(pdf)
    assert pdf.startswith(b"%PDF") and "(Dealers)" in text and "(at the table)" in text, text[:2000]
    assert text.count("(dealer2)") >= 1 and "(1 / 0 / 0)" in text
    assert "at the table" in report_csv(report)


def _pdf_text(pdf: bytes) -> str:
    """The text drawing operators of a reportlab PDF's page streams (ASCII85 then Flate
    encoded), decoded: a drawn string shows as ``(words) Tj``."""
    import base64
    import re
    import zlib

    out = []
    for stream in re.findall(rb"stream\r?\n(.*?)endstream", pdf, re.S):
        try:
            data = stream.strip().removesuffix(b"~>")
            out.append(zlib.decompress(base64.a85decode(data)).decode("latin-1"))
        except (ValueError, zlib.error):
            continue
    return "\n".join(out)
