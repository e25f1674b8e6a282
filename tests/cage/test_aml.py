"""Anti-money-laundering: per patron per gaming day, the due-diligence threshold, the
structuring alert, the US profile, the register (page, CSV, command) and its reviews,
records kept by PostgreSQL. [EU Directive 2015/849 art. 11(d); Ley 10/2010; RD 304/2014;
CMF L561-13; 31 CFR 1021.311, 1021.410]"""

import datetime
from decimal import Decimal
from io import StringIO
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import DatabaseError, connection, transaction
from django.utils import timezone, translation
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st

from cage.errors import AmlRefused, ReviewError
from cage.models import AmlAlert, AmlMovement, CashierSlip
from cage.services import aml
from cage.services.slips import cashier_buy_in, cashier_cash_out, cashier_slip_void
from casino import periods
from patrons.models import Player
from patrons.services import player_record_identity
from tables.bank.tenures import tenure_close, tenure_open
from tables.models import BankTenure
from tests.factories import PlayerFactory, TableFactory, open_drawer

D = Decimal
MADRID = ZoneInfo("Europe/Madrid")


@pytest.fixture
def drawer(cashier):
    return open_drawer(cashier)


def buy(player, amount, cashier):
    return cashier_buy_in(player=player, amount=D(amount), posted_by=cashier)


def test_the_gaming_day_starts_at_six_in_madrid_across_summer_time(settings):
    assert periods.gaming_day(datetime.datetime(2026, 3, 29, 5, 59, tzinfo=MADRID)) == datetime.date(2026, 3, 28)
    assert periods.gaming_day(datetime.datetime(2026, 3, 29, 6, 0, tzinfo=MADRID)) == datetime.date(2026, 3, 29)
    assert periods.gaming_day(datetime.datetime(2026, 10, 25, 4, 30, tzinfo=datetime.UTC)) == datetime.date(2026, 10, 24)
    start, end = periods.gaming_day_bounds(datetime.date(2026, 3, 29))
    assert end - start == datetime.timedelta(hours=24)  # 06:00 to 06:00, the hour lost at 02:00 before it
    settings.AML_GAMING_DAY_START = 10
    assert periods.gaming_day(datetime.datetime(2026, 5, 2, 9, 0, tzinfo=MADRID)) == datetime.date(2026, 5, 1)


def test_at_the_threshold_an_unidentified_patron_is_refused_until_his_identity_is_recorded(anon, cashier, drawer):
    buy(anon, "1500.00", cashier)
    slip = cashier_cash_out(player=anon, amount=D("499.99"), posted_by=cashier)  # 1,999.99: under
    with pytest.raises(AmlRefused, match=r"anon.*2,000\.00.*threshold of 2,000\.00") as refused:
        buy(anon, "0.01", cashier)
    assert refused.value.field == "player"
    assert CashierSlip.objects.filter(player=anon).count() == 2 and AmlMovement.objects.count() == 2
    player_record_identity(player=anon, name="Ana Nónima", document_type="dni", document_number="1234 5678z",
                           nationality="es", date_of_birth=datetime.date(1980, 5, 1), recorded_by=cashier)
    buy(anon, "0.01", cashier)
    alert = AmlAlert.objects.get()
    assert (alert.kind, alert.total, alert.movements, alert.player) == ("structuring", D("2000.00"), 3, anon)
    assert alert.movement.transaction.slip.amount == D("0.01") and slip.transaction.aml_movements.get().direction == "out"
    moves = AmlMovement.objects.filter(player=anon).order_by("id")
    assert [m.identified for m in moves] == [False, False, True]
    assert [m.recorded_by for m in moves] == [cashier] * 3
    assert moves[0].retain_until == moves[0].gaming_day.replace(year=moves[0].gaming_day.year + 10)


def test_the_refusal_names_the_gaming_day_as_the_reader_writes_a_date(anon, cashier, drawer):
    day = periods.gaming_day(timezone.now())
    buy(anon, "1999.99", cashier)
    with translation.override("es"), pytest.raises(AmlRefused) as refused:
        buy(anon, "0.01", cashier)
    message = " ".join(refused.value.messages)
    assert f"del día de juego {day:%d/%m/%Y} llegarían" in message  # the casino's one date form in Spanish
    assert day.isoformat() not in message


def test_one_movement_at_the_threshold_needs_the_identity_but_is_no_structuring(anon, luis, cashier, drawer):
    with pytest.raises(AmlRefused):
        buy(anon, "2000.00", cashier)
    assert not AmlMovement.objects.exists() and not CashierSlip.objects.exists()
    buy(luis, "5000.00", cashier)
    assert AmlMovement.objects.get().amount == D("5000.00") and not AmlAlert.objects.exists()


def test_bank_capital_counts_and_a_system_posting_is_recorded_with_an_alert(luis, cashier, drawer, settings):
    settings.ADMISSION_WITHOUT_IDENTITY = True  # a casino that seats patrons without identity
    anon = PlayerFactory(code="anon2", unidentified=True)
    buy(anon, "1200.00", cashier)
    table = TableFactory(name="Mesa AML")
    with pytest.raises(AmlRefused):  # 1,200 + 900 of capital put into a bank
        tenure_open(table=table, holder=anon, capital=D("900.00"), began="draw", posted_by=cashier)
    assert not BankTenure.objects.exists()
    # luis, identified, opens a bank; his identity then goes (a correction); the
    # system's distribution at the close cannot be refused: recorded, with an alert.
    buy(luis, "3000.00", cashier)
    tenure = tenure_open(table=table, holder=luis, capital=D("2500.00"), began="draw", posted_by=cashier)
    Player.objects.filter(pk=luis.pk).update(document_type="", document_number="")
    tenure_close(tenure=tenure, posted_by=None)
    kinds = list(AmlMovement.objects.filter(player=luis).order_by("id").values_list("kind", "direction", "amount"))
    assert kinds == [("buy_in", "in", D("3000.00")), ("capital_in", "in", D("2500.00")),
                     ("distribution", "out", D("2500.00"))]
    alert = AmlAlert.objects.get(player=luis)
    assert (alert.kind, alert.total, alert.movement.recorded_by) == ("unidentified", D("8000.00"), None)


def test_the_us_profile_reports_above_ten_thousand_in_or_out_and_logs_above_three(luis, anon, cashier, drawer,
                                                                                   settings):
    settings.AML_PROFILE = "us"
    buy(anon, "6000.00", cashier)
    cashier_cash_out(player=anon, amount=D("5000.00"), posted_by=cashier)  # out apart from in
    buy(anon, "4000.00", cashier)  # cash in 10,000.00: not above
    with pytest.raises(AmlRefused, match="10,000.01"):
        buy(anon, "0.01", cashier)
    buy(luis, "6000.00", cashier)
    buy(luis, "4500.00", cashier)
    alerts = sorted(AmlAlert.objects.filter(player=luis).values_list("kind", "total"))
    assert alerts == [("ctr", D("10500.00")), ("structuring", D("10500.00"))]
    register = aml_register_of_today()
    assert sorted((m.player.code, m.amount) for m in register["log"]) == [
        ("anon", D("4000.00")), ("anon", D("5000.00")), ("anon", D("6000.00")),
        ("luis", D("4500.00")), ("luis", D("6000.00"))]


def aml_register_of_today():
    from cage.selectors import aml_register

    return aml_register(day=periods.gaming_day(timezone.now()))


def test_the_register_as_a_command_and_csv_and_reviews_attributed(anon, cashier, compliance, drawer):
    buy(anon, "1500.00", cashier)
    player_record_identity(player=anon, name="Ana", document_type="passport", document_number="X1", nationality="FR",
                           date_of_birth=datetime.date(1990, 1, 1), recorded_by=cashier)
    buy(anon, "700.00", cashier)
    alert = AmlAlert.objects.get()
    with pytest.raises(PermissionError):
        aml.alert_review(alert=alert, note="ok", reviewed_by=cashier)
    with pytest.raises(ReviewError):
        aml.alert_review(alert=alert, note="  ", reviewed_by=compliance)
    aml.alert_review(alert=alert, note="two visits, same evening", reviewed_by=compliance)
    day = periods.gaming_day(timezone.now()).isoformat()
    out = StringIO()
    call_command("aml_register", "--day", day, stdout=out)
    text = out.getvalue()
    assert f"gaming day {day}" in text and "anon: in 2200.00 out 0.00 total 2200.00 (2 movements" in text
    assert "structuring anon total 2200.00 (2 movements) reviewed by cumplimiento" in text
    out = StringIO()
    call_command("aml_register", "--day", day, "--format", "csv", stdout=out)
    rows = out.getvalue().splitlines()
    assert "anon,2200.00,0.00,2200.00,2,1500.00,yes" in rows
    assert any(row.startswith(f"{alert.pk},structuring,anon,2200.00,2,cumplimiento,") for row in rows)


def test_the_register_page_is_the_compliance_officers_and_the_auditor_reads_it(client, anon, cashier, compliance,
                                                                               drawer):
    from tests.factories import UserFactory

    buy(anon, "100.00", cashier)
    client.force_login(cashier)
    assert client.get("/cage/aml/").status_code == 403
    auditor = UserFactory(username="auditora", roles=["auditor"])
    client.force_login(auditor)
    page = client.get("/cage/aml/")
    assert page.status_code == 200 and b"anon" in page.content
    assert client.post("/cage/aml/alerts/1/review/", {"note": "x"}).status_code == 403
    client.force_login(compliance)
    csv = client.get("/cage/aml/", {"format": "csv"})
    assert csv["Content-Type"].startswith("text/csv") and b"anon;100,00" in csv.content


def test_postgresql_keeps_the_aml_records(anon, luis, cashier, drawer):
    buy(luis, "10.00", cashier)
    movement = AmlMovement.objects.get()
    with connection.cursor() as cursor:
        for statement in ("UPDATE cage_amlmovement SET amount = 1 WHERE id = %s",
                          "DELETE FROM cage_amlmovement WHERE id = %s"):
            with pytest.raises(DatabaseError, match="AML record"), transaction.atomic():
                cursor.execute(statement, [movement.pk])
    assert AmlMovement.objects.get().amount == D("10.00")
    # Once its retention has passed, a record may go (the trigger reads retain_until).
    old = AmlMovement.objects.create(player=luis, kind="cash_out", direction="out", amount=D("1.00"), at=movement.at,
                                     gaming_day=datetime.date(1990, 1, 1), transaction=movement.transaction,
                                     identified=True, retain_until=datetime.date(2000, 1, 1))
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM cage_amlmovement WHERE id = %s", [old.pk])
    assert list(AmlMovement.objects.all()) == [movement]


BASE = datetime.datetime(2026, 3, 28, 6, 0, tzinfo=MADRID)  # the night summer time begins between
#: Minutes from BASE at a gaming day's edges (06:00 each day), a minute either side.
EDGES = [day * 1440 + shift - (60 if day >= 1 else 0) for day in range(-1, 4) for shift in (-1, 0, 1)]
movement = st.tuples(st.sampled_from(["luis", "marta", "pepe"]), st.sampled_from(["buy_in", "cash_out"]),
                     st.integers(min_value=1, max_value=500_000),
                     st.one_of(st.integers(min_value=-1500, max_value=4 * 1440), st.sampled_from(EDGES)))


def oracle_day(at):
    """The gaming day of ``at``, worked out apart: the date D whose 06:00 in Madrid is at or
    before ``at`` and whose next day's 06:00 is after it."""
    for day in (at.astimezone(MADRID).date() + datetime.timedelta(days=n) for n in (-1, 0)):
        start = datetime.datetime.combine(day, datetime.time(6), MADRID)
        end = datetime.datetime.combine(day + datetime.timedelta(days=1), datetime.time(6), MADRID)
        if start <= at < end:
            return day
    raise AssertionError(at)


@examples(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(movements=st.lists(movement, min_size=1, max_size=12))
def test_the_days_totals_per_patron_are_the_sum_of_its_movements(movements, cashier, drawer, monkeypatch):
    players = {code: PlayerFactory(code=code) for code in ("luis", "marta", "pepe")}
    with transaction.atomic():
        for player in players.values():
            monkeypatch.setattr(timezone, "now", lambda: BASE - datetime.timedelta(days=30))
            buy(player, "100000.00", cashier)
        expected = {}
        for code, kind, cents, minutes in movements:  # posted in this order, whatever their times
            at = BASE + datetime.timedelta(minutes=minutes)
            monkeypatch.setattr(timezone, "now", lambda at=at: at)
            amount = D(cents).scaleb(-2)
            service = cashier_buy_in if kind == "buy_in" else cashier_cash_out
            service(player=players[code], amount=amount, posted_by=cashier)
            day = expected.setdefault(oracle_day(at), {})
            row = day.setdefault(code, {"in": D(0), "out": D(0), "movements": 0})
            row["in" if kind == "buy_in" else "out"] += amount
            row["movements"] += 1
        monkeypatch.undo()
        for day, rows in expected.items():
            totals = aml.day_totals(day=day)
            assert {code: (t["in"], t["out"], t["total"], t["movements"]) for code, t in totals.items()} == {
                code: (r["in"], r["out"], r["in"] + r["out"], r["movements"]) for code, r in rows.items()}
        transaction.set_rollback(True)


def test_a_voided_slip_stays_in_the_register_but_no_longer_counts(client, anon, cashier, supervisor, compliance,
                                                                  drawer):
    wrong = buy(anon, "1500.00", cashier)  # typed 1500 for 150
    cashier_slip_void(slip=wrong, reason="typed 1500 for 150", voided_by=supervisor)
    buy(anon, "150.00", cashier)
    buy(anon, "1000.00", cashier)  # 1,150.00 standing: under the threshold, no identity asked
    day = periods.gaming_day(timezone.now())
    assert aml.day_totals(day=day)["anon"]["total"] == D("1150.00")
    assert aml.day_totals(day=day)["anon"]["movements"] == 2
    assert AmlMovement.objects.filter(player=anon).count() == 3  # nothing deleted
    with pytest.raises(AmlRefused, match=r"2,000\.00"):
        buy(anon, "850.00", cashier)  # 2,000.00 standing: the voided 1,500.00 is not what reaches it
    client.force_login(compliance)
    page = client.get("/cage/aml/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert page.count("<del>") == 1 and "anulado: no se cuenta" in page
    csv = client.get("/cage/aml/", {"format": "csv"}, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    voided = [line for line in csv.splitlines() if line.endswith(";sí")]
    assert len(voided) == 1 and ";anon;" in voided[0] and ";1500,00;" in voided[0]


def test_a_refused_attempt_is_kept_in_the_register_and_by_postgresql(client, anon, cashier, compliance, drawer):
    from cage.models import AmlRefusal

    buy(anon, "1500.00", cashier)
    with pytest.raises(AmlRefused):
        buy(anon, "600.00", cashier)
    refusal = AmlRefusal.objects.get()
    assert (refusal.player, refusal.kind, refusal.direction, refusal.amount, refusal.day_total, refusal.threshold,
            refusal.refused_by, refusal.source) == (anon, "buy_in", "in", D("600.00"), D("2100.00"), D("2000.00"),
                                                    cashier, "cashier")
    assert AmlMovement.objects.count() == 1 and CashierSlip.objects.count() == 1  # nothing of it posted
    client.force_login(compliance)
    page = client.get("/cage/aml/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Intentos rechazados (1)" in page and "2100,00" in page.replace("\xa0", "").replace("&nbsp;", "")
    csv = client.get("/cage/aml/", {"format": "csv"}).content.decode()  # Spanish: the default
    assert f"\n{refusal.pk};" in csv and f";600,00;2100,00;2000,00;{cashier.get_username()}" in csv
    with connection.cursor() as cursor, pytest.raises(DatabaseError, match="AML record"), transaction.atomic():
        cursor.execute("UPDATE cage_amlrefusal SET amount = 1 WHERE id = %s", [refusal.pk])


def test_a_refusal_through_the_cashiers_page_is_recorded_once(client, anon, cashier, drawer):
    from cage.models import AmlRefusal

    buy(anon, "1999.00", cashier)
    client.force_login(cashier)
    form = client.get("/cage/buy-in/")["Location"]
    response = client.post(form, {"player": "anon", "amount": "5,00"}, HTTP_ACCEPT_LANGUAGE="es")
    assert response.status_code == 200 and list(response.context["form"].errors) == ["player"]
    assert AmlRefusal.objects.get().amount == D("5.00") and CashierSlip.objects.count() == 1


def test_a_pit_refusal_is_recorded_once_though_two_services_see_it(anon, luis, cashier, drawer):
    """The pit's sale (tables.services.table_bank_sell) calls the ledger's (bank_sell): both
    are decorated, the outer one writes the attempt."""
    from cage.models import AmlRefusal
    from tables import services as pit
    from tests.factories import UserFactory

    supervisor = UserFactory(username="pitboss", roles=["pit_supervisor"])
    table = TableFactory(name="Mesa 9")
    buy(luis, "3000.00", cashier)
    buy(anon, "1900.00", cashier)
    pit.table_bank_draw(table=table, holder=luis, capital=D("500.00"), by=supervisor)
    with pytest.raises(AmlRefused):
        pit.table_bank_sell(table=table, buyer=anon, price=D("200.00"), capital=D("100.00"), by=supervisor)
    refusals = list(AmlRefusal.objects.all())
    assert len(refusals) == 1 and refusals[0].refused_by == supervisor and refusals[0].player in (anon, luis)
