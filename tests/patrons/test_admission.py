"""Admission (``patrons.admission``): the exclusion register loaded from a regulator's
file and matched by document or by name and date of birth; identity and age before play;
refused at registration, at every buy-in (the cage's, a table's, a bank deposit) and at a
patron's first bet of a gaming day, with the refusal recorded and nothing else written."""

import datetime
import hashlib
from decimal import Decimal

import pytest
from django.core.management import call_command
from django.db import DatabaseError, transaction
from django.utils import timezone

from boxes.models import TableBuyIn
from boxes.services import table_buy_in
from cage.models import CashierSlip
from cage.services.slips import cashier_buy_in
from ledger.models import Transaction
from patrons.admission import (
    admission_check,
    document_key,
    exclusion_load,
    in_force,
    match,
    name_key,
    self_exclusion_add,
)
from patrons.errors import AdmissionRefused, ExclusionLoadError
from patrons.models import AdmissionRefusal, DayAdmission, ExclusionEntry, ExclusionLoad, Player
from patrons.services import player_record_identity, player_register
from tables.models import HandEvent
from tests.factories import PlayerFactory, UserFactory, open_drawer

pytestmark = pytest.mark.django_db

RGIAJ = ("documento;nombre;apellidos;fecha_nacimiento;fecha_alta\n"
         "12.345.678-z;Pedro;Gómez Ruiz;1970-03-02;2020-01-01\n"
         ";María José;Núñez-Peña;14/07/1985;\n").encode()


@pytest.fixture(autouse=True)
def english():
    from django.utils import translation

    with translation.override("en"):
        yield


@pytest.fixture
def compliance(db):
    return UserFactory(username="cumplimiento", roles=["compliance_officer"])


@pytest.fixture
def cashier(db):
    cashier = UserFactory(username="caja", roles=["cashier"])
    open_drawer(cashier)
    return cashier


@pytest.fixture
def register(compliance):
    return exclusion_load(content=RGIAJ, file_name="rgiaj.csv", source="rgiaj", loaded_by=compliance)


def _pedro(**extra):
    return PlayerFactory(code="pedro", name="Pedro Gómez Ruiz", document_number="12345678Z",
                         date_of_birth=datetime.date(1970, 3, 2), **extra)


# ---------------------------------------------------------------------------------------
# Matching


def test_keys_drop_case_signs_and_accents():
    assert document_key(" 12.345.678-z ") == "12345678Z"
    assert name_key("  María José NÚÑEZ-Peña ") == "maria jose nunez pena"


def test_a_file_loads_as_a_versioned_record_with_its_entries(register, compliance):
    assert (register.source, register.file_name, register.rows) == ("rgiaj", "rgiaj.csv", 2)
    assert register.sha256 == hashlib.sha256(RGIAJ).hexdigest() and register.loaded_by == compliance
    pedro, maria = register.entries.order_by("line")
    assert (pedro.document_key, pedro.name_key, pedro.valid_from) == (
        "12345678Z", "pedro gomez ruiz", datetime.date(2020, 1, 1))
    assert (maria.document_key, maria.name_key, maria.date_of_birth) == (
        "", "maria jose nunez pena", datetime.date(1985, 7, 14))
    assert maria.valid_from == timezone.localdate()  # no "from" given: from the load's day


def test_matched_by_document(register):
    found = match(document_number="12345678-Z")
    assert found is not None and found.name_key == "pedro gomez ruiz"


def test_matched_by_name_and_date_of_birth(register):
    assert match(name="maria jose nuñez peña", date_of_birth=datetime.date(1985, 7, 14)) is not None
    assert match(name="Maria Jose Nunez Pena", date_of_birth=datetime.date(1985, 7, 15)) is None


def test_no_match(register):
    assert match(document_number="99999999R", name="Luis Pérez", date_of_birth=datetime.date(1980, 1, 1)) is None
    assert match(name="Pedro Gómez Ruiz") is None  # a name without a date of birth matches nothing


def test_an_expired_entry_no_longer_matches(compliance):
    self_exclusion_add(entered_by=compliance, document_number="X1234567L", valid_from=datetime.date(2020, 1, 1),
                       valid_until=datetime.date(2021, 1, 1))
    assert match(document_number="X1234567L") is None
    assert match(document_number="X1234567L", day=datetime.date(2020, 6, 1)) is not None
    assert match(document_number="X1234567L", day=datetime.date(2019, 12, 31)) is None


def test_an_exclusion_from_today_binds_before_the_gaming_day_turns(compliance, cashier):
    """Between midnight and AML_GAMING_DAY_START the gaming day is still yesterday's; a
    patron who excluded himself today (valid from today's date, the default) is refused
    at once, not once the next gaming day begins (the API's admission tests failed at
    00:36 for it)."""
    zone = timezone.get_default_timezone()
    half_past_midnight = timezone.make_aware(datetime.datetime(2026, 11, 29, 0, 30), zone)
    player = PlayerFactory(document_number="55555555K")
    self_exclusion_add(entered_by=compliance, document_number="55555555K", valid_from=datetime.date(2026, 11, 29))
    with pytest.raises(AdmissionRefused, match="exclu"):
        admission_check(player=player, where="cage_buy_in", by=cashier, at=half_past_midnight)
    # The day before it is valid from, it does not bind.
    admission_check(player=player, where="cage_buy_in", by=cashier, at=half_past_midnight - datetime.timedelta(days=1))
    assert match(document_number="55555555K", day=datetime.date(2026, 11, 28)) is None  # gaming day 28 alone
    assert match(document_number="55555555K", day=datetime.date(2026, 11, 28),
                 started_by=datetime.date(2026, 11, 29)) is not None


def test_a_new_load_supersedes_the_last_and_keeps_it(register, compliance):
    second = exclusion_load(content=b"documento\nY7654321G\n", file_name="rgiaj-2.csv", source="rgiaj",
                            loaded_by=compliance)
    assert match(document_number="12345678Z") is None  # no longer in the register in force
    assert match(document_number="Y7654321G") is not None
    assert ExclusionLoad.objects.count() == 2 and register.entries.count() == 2  # the first kept whole
    assert set(in_force(timezone.localdate()).values_list("load_id", flat=True)) == {second.pk}


def test_another_source_and_self_exclusions_stay_in_force(register, compliance):
    exclusion_load(content=b"document_number,name,date_of_birth\nFR123,Jean Dupont,1960-01-01\n",
                   file_name="interdits.csv", source="interdits", loaded_by=compliance)
    self_exclusion_add(entered_by=compliance, name="Luis Pérez", date_of_birth=datetime.date(1980, 1, 1))
    assert match(document_number="12345678Z") is not None
    assert match(document_number="fr-123") is not None
    assert match(name="luis perez", date_of_birth=datetime.date(1980, 1, 1)).source == "self"


def test_the_same_file_twice_is_refused(register, compliance):
    with pytest.raises(ExclusionLoadError, match="already the register in force"):
        exclusion_load(content=RGIAJ, file_name="again.csv", source="rgiaj", loaded_by=compliance)
    assert ExclusionLoad.objects.count() == 1


@pytest.mark.parametrize("content, words", [
    (b"documento;fecha_nacimiento\n123;31/02/1970\n", "line 2: 31/02/1970 is not a date"),
    (b"nombre;fecha_nacimiento\nAna;\n", "line 2: neither a document nor a name"),
    (b"color;size\nred;big\n", "names no document column"),
    (b"documento\n\n", "has no entry"),
])
def test_a_bad_file_is_refused_whole(compliance, content, words):
    with pytest.raises(ExclusionLoadError, match=words):
        exclusion_load(content=content, file_name="bad.csv", source="rgiaj", loaded_by=compliance)
    assert not ExclusionLoad.objects.exists() and not ExclusionEntry.objects.exists()


def test_only_compliance_or_an_admin_changes_the_register(cashier):
    with pytest.raises(PermissionError):
        exclusion_load(content=RGIAJ, file_name="rgiaj.csv", source="rgiaj", loaded_by=cashier)
    with pytest.raises(PermissionError):
        self_exclusion_add(entered_by=cashier, document_number="123")


def test_the_register_is_append_only(register):
    with pytest.raises(DatabaseError), transaction.atomic():
        ExclusionEntry.objects.filter(load=register).delete()
    with pytest.raises(DatabaseError), transaction.atomic():
        ExclusionLoad.objects.filter(pk=register.pk).update(rows=1)


def test_the_command_loads_a_file(tmp_path, compliance):
    path = tmp_path / "rgiaj.csv"
    path.write_bytes(RGIAJ)
    call_command("load_exclusions", str(path), "--source", "rgiaj", "--user", "cumplimiento")
    load = ExclusionLoad.objects.get()
    assert (load.file_name, load.rows, load.loaded_by) == ("rgiaj.csv", 2, compliance)


# ---------------------------------------------------------------------------------------
# Refused, and recorded


def test_a_buy_in_of_an_excluded_patron_is_refused_and_recorded(register, cashier):
    pedro = _pedro()
    postings = Transaction.objects.count()  # the drawer's float
    with pytest.raises(AdmissionRefused, match="pedro is on the exclusion register") as refused:
        cashier_buy_in(player=pedro, amount=Decimal("100.00"), posted_by=cashier)
    assert refused.value.field == "player" and refused.value.code == "admission_excluded"
    assert not CashierSlip.objects.exists() and Transaction.objects.count() == postings
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.player, refusal.where, refusal.reason, refusal.attempted_by) == (
        pedro, "cage_buy_in", "excluded", cashier)
    assert refusal.entry.load == register and refusal.entry.line == 2
    with pytest.raises(DatabaseError), transaction.atomic():
        AdmissionRefusal.objects.filter(pk=refusal.pk).update(place="x")


def test_matched_by_name_and_birth_at_a_buy_in(register, cashier):
    maria = PlayerFactory(code="maria", name="MARIA JOSE NUNEZ PENA", date_of_birth=datetime.date(1985, 7, 14))
    with pytest.raises(AdmissionRefused, match="matched by name and date of birth"):
        cashier_buy_in(player=maria, amount=Decimal("10.00"), posted_by=cashier)


def test_a_patron_not_on_the_register_buys_in(register, cashier):
    luis = PlayerFactory(code="luis")
    assert cashier_buy_in(player=luis, amount=Decimal("10.00"), posted_by=cashier).amount == Decimal("10.00")
    assert not AdmissionRefusal.objects.exists()


def test_a_cash_out_is_never_refused_at_admission(register, cashier):
    pedro = PlayerFactory(code="pedro", document_number="12345678Z")
    Player.objects.filter(pk=pedro.pk).update(document_number="00000000T")  # bought in before he matched
    cashier_buy_in(player=pedro, amount=Decimal("10.00"), posted_by=cashier)
    Player.objects.filter(pk=pedro.pk).update(document_number="12345678Z")
    from cage.services.slips import cashier_cash_out

    assert cashier_cash_out(player=pedro, amount=Decimal("10.00"), posted_by=cashier).kind == "cash_out"


@pytest.mark.parametrize("missing", [
    {"document_type": "", "document_number": ""}, {"nationality": ""}, {"date_of_birth": None}])
def test_no_identity_is_refused_at_a_buy_in(cashier, missing):
    player = PlayerFactory(code="anon", **missing)
    with pytest.raises(AdmissionRefused, match="anon's identity is not on file"):
        cashier_buy_in(player=player, amount=Decimal("10.00"), posted_by=cashier)
    refusal = AdmissionRefusal.objects.get()
    assert refusal.reason == "no_identity" and refusal.missing and refusal.entry is None
    assert not CashierSlip.objects.exists()


def test_the_setting_lets_a_patron_without_identity_play(cashier, settings):
    settings.ADMISSION_WITHOUT_IDENTITY = True
    anon = PlayerFactory(code="anon", unidentified=True)
    assert cashier_buy_in(player=anon, amount=Decimal("10.00"), posted_by=cashier).kind == "buy_in"
    settings.ADMISSION_WITHOUT_IDENTITY = False
    with pytest.raises(AdmissionRefused):
        cashier_buy_in(player=anon, amount=Decimal("10.00"), posted_by=cashier)


def test_the_setting_never_lets_an_excluded_patron_or_a_minor_play(register, cashier, settings):
    settings.ADMISSION_WITHOUT_IDENTITY = True
    with pytest.raises(AdmissionRefused, match="exclusion register"):
        cashier_buy_in(player=_pedro(nationality=""), amount=Decimal("10.00"), posted_by=cashier)
    young = PlayerFactory(code="young")
    Player.objects.filter(pk=young.pk).update(date_of_birth=timezone.localdate() - datetime.timedelta(days=365 * 17))
    with pytest.raises(AdmissionRefused, match="under 18"):
        cashier_buy_in(player=young, amount=Decimal("10.00"), posted_by=cashier)
    assert list(AdmissionRefusal.objects.order_by("id").values_list("reason", flat=True)) == ["excluded", "minor"]


def test_a_registration_that_matches_is_refused_and_recorded(register, cashier):
    with pytest.raises(AdmissionRefused) as refused:
        player_register(code="pedro", by=cashier, name="Pedro Gómez", document_type="dni",
                        document_number="12345678-Z", nationality="ES", date_of_birth=datetime.date(1970, 3, 2))
    assert refused.value.field == "document_number"
    assert not Player.objects.filter(code="pedro").exists()
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.player, refusal.player_code, refusal.document_number) == (
        "registration", None, "pedro", "12345678Z")


def test_an_identity_recorded_that_matches_is_refused(register, cashier):
    anon = PlayerFactory(code="anon", unidentified=True)
    with pytest.raises(AdmissionRefused):
        player_record_identity(player=anon, name="Maria José Núñez Peña", document_type="dni",
                               document_number="55555555K", nationality="ES",
                               date_of_birth=datetime.date(1985, 7, 14), recorded_by=cashier)
    anon.refresh_from_db()
    assert anon.document_number == "" and not anon.identity_records.exists()
    assert AdmissionRefusal.objects.get().where == "identity"


def test_admission_check_writes_nothing_when_admitted(cashier):
    admission_check(player=PlayerFactory(code="luis"), where="cage_buy_in", by=cashier)
    assert not AdmissionRefusal.objects.exists()


# ---------------------------------------------------------------------------------------
# At the table


def test_a_table_buy_in_of_an_excluded_patron_is_refused(mesa, compliance):
    self_exclusion_add(entered_by=compliance, document_number=mesa.players["luis"].document_number,
                       note="signed request")
    shift = mesa.table.shifts.get(closed_at__isnull=True)
    with pytest.raises(AdmissionRefused, match="self-exclusion"):
        table_buy_in(shift=shift, player=mesa.players["luis"], amount=Decimal("50.00"), recorded_by=mesa.dealer)
    assert not TableBuyIn.objects.exists()
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.place, refusal.attempted_by) == ("table_buy_in", "Mesa 1", mesa.dealer)


def test_the_first_bet_of_the_day_admits_then_later_bets_pass(mesa, compliance):
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 6E", "luis bet 10")
    admitted = DayAdmission.objects.get(player=mesa.players["luis"])
    assert (admitted.place, admitted.admitted_by) == ("Mesa 1", mesa.dealer)
    # An entry added later that day: luis was admitted already, his next bets pass.
    self_exclusion_add(entered_by=compliance, document_number=mesa.players["luis"].document_number)
    mesa.play(hand, "luis card 2O", "luis bet 10")
    assert DayAdmission.objects.count() == 1


def test_the_first_bet_of_an_excluded_patron_is_refused(mesa, compliance):
    self_exclusion_add(entered_by=compliance, name=mesa.players["marta"].name,
                       date_of_birth=mesa.players["marta"].date_of_birth)
    hand = mesa.play(mesa.open("luis", "marta"), "luis deal 5O", "marta deal 3C", "bank deal 6E", "luis bet 10",
                     "luis stand")
    events = HandEvent.objects.count()
    with pytest.raises(AdmissionRefused, match="marta is on the exclusion register"):
        mesa.play(hand, "marta bet 10")
    assert HandEvent.objects.count() == events
    assert not DayAdmission.objects.filter(player=mesa.players["marta"]).exists()
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.place, refusal.player) == ("first_bet", "Mesa 1", mesa.players["marta"])


def test_the_admin_refuses_a_player_on_the_register_on_its_form(client, register):
    admin = UserFactory(username="jefe", roles=["admin"])
    admin.is_staff = True
    admin.save()
    client.force_login(admin)
    page = client.post("/admin/patrons/player/add/", {
        "code": "pedro", "name": "Pedro", "document_type": "dni", "document_number": "12345678z",
        "nationality": "ES", "date_of_birth": "1970-03-02", "card_number": ""})
    assert page.status_code == 200 and "Pedro figura en el registro de exclusiones" in page.content.decode()
    assert not Player.objects.filter(code="pedro").exists()
    assert AdmissionRefusal.objects.get().attempted_by == admin


def test_the_console_shows_a_first_bet_refused_and_records_it(client, mesa, compliance):
    from django.conf import settings as django_settings

    from tests.tables.test_console_views import Console, open_hand, refusal_of

    self_exclusion_add(entered_by=compliance, document_number=mesa.players["luis"].document_number)
    client.force_login(mesa.dealer)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "en"
    screen = Console(client, mesa.table)
    screen.load()
    hand = open_hand(screen)
    for line in ("luis deal 5O", "marta deal 3C", "bank deal 2E"):
        screen.enter(line)
    response = screen.send("form-bet", "bet", amount="10")
    assert response.status_code == 200
    assert "luis is on the exclusion register (self-exclusion at this casino" in refusal_of(response)
    assert HandEvent.objects.filter(hand=hand).count() == 3
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.place, refusal.attempted_by) == ("first_bet", "Mesa 1", mesa.dealer)
