"""A patron's identity for the anti-money-laundering due diligence: recorded on the
``Player`` and, each time, as an attributed ``IdentityRecord``. [Ley 10/2010 art. 3;
RD 304/2014 art. 6: the identity document's type and number, nationality, date of birth]
"""

from datetime import date

from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from cage.errors import IdentityError
from cage.models import IdentityRecord
from cage.services.aml import retain_until
from tables.models import Player

#: The documents a cage accepts (stored as these codes).
DOCUMENT_TYPES = ("dni", "nie", "passport", "eu_id", "other")


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
    if len(nationality) != 2 or not nationality.isalpha():
        raise IdentityError(_("the nationality is a two-letter country code (ES, FR), not %(value)s"),
                            params={"value": nationality or "—"}, field="nationality")
    if not isinstance(date_of_birth, date) or date_of_birth >= timezone.localdate():
        raise IdentityError(_("the date of birth must be a date in the past"), field="date_of_birth")
    with db.atomic():
        Player.objects.filter(pk=player.pk).update(name=name, document_type=document_type, document_number=number,
                                                   nationality=nationality, date_of_birth=date_of_birth)
        player.name, player.document_type, player.document_number = name, document_type, number
        player.nationality, player.date_of_birth = nationality, date_of_birth
        return IdentityRecord.objects.create(
            player=player, name=name, document_type=document_type, document_number=number, nationality=nationality,
            date_of_birth=date_of_birth, recorded_by=recorded_by, recorded_at=timezone.now(),
            retain_until=retain_until(timezone.localdate()))
