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
                                    name="patrons_player_one_per_document",
                                    violation_error_message=_("Another player is registered with this document: "
                                                              "search for him by its number.")),
            models.UniqueConstraint(fields=["card_number"], condition=~Q(card_number=""),
                                    name="patrons_player_one_per_card",
                                    violation_error_message=_("Another player holds this card number.")),
            models.CheckConstraint(condition=Q(document_type="", document_number="")
                                   | (~Q(document_type="") & ~Q(document_number="")),
                                   name="patrons_player_document_type_and_number",
                                   violation_error_message=_("A document's type and its number go together: "
                                                             "give both or neither.")),
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


# ---------------------------------------------------------------------------------------
# Admission: the exclusion register and the refusals


class ExclusionSource(models.TextChoices):
    """Who excluded the patron: Spain's register of gaming bans (RGIAJ, Ley 13/2011 art.
    22), France's interdits de jeux (Code de la sécurité intérieure art. R.320-1), or the
    casino's own self-exclusions."""

    RGIAJ = "rgiaj", _("RGIAJ (Spain)")
    INTERDITS = "interdits", _("interdits de jeux (France)")
    SELF = "self", _("self-exclusion at this casino")


class ExclusionLoad(models.Model):
    """A regulator's file loaded into the register (``patrons.admission.exclusion_load``):
    its name, its SHA-256, who loaded it, when, and its rows. The entries of a source's
    latest load are its register in force; an earlier load's entries are kept as they
    were (never changed or deleted: PostgreSQL)."""

    source = models.CharField(_("source"), max_length=16, choices=ExclusionSource.choices)
    file_name = models.CharField(_("file name"), max_length=255)
    sha256 = models.CharField(_("SHA-256"), max_length=64)
    rows = models.PositiveIntegerField(_("rows"))
    loaded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                  verbose_name=_("loaded by"))
    loaded_at = models.DateTimeField(_("loaded at"), default=timezone.now)

    class Meta:
        ordering = ["-loaded_at", "-id"]
        verbose_name = _("exclusion register load")
        verbose_name_plural = _("exclusion register loads")

    def __str__(self):
        return f"{self.source} #{self.pk} {self.file_name}"


class ExclusionEntry(models.Model):
    """One patron barred from play: by a regulator's file (``load``) or a self-exclusion
    entered by hand (``load`` None, ``entered_by``). Matched on ``document_key`` (the
    document's number upper-case without spaces or dashes) or on ``name_key`` (the name
    case-folded, accents stripped, spaces single) with ``date_of_birth``; in force from
    ``valid_from`` to ``valid_until`` inclusive (None: indefinitely). Never changed or
    deleted (PostgreSQL)."""

    source = models.CharField(_("source"), max_length=16, choices=ExclusionSource.choices)
    load = models.ForeignKey(ExclusionLoad, models.PROTECT, null=True, blank=True, related_name="entries",
                             verbose_name=_("load"))
    line = models.PositiveIntegerField(_("line of the file"), null=True, blank=True)
    document_number = models.CharField(_("document number"), max_length=64, blank=True)
    document_key = models.CharField(max_length=64, blank=True, db_index=True)
    name = models.CharField(_("name"), max_length=200, blank=True)
    name_key = models.CharField(max_length=200, blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    valid_from = models.DateField(_("valid from"))
    valid_until = models.DateField(_("valid until"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=500, blank=True)
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                   verbose_name=_("entered by"))
    entered_at = models.DateTimeField(_("entered at"), default=timezone.now)

    class Meta:
        ordering = ["-entered_at", "-id"]
        verbose_name = _("exclusion")
        verbose_name_plural = _("exclusions")
        indexes = [models.Index(fields=["name_key", "date_of_birth"], name="patrons_exclusion_name_dob")]
        constraints = [
            models.CheckConstraint(condition=~Q(document_key="") | (~Q(name_key="") & Q(date_of_birth__isnull=False)),
                                   name="patrons_exclusion_document_or_name_and_birth"),
            models.CheckConstraint(condition=Q(valid_until__isnull=True) | Q(valid_until__gte=models.F("valid_from")),
                                   name="patrons_exclusion_valid_until_after_from"),
        ]

    def __str__(self):
        return f"{self.source} · {self.document_number or self.name}"


class AdmissionRefusal(models.Model):
    """An attempt to register, buy in or play refused at admission
    (``patrons.admission``): who attempted it (``attempted_by``, the staff user), when,
    where (``where`` and ``place``, a table's name), for which patron (``player``, or the
    identity given at a registration refused), why (``reason``), and the register's entry
    that matched (``entry``). Nothing of the attempt was written; this record is kept,
    never changed or deleted (PostgreSQL)."""

    class Where(models.TextChoices):
        REGISTRATION = "registration", _("registration")
        IDENTITY = "identity", _("identity recorded")
        CAGE_BUY_IN = "cage_buy_in", _("buy-in at the cage")
        BANK_DEPOSIT = "bank_deposit", _("bank deposit at the cage")
        TABLE_BUY_IN = "table_buy_in", _("buy-in at a table")
        FIRST_BET = "first_bet", _("first bet of the gaming day")
        SESSION_OPEN = "session_open", _("bank holder at a session's opening")

    class Reason(models.TextChoices):
        EXCLUDED = "excluded", _("on the exclusion register")
        NO_IDENTITY = "no_identity", _("identity not on file")
        MINOR = "minor", _("under age")

    at = models.DateTimeField(_("at"), default=timezone.now)
    gaming_day = models.DateField(_("gaming day"))
    attempted_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                     verbose_name=_("attempted by"))
    where = models.CharField(_("where"), max_length=16, choices=Where.choices)
    place = models.CharField(_("place"), max_length=100, blank=True)
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    player = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="admission_refusals",
                               verbose_name=_("player"))
    player_code = models.CharField(_("player id"), max_length=64, blank=True)
    name = models.CharField(_("name"), max_length=200, blank=True)
    document_number = models.CharField(_("document number"), max_length=64, blank=True)
    date_of_birth = models.DateField(_("date of birth"), null=True, blank=True)
    entry = models.ForeignKey(ExclusionEntry, models.PROTECT, null=True, blank=True, related_name="refusals",
                              verbose_name=_("register entry"))
    missing = models.JSONField(_("missing"), default=list, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("admission refused")
        verbose_name_plural = _("admissions refused")
        indexes = [models.Index(fields=["gaming_day"], name="patrons_admrefusal_day")]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} · {self.player_code or self.name} · {self.reason}"


class DayAdmission(models.Model):
    """A patron admitted to play for a gaming day, at his first bet of it
    (``patrons.admission.admit_for_the_day``): his later bets that day are not checked
    again. ``place``: the table; ``admitted_by``: the dealer who entered the bet."""

    player = models.ForeignKey(Player, models.PROTECT, related_name="admissions", verbose_name=_("player"))
    gaming_day = models.DateField(_("gaming day"))
    at = models.DateTimeField(_("at"), default=timezone.now)
    place = models.CharField(_("place"), max_length=100, blank=True)
    admitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, related_name="+",
                                    verbose_name=_("admitted by"))

    class Meta:
        verbose_name = _("admission of the day")
        verbose_name_plural = _("admissions of the day")
        constraints = [models.UniqueConstraint(fields=["player", "gaming_day"], name="patrons_one_admission_a_day")]

    def __str__(self):
        return f"{self.player_id} · {self.gaming_day}"
