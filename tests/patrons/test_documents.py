"""A DNI's or NIE's number is kept only with the check letter its digits give (found at the
cage: 12345678A registered, where 12345678's letter is Z): refused naming the field at
registration, at a change of the record and at an identity recorded, in the reader's
language; other documents are kept as typed."""

import datetime

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import ValidationError
from hypothesis import given
from hypothesis import strategies as st

from patrons.documents import CHECK_LETTERS, document_number_error
from patrons.errors import IdentityError
from patrons.models import IdentityRecord, Player, PlayerChange
from patrons.services import player_record_identity, player_register, player_update
from tests.factories import PlayerFactory, UserFactory

IDENTITY = {"name": "Ana Pérez", "nationality": "ES", "date_of_birth": datetime.date(1980, 1, 1)}


@pytest.mark.parametrize(("kind", "number"), [
    ("dni", "12345678Z"), ("dni", "00000000T"), ("dni", "12.345.678-Z"), ("nie", "X1234567L"), ("nie", "Y1234567X"),
    ("nie", "Z1234567R"), ("nie", "X-1234567-L"), ("passport", "PAA000000"), ("other", "1"), ("eu_id", "ABC")])
def test_a_number_with_its_letter_or_of_another_document_holds(kind, number):
    assert document_number_error(kind, number) is None


@pytest.mark.parametrize(("kind", "number"), [
    ("dni", "12345678A"), ("dni", "1234567Z"), ("dni", "123456789Z"), ("dni", "12345678"), ("dni", "1X"),
    ("dni", "X1234567L"), ("nie", "X1234567A"), ("nie", "W1234567L"), ("nie", "12345678Z"), ("dni", "１２３４５６７８Z")])
def test_a_number_without_its_letter_is_named(kind, number):
    error = document_number_error(kind, number)
    assert error.params == {"value": number} and "%(value)s" in str(error.message)
    assert error.code == "document_number"


@given(digits=st.integers(min_value=0, max_value=99_999_999), letter=st.sampled_from(CHECK_LETTERS))
def test_exactly_one_letter_holds_for_each_number(digits, letter):
    """The ministry's table: the digits modulo 23 index ``TRWAGMYFPDXBNJZSQVHLCKE``."""
    number = f"{digits:08d}{letter}"
    assert (document_number_error("dni", number) is None) == (letter == CHECK_LETTERS[digits % 23])


@pytest.mark.django_db
def test_registration_refuses_a_wrong_letter_and_writes_nothing():
    cashier = UserFactory(username="caja", roles=["cashier"])
    with pytest.raises(ValidationError) as refused:
        player_register(code="ana", by=cashier, document_type="dni", document_number="12345678A", **IDENTITY)
    assert list(refused.value.message_dict) == ["document_number"]
    assert not Player.objects.exists() and not PlayerChange.objects.exists()
    player = player_register(code="ana", by=cashier, document_type="dni", document_number="12345678 z", **IDENTITY)
    assert player.document_number == "12345678Z"


@pytest.mark.django_db
def test_a_change_is_checked_only_when_it_changes_the_document():
    """A number kept before the check (an older record) does not block changing his card."""
    cashier = UserFactory(username="caja", roles=["cashier"])
    kept = PlayerFactory(code="viejo", document_type="dni", document_number="12345678A")
    assert player_update(player=kept, by=cashier, card_number="C-1") is not None
    with pytest.raises(ValidationError) as refused:
        player_update(player=kept, by=cashier, document_number="87654321A")
    assert list(refused.value.message_dict) == ["document_number"]
    kept.refresh_from_db()
    assert kept.document_number == "12345678A"
    player_update(player=kept, by=cashier, document_number="87654321X")
    kept.refresh_from_db()
    assert kept.document_number == "87654321X"


@pytest.mark.django_db
def test_an_identity_with_a_wrong_letter_is_refused_on_the_page_in_spanish(client):
    cashier = UserFactory(username="caja", roles=["cashier"])
    anon = PlayerFactory(code="anon", unidentified=True)
    with pytest.raises(IdentityError) as refused:
        player_record_identity(player=anon, document_type="nie", document_number="X1234567A", recorded_by=cashier,
                               **IDENTITY)
    assert refused.value.field == "document_number"
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(cashier)
    page = client.post("/cage/players/anon/identity/", {
        "name": "Ana Pérez", "document_type": "dni", "document_number": "12345678A", "nationality": "ES",
        "date_of_birth": "1980-01-01"})
    assert page.status_code == 200 and set(page.context["form"].errors) == {"document_number"}
    assert "12345678A no es un número de DNI" in " ".join(page.context["form"].errors["document_number"])
    anon.refresh_from_db()
    assert not anon.has_identity and not IdentityRecord.objects.exists()


@pytest.mark.django_db
def test_a_document_already_on_file_is_refused_in_words_not_by_the_constraints_name(client):
    """The register's form once said "No se cumple la restricción
    patrons_player_one_per_document" for a document registered to another player."""
    cashier = UserFactory(username="caja", roles=["cashier"])
    PlayerFactory(code="primero", document_type="dni", document_number="12345678Z")
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "es"
    client.force_login(cashier)
    page = client.post("/cage/register/", {"code": "segundo", "name": "Ana Pérez", "document_type": "dni",
                                           "document_number": "12345678Z", "nationality": "ES",
                                           "date_of_birth": "1980-01-01"})
    text = page.content.decode()
    assert page.status_code == 200 and not Player.objects.filter(code="segundo").exists()
    assert "Otro jugador está dado de alta con este documento" in text and "patrons_player" not in text
