"""The register of patrons: a player registered with his identity, every change to his
record attributed (``PlayerChange``: who, when, each field's before and after), and his
identity recorded for the anti-money-laundering due diligence (``IdentityRecord``).
Nothing is deleted.

Identity as the cage records it for customer due diligence (EU Directive 2015/849 art.
13; Spain, Ley 10/2010 art. 3–4 and RD 304/2014 art. 6: an official document with a
photograph; nationality and date of birth). Patrons are of age
(``patrons.models.validate_date_of_birth``, checked by ``Player.clean``).
"""

from datetime import date

from django.core.exceptions import ValidationError
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.errors import attempts_recorded
from casino.periods import retain_until
from patrons.admission import registration_check
from patrons.documents import document_number_error
from patrons.errors import IdentityError
from patrons.models import IdentityRecord, Player, PlayerChange

#: The fields of a player's record the cage keeps (the code is fixed once registered).
IDENTITY_FIELDS = ("name", "document_type", "document_number", "nationality", "date_of_birth", "card_number")


def _normalized(values):
    """Trimmed strings; document and card numbers upper-case without spaces."""
    clean = {}
    for name in IDENTITY_FIELDS:
        if name not in values:
            continue
        value = values[name]
        if name == "date_of_birth":
            clean[name] = value or None
        elif name in ("document_number", "card_number"):
            clean[name] = "".join(str(value or "").split()).upper()
        else:
            clean[name] = str(value or "").strip()
    return clean


def _check_document(values: dict) -> None:
    """Refuse a DNI's or NIE's number without its check letter (``patrons.documents``).

    Raises:
        ValidationError: naming ``document_number``.
    """
    error = document_number_error(values.get("document_type", ""), values.get("document_number", ""))
    if error is not None:
        raise ValidationError({"document_number": error})


def _as_text(value):
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, date) else str(value)


@attempts_recorded
def player_register(*, code: str, by, **identity) -> Player:
    """Register a player at the cage.

    Args:
        code: his player id (as hand records write it); by: the staff user who registers
        him; identity: any of ``IDENTITY_FIELDS`` (``date_of_birth`` a ``date``,
        ``nationality`` an ISO 3166-1 alpha-2 code).
    Returns:
        the new Player; a ``PlayerChange`` (``registered``) records every field given.
    Raises:
        django.core.exceptions.ValidationError naming the field: a bad or taken player
        id, a document or card already on file for another player, a document type
        without its number (or the reverse), a DNI's or NIE's number without its check
        letter (``patrons.documents``), an unknown country, a minor.
        patrons.errors.AdmissionRefused: his identity matches the exclusion register
        (``patrons.admission.registration_check``; the refusal recorded, nothing else).
    """
    values = _normalized(identity)
    _check_document(values)
    player = Player(code=(code or "").strip(), **values)
    registration_check(code=player.code, name=player.name, document_number=player.document_number,
                       date_of_birth=player.date_of_birth, by=by)
    with db.atomic():
        player.full_clean(exclude=["created_at"])
        player.save()
        PlayerChange.objects.create(
            player=player, action=PlayerChange.Action.REGISTERED, changed_by=by,
            changes={name: ["", _as_text(getattr(player, name))] for name in ("code", *IDENTITY_FIELDS)
                     if _as_text(getattr(player, name))})
    return player


@attempts_recorded
def player_update(*, player: Player, by, **identity) -> PlayerChange | None:
    """Change a player's record (his player id stays), under his row's lock.

    Args:
        player: the Player; by: the staff user; identity: any of ``IDENTITY_FIELDS``.
    Returns:
        the ``PlayerChange`` recording each changed field's before and after, or None if
        nothing changed.
    Raises:
        ValidationError naming the field, as ``player_register``; AdmissionRefused: his
        name, document or date of birth changed to match the exclusion register.
    """
    values = _normalized(identity)
    with db.atomic():
        locked = Player.objects.select_for_update().get(pk=player.pk)
        changes = {name: [_as_text(getattr(locked, name)), _as_text(value)] for name, value in values.items()
                   if _as_text(getattr(locked, name)) != _as_text(value)}
        if not changes:
            return None
        if changes.keys() & {"document_type", "document_number"}:  # a number kept before is not judged again
            _check_document({name: values.get(name, getattr(locked, name)) for name in ("document_type",
                                                                                         "document_number")})
        if changes.keys() & {"name", "document_number", "date_of_birth"}:
            after = {name: values.get(name, getattr(locked, name)) for name in ("name", "document_number",
                                                                                 "date_of_birth")}
            registration_check(code=locked.code, by=by, where="identity", player=locked, **after)
        for name, value in values.items():
            setattr(locked, name, value)
        locked.full_clean(exclude=["created_at"])
        locked.save(update_fields=list(values))
        for name in values:
            setattr(player, name, getattr(locked, name))
        return PlayerChange.objects.create(player=locked, action=PlayerChange.Action.CHANGED, changed_by=by,
                                           changes=changes)


#: The documents a cage accepts (stored as these codes).
DOCUMENT_TYPES = ("dni", "nie", "passport", "eu_id", "other")


@attempts_recorded
def player_record_identity(*, player: Player, name: str, document_type: str, document_number: str,
                           nationality: str, date_of_birth: date, recorded_by) -> IdentityRecord:
    """Record (or correct) a patron's identity; the change is attributed to ``recorded_by``.

    Args:
        player: the Player; name: his full name; document_type: one of ``DOCUMENT_TYPES``;
        document_number: as on the document (spaces dropped, upper case); nationality:
        ISO 3166 alpha-2 (``ES``); date_of_birth: a past date; recorded_by: the staff user.
    Returns:
        the IdentityRecord (the Player's fields hold the same values).
    Raises:
        IdentityError: a field missing or malformed (``field`` names it).
        AdmissionRefused: the identity matches the exclusion register (the refusal
        recorded, the identity not).
    """
    name = (name or "").strip()
    number = "".join((document_number or "").split()).upper()
    nationality = (nationality or "").strip().upper()
    if not name:
        raise IdentityError(_("the patron's full name is required"), field="name")
    if document_type not in DOCUMENT_TYPES:
        raise IdentityError(_("unknown document type %(value)s"), params={"value": document_type},
                            field="document_type")
    if not number:
        raise IdentityError(_("the document's number is required"), field="document_number")
    if (error := document_number_error(document_type, number)) is not None:
        raise IdentityError(error.message, params=error.params, field="document_number")
    if len(nationality) != 2 or not nationality.isalpha():
        raise IdentityError(_("the nationality is a two-letter country code (ES, FR), not %(value)s"),
                            params={"value": nationality or "—"}, field="nationality")
    if not isinstance(date_of_birth, date) or date_of_birth >= timezone.localdate():
        raise IdentityError(_("the date of birth must be a date in the past"), field="date_of_birth")
    registration_check(code=player.code, name=name, document_number=number, date_of_birth=date_of_birth,
                       by=recorded_by, where="identity", player=player)
    with db.atomic():
        Player.objects.filter(pk=player.pk).update(name=name, document_type=document_type, document_number=number,
                                                   nationality=nationality, date_of_birth=date_of_birth)
        player.name, player.document_type, player.document_number = name, document_type, number
        player.nationality, player.date_of_birth = nationality, date_of_birth
        return IdentityRecord.objects.create(
            player=player, name=name, document_type=document_type, document_number=number, nationality=nationality,
            date_of_birth=date_of_birth, recorded_by=recorded_by, recorded_at=timezone.now(),
            retain_until=retain_until(timezone.localdate()))
