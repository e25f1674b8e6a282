"""The tables' data: players (patrons), tables with their rule profile and limits, the
dealers' shifts, the hands and every entry made at the table.

HandEvent rows are never updated or deleted (PostgreSQL triggers, migration 0004): a
mistake is corrected by an undo entry, and each entry's HMAC (a key from the environment,
``tables.chain``) chains to the table's previous one.
"""

from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django_countries.fields import CountryField

from game import InvalidRules, Profile, valid_player_id


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


def validate_rules(value):
    """A table's ``rules``: a profile name or ``{"profile": ..., option: value}``."""
    try:
        Profile.from_rules(value)
    except InvalidRules as error:
        raise ValidationError(error.message) from None


class Player(models.Model):
    """A patron who plays at the tables, holds chips, and may hold the bank.

    ``code`` is the player id used in hand records and in the console. His identity as
    the cage records it (Ley 10/2010 art. 4, RD 304/2014 art. 6: a document with a
    photograph, nationality, date of birth): ``document_type`` and ``document_number``
    (both or neither; one player per document), ``nationality`` (ISO 3166-1 alpha-2),
    ``date_of_birth``; ``card_number`` is his player card's (unique when given). Changes
    are made by ``ledger.services.patrons`` and kept in ``ledger.PlayerChange``.
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
                                    name="tables_player_one_per_document"),
            models.UniqueConstraint(fields=["card_number"], condition=~Q(card_number=""),
                                    name="tables_player_one_per_card"),
            models.CheckConstraint(condition=Q(document_type="", document_number="")
                                   | (~Q(document_type="") & ~Q(document_number="")),
                                   name="tables_player_document_type_and_number"),
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


class Table(models.Model):
    """A physical table: its rule profile (with overrides), its limits and options.

    ``rules`` is the hand record's ``rules`` value; ``min_bet`` and ``max_bet`` are
    ``Decimal`` euros with two places. ``bank_cover`` ("banca limitada") caps a hand's
    stakes at what the bank tenure holds. ``large_bet``: a stake at or above it raises an
    alert for the auditors (None: no such alert). [issue 17 "Alerts"]
    """

    name = models.CharField(_("name"), max_length=64, unique=True)
    rules = models.JSONField(_("rules"), default=dict, validators=[validate_rules])
    min_bet = models.DecimalField(_("minimum bet"), max_digits=12, decimal_places=2,
                                  validators=[MinValueValidator(Decimal("0"))])
    max_bet = models.DecimalField(_("maximum bet"), max_digits=12, decimal_places=2,
                                  validators=[MinValueValidator(Decimal("0.01"))])
    bank_cover = models.BooleanField(_("bank cover (banca limitada)"), default=False)
    bank_capital = models.DecimalField(
        _("takeover capital"), max_digits=12, decimal_places=2, default=Decimal("0"),
        validators=[MinValueValidator(Decimal("0"))],
        help_text=_("what a player who takes the bank with 7½ puts in, at most his chips"))
    large_bet = models.DecimalField(
        _("large bet"), max_digits=12, decimal_places=2, null=True, blank=True,
        validators=[MinValueValidator(Decimal("0.01"))],
        help_text=_("a stake at or above this raises an alert for the auditors; empty: none"))
    last_hand_number = models.PositiveIntegerField(_("last hand number"), default=0)
    last_event_hash = models.CharField(_("last entry's hash"), max_length=64, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")
        constraints = [
            models.CheckConstraint(condition=Q(min_bet__gte=0) & Q(max_bet__gte=F("min_bet")) & Q(max_bet__gt=0),
                                   name="table_limits_valid"),
        ]

    def __str__(self):
        return self.name

    @property
    def profile(self):
        """The table's engine ``Profile``."""
        return Profile.from_rules(self.rules)


class Shift(models.Model):
    """A dealer's shift at a table, opened and closed by a pit supervisor.

    A dealer enters hands only at the table of his open shift; one open shift per table.
    """

    table = models.ForeignKey(Table, models.PROTECT, related_name="shifts", verbose_name=_("table"))
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="dealt_shifts",
                               verbose_name=_("dealer"))
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="opened_shifts",
                                  verbose_name=_("opened by"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    closed_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                  related_name="closed_shifts", verbose_name=_("closed by"))
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("shift")
        verbose_name_plural = _("shifts")
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(closed_at__isnull=True),
                                    name="tables_one_open_shift_per_table"),
            models.CheckConstraint(condition=Q(closed_at__isnull=True) | Q(closed_by__isnull=False),
                                   name="tables_closed_shift_has_closer"),
        ]

    def __str__(self):
        return f"{self.table} · {self.dealer} · {self.opened_at:%Y-%m-%d %H:%M}"

    @property
    def is_open(self):
        return self.closed_at is None


class Hand(models.Model):
    """One hand at a table: numbered 1, 2, 3… per table with no gaps.

    The rules, limits, bank holder and seats it was played under are kept on the hand (a
    table's configuration may change later). Its events are ``HandEvent`` rows; the
    engine's state is their replay. ``settlement`` is ``Settlement.as_dict()`` once
    settled, and ``transaction`` the ledger's posting of it.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        SETTLED = "settled", _("settled")
        VOIDED = "voided", _("voided")

    # No index of their own on table and shift: the unique (table, number) and the index
    # (shift, number) lead with them (issue 18: fewer indexes for each hand written).
    table = models.ForeignKey(Table, models.PROTECT, related_name="hands", verbose_name=_("table"), db_index=False)
    number = models.PositiveIntegerField(_("number"))
    shift = models.ForeignKey(Shift, models.PROTECT, null=True, blank=True, related_name="hands",
                              verbose_name=_("shift"), db_index=False)
    tenure = models.ForeignKey("ledger.BankTenure", models.PROTECT, related_name="hands",
                               verbose_name=_("bank tenure"))
    bank = models.ForeignKey(Player, models.PROTECT, related_name="banked_hands", verbose_name=_("bank holder"))
    seats = models.JSONField(_("seats"), help_text=_("player ids in order of play"))
    rules = models.JSONField(_("rules"))
    min_bet = models.DecimalField(_("minimum bet"), max_digits=12, decimal_places=2)
    max_bet = models.DecimalField(_("maximum bet"), max_digits=12, decimal_places=2)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.OPEN)
    version = models.PositiveIntegerField(_("version"), default=0,
                                          help_text=_("how many events (undos included) the hand has"))
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                  related_name="+", verbose_name=_("opened by"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    settled_at = models.DateTimeField(_("settled at"), null=True, blank=True)
    settlement = models.JSONField(_("settlement"), null=True, blank=True)
    next_bank = models.CharField(_("next bank"), max_length=64, blank=True)
    transaction = models.OneToOneField("ledger.Transaction", models.PROTECT, null=True, blank=True,
                                       related_name="hand", verbose_name=_("ledger transaction"))
    voided_at = models.DateTimeField(_("voided at"), null=True, blank=True)
    voided_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                  related_name="+", verbose_name=_("voided by"))
    void_reason = models.TextField(_("reason for the void"), blank=True)
    imported = models.BooleanField(_("imported"), default=False)
    # Counted when the hand settles, for the reports (from its events in force).
    splits = models.PositiveSmallIntegerField(_("splits"), default=0)
    exchanges = models.PositiveSmallIntegerField(_("exchanges of fours"), default=0)
    fusilados = models.PositiveSmallIntegerField(_("fusilados"), default=0)
    muertos = models.PositiveSmallIntegerField(_("muertos"), default=0)
    cards = models.JSONField(_("cards dealt"), default=list, blank=True,
                             help_text=_("every card that came out of the stock, in order"))

    class Meta:
        ordering = ["table", "-number"]
        verbose_name = _("hand")
        verbose_name_plural = _("hands")
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="tables_hand_number_unique"),
            # What an entry's (hand, table) refers to (HandEvent: one foreign key for both).
            models.UniqueConstraint(fields=["id", "table"], name="tables_hand_id_table_unique"),
            models.UniqueConstraint(fields=["table"], condition=Q(status="open"),
                                    name="tables_one_open_hand_per_table"),
            models.CheckConstraint(condition=Q(number__gte=1), name="tables_hand_number_from_one"),
            models.CheckConstraint(condition=~Q(status="settled") | Q(settlement__isnull=False),
                                   name="tables_settled_hand_has_settlement"),
            models.CheckConstraint(condition=~Q(status="voided") | ~Q(void_reason=""),
                                   name="tables_voided_hand_has_reason"),
        ]
        indexes = [models.Index(fields=["table", "status"]), models.Index(fields=["shift", "number"])]

    def __str__(self):
        return f"{self.table} #{self.number}"

    @property
    def reference(self):
        """The ledger's plain key of the hand's posting: ``"hand Mesa 1 #12"`` (pages show
        ``cause`` in words instead)."""
        return f"hand {self.table.name} #{self.number}"

    @property
    def cause(self):
        """What the hand's posting records as its cause (``ledger.references``)."""
        return {"kind": "hand", "table": self.table.name, "table_id": self.table_id, "number": self.number}

    @property
    def idempotency_key(self):
        """The ledger's key for this hand's settlement: one posting per hand, ever."""
        return f"hand:{self.table_id}:{self.number}"


class HandBet(models.Model):
    """One settled bet of a hand, as ``game.payouts.Bet``: written with the settlement,
    never changed (a void reverses the ledger posting and marks the hand; its bets stay).

    ``stake`` and ``net`` are ``Decimal`` euros; ``points`` are half-points (7½ = 15).
    """

    hand = models.ForeignKey(Hand, models.PROTECT, related_name="bets", verbose_name=_("hand"))
    player = models.ForeignKey(Player, models.PROTECT, related_name="bets", verbose_name=_("player"))
    seat = models.CharField(_("seat"), max_length=64, help_text=_("the seat's player id, or loca"))
    seat_hand = models.PositiveSmallIntegerField(_("hand of the seat"))
    stake = models.DecimalField(_("stake"), max_digits=14, decimal_places=2)
    points = models.PositiveSmallIntegerField(_("points (half-points)"))
    result = models.CharField(_("result"), max_length=8)
    multiplier = models.PositiveSmallIntegerField(_("multiplier"))
    net = models.DecimalField(_("net"), max_digits=14, decimal_places=2)

    class Meta:
        ordering = ["hand", "id"]
        verbose_name = _("settled bet")
        verbose_name_plural = _("settled bets")
        constraints = [models.CheckConstraint(condition=Q(stake__gt=0), name="tables_bet_stake_positive")]

    def __str__(self):
        return f"{self.hand} · {self.player_id} on {self.seat} {self.seat_hand}: {self.net}"


class HandEvent(models.Model):
    """One entry at the table, never edited or deleted: an engine event, an undo of the
    hand's latest event, or a void.

    ``event`` is the event as in ``hand-record.md`` (a face-down card may be None until
    ``identify`` names it); for an undo it is ``{"undo": sequence, "reason": text}``.
    ``hash`` is HMAC-SHA256, under the key ``key_id`` names (the key itself is in the
    environment, never here), over the entry and the table's previous entry's hash, so that
    any later change to any entry of the table breaks the chain (``tables.chain``,
    ``tables.integrity``); ``key_id`` ``""``: an entry hashed with plain SHA-256 before the
    chain was keyed.
    """

    class Kind(models.TextChoices):
        EVENT = "event", _("event")
        UNDO = "undo", _("undo")
        VOID = "void", _("void")

    # Every entry goes through each index of this, the largest table (about 20 rows a hand), so
    # it keeps only those a query or a guard needs: no index of their own on table and hand (the
    # index (table, id) and the unique (hand, sequence) lead with them), the form token's and the
    # entering user's only where they are set (an import's entries have neither), and the hash's
    # unique constraint without Django's second (LIKE) index. 9 to 4 indexes an imported entry
    # goes through. [issue 18 "The import crawls"; benchmarks/import.py]
    #
    # Its hand and its table are checked by ONE foreign key, (hand, table) to the hand's (id,
    # table) (migration 0013: Django declares no composite foreign key), not one each: an
    # entry's table is its hand's, and the table exists since the hand does. One check an entry
    # instead of two at each COMMIT: 3,000 of benchmarks/import.py's hands, in-process, spent
    # 0.44 s of about 4.0 in their entries' two checks (2026-11-25).
    table = models.ForeignKey(Table, models.PROTECT, related_name="hand_events", verbose_name=_("table"),
                              db_index=False, db_constraint=False)
    hand = models.ForeignKey(Hand, models.PROTECT, related_name="events", verbose_name=_("hand"), db_index=False,
                             db_constraint=False)
    sequence = models.PositiveIntegerField(_("sequence"))
    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices, default=Kind.EVENT)
    event = models.JSONField(_("event"))
    entered_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                   related_name="+", verbose_name=_("entered by"), db_index=False)
    entered_at = models.DateTimeField(_("entered at"), default=timezone.now)
    form_token = models.UUIDField(_("form token"), null=True, blank=True)
    previous_hash = models.CharField(_("previous hash"), max_length=64)
    hash = models.CharField(_("hash"), max_length=64)
    key_id = models.CharField(_("key id"), max_length=16, blank=True, default="",
                              help_text=_("the id of the key that signed the entry; empty: unkeyed SHA-256"))

    class Meta:
        ordering = ["hand", "sequence"]
        verbose_name = _("hand event")
        verbose_name_plural = _("hand events")
        constraints = [
            models.UniqueConstraint(fields=["hand", "sequence"], name="tables_event_sequence_unique"),
            models.UniqueConstraint(fields=["hash"], name="tables_event_hash_unique"),
            models.UniqueConstraint(fields=["form_token"], condition=Q(form_token__isnull=False),
                                    name="tables_event_form_token_unique"),
            models.CheckConstraint(condition=Q(sequence__gte=1), name="tables_event_sequence_from_one"),
        ]
        indexes = [models.Index(fields=["table", "id"]),
                   models.Index(fields=["entered_by"], condition=Q(entered_by__isnull=False),
                                name="tables_event_entered_by_idx")]

    def __str__(self):
        return f"{self.hand} · {self.sequence} · {self.kind}"
