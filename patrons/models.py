"""The patrons: a player (``Player``), his identity as the cage recorded it, each time
(``IdentityRecord``), and every change to his record (``PlayerChange``).

Nothing here is ever deleted; identity records and record changes are append-only
(PostgreSQL: ``patrons/sql/guards.sql``).
"""

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from game import valid_player_id


def validate_player_code(value):
    """A player's code is the id hand records use: 1–64 letters, digits, ``_ - .``;
    not ``bank`` or ``loca``. [hand-record.md "Fields"]"""
    if not valid_player_id(value):
        raise ValidationError(
            _("%(value)s is not a valid player id: 1–64 letters, digits, _ - . (not bank or loca)"),
            params={"value": value})


ADULT_AGE = 18


def validate_date_of_birth(value, today=None):
    """A patron's date of birth: not in the future, and 18 years ago or earlier (Spain's
    gaming law forbids minors in casinos: Ley 13/2011 art. 6.2.a)."""
    if value is None:
        return
    today = today or timezone.localdate()
    if value > today:
        raise ValidationError(_("The date of birth is in the future."), code="future")
    day = 28 if (value.month, value.day) == (2, 29) else value.day
    if value.replace(year=value.year + ADULT_AGE, day=day) > today:
        raise ValidationError(_("Under %(age)s years of age: minors may not play."), code="minor",
                              params={"age": ADULT_AGE})


class Player(models.Model):
    """A patron who plays at the tables, holds chips, and may hold the bank.

    ``code`` is the player id used in hand records and in the console. His identity as
    the cage records it (Ley 10/2010 art. 4, RD 304/2014 art. 6: a document with a
    photograph, nationality, date of birth): ``document_type`` and ``document_number``
    (both or neither; one player per document), ``nationality`` (ISO 3166-1 alpha-2),
    ``date_of_birth``; ``card_number`` is his player card's (unique when given). Changes
    are made by ``patrons.services`` and kept in ``PlayerChange``.
    """

    class DocumentType(models.TextChoices):
        DNI = "dni", _("DNI")
        NIE = "nie", _("NIE")
        PASSPORT = "passport", _("passport")
        EU_ID = "eu_id", _("EU identity card")
        OTHER = "other", _("other official document with photograph")

    code = models.CharField(_("player id"), max_length=64, unique=True, validators=[validate_player_code])
    name = models.CharField(_("name"), max_length=200, blank=True)
    document_type = models.CharField(_("document type"), max_length=16, choices=DocumentType.choices, blank=True)
    document_number = models.CharField(_("document number"), max_length=32, blank=True)
    nationality = CountryField(_("nationality"), blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    card_number = models.CharField(_("card number"), max_length=32, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["code"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.UniqueConstraint(fields=["document_type", "document_number"], condition=~Q(document_number=""),
                                    name="patrons_player_one_per_document"),
            models.UniqueConstraint(fields=["card_number"], condition=~Q(card_number=""),
                                    name="patrons_player_one_per_card"),
            models.CheckConstraint(condition=Q(document_type="", document_number="")
                                   | (~Q(document_type="") & ~Q(document_number="")),
                                   name="patrons_player_document_type_and_number"),
        ]

    def __str__(self):
        return self.name or self.code

    def clean(self):
        super().clean()
        try:
            validate_date_of_birth(self.date_of_birth)
        except ValidationError as error:
            raise ValidationError({"date_of_birth": error}) from None

    @property
    def has_identity(self) -> bool:
        """True if his identity is on file: name, document, nationality, date of birth."""
        return bool(self.name and self.document_type and self.document_number and self.nationality
                    and self.date_of_birth)


class IdentityRecord(models.Model):
    """A patron's identity as a cashier recorded it (each change a new record, attributed).

    The same values are kept on the ``Player`` (``document_type``, ``document_number``,
    ``nationality``, ``date_of_birth``) for the checks; this is their history.
    """

    player = models.ForeignKey(Player, models.PROTECT, related_name="identity_records", verbose_name=_("player"))
    name = models.CharField(_("name"), max_length=200)
    document_type = models.CharField(_("document type"), max_length=16)
    document_number = models.CharField(_("document number"), max_length=64)
    nationality = models.CharField(_("nationality"), max_length=2)
    date_of_birth = models.DateField(_("date of birth"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)
    retain_until = models.DateField(_("kept until"))

    class Meta:
        ordering = ["-recorded_at", "-id"]
        verbose_name = _("identity record")
        verbose_name_plural = _("identity records")

    def __str__(self):
        return f"{self.player_id} · {self.document_type} {self.document_number}"


class PlayerChange(models.Model):
    """Who registered a player or changed his record at the cage, when, and what:
    ``changes`` is ``{field: [before, after]}`` (strings; dates ISO). Never changed or
    deleted (PostgreSQL). Written by ``patrons.services``."""

    class Action(models.TextChoices):
        REGISTERED = "registered", _("registered")
        CHANGED = "changed", _("changed")

    player = models.ForeignKey(Player, models.PROTECT, related_name="changes", verbose_name=_("player"))
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    changes = models.JSONField(_("changes"), default=dict)
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="player_changes",
                                   verbose_name=_("changed by"))
    changed_at = models.DateTimeField(_("changed at"), default=timezone.now)

    class Meta:
        ordering = ["-changed_at", "-id"]
        verbose_name = _("player record change")
        verbose_name_plural = _("player record changes")

    def __str__(self):
        return f"{self.player} {self.action} {self.changed_at:%Y-%m-%d %H:%M}"
