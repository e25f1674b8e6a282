"""The tables' data: tables with their rule profile and limits, the dealers' shifts, the
hands and every entry made at the table, and the bank's life (tenures, syndicate shares,
auctions and bids, rebuilds).

HandEvent rows are never updated or deleted (PostgreSQL, ``tables/sql/guards.sql``): a
mistake is corrected by an undo entry, and each entry's HMAC (a key from the environment,
``tables.chain``) chains to the table's previous one.
"""

from datetime import datetime
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from game import InvalidRules, Profile
from ledger.models import MONEY, Account, Transaction
from patrons.models import Player


def validate_rules(value):
    """A table's ``rules``: a profile name or ``{"profile": ..., option: value}``."""
    try:
        Profile.from_rules(value)
    except InvalidRules as error:
        raise ValidationError(error.message) from None


class Table(models.Model):
    """A physical table: its rule profile (with overrides), its limits and options.

    ``rules`` is the hand record's ``rules`` value; ``min_bet`` and ``max_bet`` are
    ``Decimal`` euros with two places. ``bank_cover`` ("banca limitada") caps a hand's
    stakes at what the bank tenure holds. ``large_bet``: a stake at or above it raises an
    alert for the auditors (None: no such alert).
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
    """A table's session (shift), opened and closed by a pit supervisor.

    ``dealer`` is the dealer it was opened with; ``current_dealer`` the one dealing now:
    the last ``DealerRelief``'s relieving dealer, else ``dealer`` (PostgreSQL keeps it so:
    a relief's insert sets it, ``tables/sql/0005_dealer_relief_guards.sql``). Only the current
    dealer enters hands at the table; one open shift per table.
    """

    table = models.ForeignKey(Table, models.PROTECT, related_name="shifts", verbose_name=_("table"))
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="dealt_shifts",
                               verbose_name=_("dealer"))
    current_dealer = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="dealing_shifts",
                                       verbose_name=_("current dealer"), db_index=False)
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

    def save(self, *args, **kwargs):
        if self.current_dealer_id is None:
            self.current_dealer_id = self.dealer_id
        super().save(*args, **kwargs)

    @property
    def is_open(self):
        return self.closed_at is None

    def dealer_spells(self, until=None) -> list[tuple[int, datetime, datetime]]:
        """Who dealt when: ``[(dealer id, from, to)]`` in order, from the shift's opening to
        its close (an open shift: to ``until``, default now), cut at each relief."""
        end = self.closed_at or until or timezone.now()
        spells, dealer, start = [], self.dealer_id, self.opened_at
        for relief in sorted(self.reliefs.all(), key=lambda r: (r.at, r.pk)):  # prefetched, or one query
            spells.append((dealer, start, relief.at))
            dealer, start = relief.relieving_id, relief.at
        spells.append((dealer, start, max(end, start)))
        return spells


class DealerRelief(models.Model):
    """A dealer relieved at his table within an open shift, between hands, by a pit
    supervisor: from ``at`` the ``relieving`` dealer deals (the shift's ``current_dealer``).
    Never changed or deleted (PostgreSQL: ``tables/sql/0005_dealer_relief_guards.sql``, which
    also refuses a relief of a closed shift or of a dealer who is not its current one).
    """

    shift = models.ForeignKey(Shift, models.PROTECT, related_name="reliefs", verbose_name=_("shift"))
    relieved = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="reliefs_given",
                                 verbose_name=_("dealer relieved"))
    relieving = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="reliefs_taken",
                                  verbose_name=_("relieving dealer"))
    at = models.DateTimeField(_("at"), default=timezone.now)
    relieved_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("relieved by"))

    class Meta:
        ordering = ["shift", "at", "id"]
        verbose_name = _("dealer relief")
        verbose_name_plural = _("dealer reliefs")
        constraints = [models.CheckConstraint(condition=~Q(relieved=F("relieving")),
                                              name="tables_relief_another_dealer")]

    def __str__(self):
        return f"{self.shift_id} · {self.relieved_id} → {self.relieving_id}"


class Pit(models.Model):
    """A pit: a group of tables a pit supervisor runs, with its dealers' rotation plan
    (``RotationPlan``, the latest version in force). Its name never changes; nothing of it
    is deleted (PostgreSQL: ``tables/sql/0009_rotation_plan_guards.sql``)."""

    name = models.CharField(_("name"), max_length=64, unique=True)
    created_at = models.DateTimeField(_("created at"), default=timezone.now)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                   verbose_name=_("created by"))

    class Meta:
        ordering = ["name"]
        verbose_name = _("pit")
        verbose_name_plural = _("pits")

    def __str__(self):
        return self.name


class RotationPlan(models.Model):
    """One version of a pit's rotation plan, set by a pit supervisor: its ``tables``, the
    ``minutes`` a dealer deals before he is due for relief (20 to 40) and the relief order
    (``RotationSlot``: who relieves in turn). A change is a new version (``version`` + 1)
    with who set it and when; the latest is in force. Never changed or deleted (PostgreSQL:
    ``tables/sql/0009_rotation_plan_guards.sql``)."""

    pit = models.ForeignKey(Pit, models.PROTECT, related_name="plans", verbose_name=_("pit"))
    version = models.PositiveIntegerField(_("version"))
    minutes = models.PositiveSmallIntegerField(_("minutes at a table"))
    tables = models.ManyToManyField(Table, related_name="rotation_plans", verbose_name=_("tables"))
    note = models.CharField(_("note"), max_length=200, blank=True)
    set_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                               verbose_name=_("set by"))
    set_at = models.DateTimeField(_("set at"), default=timezone.now)

    class Meta:
        ordering = ["pit", "-version"]
        verbose_name = _("rotation plan")
        verbose_name_plural = _("rotation plans")
        constraints = [
            models.UniqueConstraint(fields=["pit", "version"], name="tables_rotation_plan_version_once"),
            models.CheckConstraint(condition=Q(minutes__gte=20, minutes__lte=40),
                                   name="tables_rotation_plan_minutes_20_40"),
            models.CheckConstraint(condition=Q(version__gte=1), name="tables_rotation_plan_version_from_1"),
        ]

    def __str__(self):
        return f"{self.pit} v{self.version}"


class RotationSlot(models.Model):
    """A relief dealer's place in a rotation plan's order (``position`` 1, 2, 3…): the
    first free one in this order relieves the table due first."""

    plan = models.ForeignKey(RotationPlan, models.PROTECT, related_name="slots", verbose_name=_("rotation plan"))
    position = models.PositiveSmallIntegerField(_("position"))
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                               verbose_name=_("dealer"))

    class Meta:
        ordering = ["plan", "position"]
        verbose_name = _("relief dealer")
        verbose_name_plural = _("relief dealers")
        constraints = [
            models.UniqueConstraint(fields=["plan", "position"], name="tables_rotation_slot_position_once"),
            models.UniqueConstraint(fields=["plan", "dealer"], name="tables_rotation_slot_dealer_once"),
        ]

    def __str__(self):
        return f"{self.plan} #{self.position} {self.dealer_id}"


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
    # (shift, number) lead with them (fewer indexes for each hand written).
    table = models.ForeignKey(Table, models.PROTECT, related_name="hands", verbose_name=_("table"), db_index=False)
    number = models.PositiveIntegerField(_("number"))
    shift = models.ForeignKey(Shift, models.PROTECT, null=True, blank=True, related_name="hands",
                              verbose_name=_("shift"), db_index=False)
    #: Who dealt it: the shift's current dealer at its opening (None: an import without a shift).
    dealer = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                               related_name="dealt_hands", verbose_name=_("dealer"), db_index=False)
    tenure = models.ForeignKey("BankTenure", models.PROTECT, related_name="hands",
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
    transaction = models.OneToOneField(Transaction, models.PROTECT, null=True, blank=True,
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
    #: Its own fields (table, number, shift, tenure, bank, seats, rules, limits) signed when it
    #: was opened (``tables.chain.sign_opening``), under the key ``key_id`` names: a hand
    #: changed since by SQL is a fault (``tables.integrity.opening_faults``).
    signature = models.CharField(_("signature"), max_length=64, blank=True, default="", db_default="")
    key_id = models.CharField(_("key id"), max_length=16, blank=True, default="", db_default="",
                              help_text=_("the id of the key that signed the hand's opening"))

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
    # goes through. [benchmarks/import.py]
    #
    # Its hand and its table are checked by ONE foreign key, (hand, table) to the hand's (id,
    # table) (tables/sql/0002_guards.sql: Django declares no composite foreign key), not one
    # each: an entry's table is its hand's, and the table exists since the hand does. One check
    # an entry instead of two at each COMMIT, where they were about a tenth of an import's time.
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


# ---------------------------------------------------------------------------------------
# The bank's life at the table

class BankTenure(models.Model):
    """One holder's time with the bank at a table, from ``opened_at`` to ``closed_at``.

    The tenure's money is its ``account`` (kind ``tenure``); ``capital`` (Decimal euros,
    zero or more) is what it was opened with, contributed by its ``shares`` (one share of
    100 for a single holder). At most one open tenure per table. [rules.md "The bank passes";
    seed 003 for syndicates]
    """

    class Began(models.TextChoices):
        DRAW = "draw", _("drawn for")
        NATURAL = "natural", _("natural 7½ takeover")
        SALE = "sale", _("bought")
        TRANSFER = "transfer", _("transferred")
        AUCTION = "auction", _("won at auction")

    class Ended(models.TextChoices):
        CLOSED = "closed", _("closed by its holder")
        NATURAL = "natural", _("natural 7½ takeover")
        SALE = "sale", _("sold")
        TRANSFER = "transfer", _("transferred")
        TERM = "term", _("its awarded sessions played")

    table = models.ForeignKey(Table, models.PROTECT, related_name="bank_tenures", verbose_name=_("table"))
    holder = models.ForeignKey(Player, models.PROTECT, related_name="bank_tenures", verbose_name=_("holder"))
    account = models.OneToOneField(Account, models.PROTECT, related_name="tenure", verbose_name=_("account"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    began = models.CharField(_("began by"), max_length=16, choices=Began.choices)
    ended = models.CharField(_("ended by"), max_length=16, choices=Ended.choices, blank=True)
    capital = models.DecimalField(_("capital"), **MONEY)
    price = models.DecimalField(_("sale price"), null=True, blank=True, **MONEY)
    seller = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="bank_sales",
                               verbose_name=_("seller"))
    previous = models.OneToOneField("self", models.PROTECT, null=True, blank=True, related_name="next",
                                    verbose_name=_("previous tenure"))
    #: The capital is deposited at the cage (``CashierSlip`` of kind ``bank_deposit``, one
    #: or more per syndicate member for his share) before the tenure's first hand: the
    #: pit's openings (draw, auction, sale). False: it was taken from the syndicate's chips
    #: on record at the opening (a 7½ takeover, a transfer at the table, an import).
    #: [Melilla casino rules 2014 art. 52]
    deposit_required = models.BooleanField(_("capital deposited at the cage"), default=False)

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("bank tenure")
        verbose_name_plural = _("bank tenures")
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(closed_at__isnull=True),
                                    name="tables_one_open_tenure_per_table"),
            models.CheckConstraint(condition=Q(capital__gte=0), name="tables_tenure_capital_not_negative"),
            models.CheckConstraint(
                condition=(Q(began="sale", price__gt=0, seller__isnull=False)
                           | (~Q(began="sale") & Q(price__isnull=True, seller__isnull=True))),
                name="tables_tenure_sale_has_price"),
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True, ended="") | (Q(closed_at__isnull=False) & ~Q(ended="")),
                name="tables_tenure_closed_has_end"),
        ]

    def __str__(self):
        return f"{self.table} · {self.holder} · #{self.pk}"

    @property
    def is_open(self):
        return self.closed_at is None


class SyndicateShare(models.Model):
    """A player's percentage of a bank tenure: of its capital in, and of its balance out.

    ``percent`` is a Decimal with two places, above 0; a tenure's shares sum to 100
    (checked by a deferred trigger in PostgreSQL). [seed 003: a bank owned by a team]
    """

    tenure = models.ForeignKey(BankTenure, models.PROTECT, related_name="shares", verbose_name=_("tenure"))
    player = models.ForeignKey(Player, models.PROTECT, related_name="syndicate_shares", verbose_name=_("player"))
    percent = models.DecimalField(_("percent"), max_digits=5, decimal_places=2)

    class Meta:
        ordering = ["tenure", "id"]
        verbose_name = _("syndicate share")
        verbose_name_plural = _("syndicate shares")
        constraints = [
            models.UniqueConstraint(fields=["tenure", "player"], name="tables_share_one_per_player"),
            models.CheckConstraint(condition=Q(percent__gt=0, percent__lte=100), name="tables_share_percent_range"),
        ]

    def __str__(self):
        return f"{self.player} {self.percent} %"


class BankAuction(models.Model):
    """The bank put up for auction at a table without a banker: bids recorded by the pit,
    the highest wins, a tie settled by a draw of lots that is recorded (``draw``: the
    tied players and the one drawn). Awarded for ``sessions`` sessions (one or more); the
    winner's bid is the bank's capital (``tenure``, began ``auction``). [France, arrêté
    of 14 May 2007 art. 61; Melilla casino rules 2014 art. 52]
    """

    table = models.ForeignKey(Table, models.PROTECT, related_name="bank_auctions", verbose_name=_("table"))
    sessions = models.PositiveSmallIntegerField(_("sessions awarded"), default=1)
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                  verbose_name=_("opened by"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    awarded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                   related_name="+", verbose_name=_("awarded by"))
    awarded_at = models.DateTimeField(_("awarded at"), null=True, blank=True)
    winner = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="auctions_won",
                               verbose_name=_("winner"))
    amount = models.DecimalField(_("winning bid"), null=True, blank=True, **MONEY)
    draw = models.JSONField(_("draw of lots"), default=dict, blank=True,
                            help_text=_("the tied bidders and the one drawn, when the highest bids tied"))
    tenure = models.OneToOneField(BankTenure, models.PROTECT, null=True, blank=True, related_name="auction",
                                  verbose_name=_("bank tenure"))

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("bank auction")
        verbose_name_plural = _("bank auctions")
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(awarded_at__isnull=True),
                                    name="tables_one_open_auction_per_table"),
            models.CheckConstraint(condition=Q(sessions__gte=1), name="tables_auction_sessions_from_one"),
            models.CheckConstraint(
                condition=(Q(awarded_at__isnull=True, winner__isnull=True, amount__isnull=True, tenure__isnull=True)
                           | Q(awarded_at__isnull=False, winner__isnull=False, amount__gt=0,
                               tenure__isnull=False, awarded_by__isnull=False)),
                name="tables_auction_awarded_whole"),
        ]

    def __str__(self):
        return f"{self.table} · auction #{self.pk}"


class BankBid(models.Model):
    """One bid for the bank, recorded by the pit: a player offers ``amount`` (Decimal
    euros > 0) as the bank's capital. Never changed; a higher bid is a new row."""

    auction = models.ForeignKey(BankAuction, models.PROTECT, related_name="bids", verbose_name=_("auction"))
    player = models.ForeignKey(Player, models.PROTECT, related_name="bank_bids", verbose_name=_("player"))
    amount = models.DecimalField(_("bid"), **MONEY)
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)

    class Meta:
        ordering = ["auction", "id"]
        verbose_name = _("bid for the bank")
        verbose_name_plural = _("bids for the bank")
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="tables_bid_amount_positive")]

    def __str__(self):
        return f"{self.player} {self.amount}"


class BankRebuild(models.Model):
    """A wiped-out bank's rebuild ordered by the pit between hands: ``amount`` (Decimal
    euros above zero, at least the bank's first amount less what it held, ``held``) is
    deposited at the cage by its syndicate, each member his share by largest remainder
    (``CashierSlip`` of kind ``bank_deposit`` with ``rebuild`` set); the console opens no
    hand until it is deposited (PostgreSQL too: ``tables/sql/guards.sql``) or the bank is given up.
    ``number`` counts the tenure's rebuilds from 1. Written once, never changed.
    [Melilla casino rules 2014 art. 52: "a bank wiped out is rebuilt to at least
    its first amount or given up"; "the bank's money is deposited at the cage before play"]
    """

    tenure = models.ForeignKey(BankTenure, models.PROTECT, related_name="rebuilds", verbose_name=_("tenure"))
    number = models.PositiveIntegerField(_("number"))
    amount = models.DecimalField(_("amount"), **MONEY)
    held = models.DecimalField(_("the bank held"), **MONEY)
    ordered_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="bank_rebuilds",
                                   verbose_name=_("ordered by"))
    ordered_at = models.DateTimeField(_("ordered at"), default=timezone.now)

    class Meta:
        ordering = ["tenure", "number"]
        verbose_name = _("bank rebuild")
        verbose_name_plural = _("bank rebuilds")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_rebuild_amount_positive"),
            models.UniqueConstraint(fields=["tenure", "number"], name="tables_rebuild_number_per_tenure"),
        ]

    def __str__(self):
        return f"{self.tenure} · rebuild {self.number}"


class BankWithdrawal(models.Model):
    """Part of a bank drawn down by its holder after a hand (``tables.bank.life.bank_withdraw``),
    ordered by the pit: the business record its posting (``transaction``, kind
    ``bank_withdrawal``) points back at. ``number`` counts the tenure's withdrawals from 1;
    ``amount`` is Decimal euros above zero; ``in_play`` the stakes of the hand open then
    (Decimal euros). Written once with its posting, never changed or deleted (PostgreSQL:
    ``tables/sql/0007_bank_withdrawals.sql``).
    """

    tenure = models.ForeignKey(BankTenure, models.PROTECT, related_name="withdrawals", verbose_name=_("tenure"))
    number = models.PositiveIntegerField(_("number"))
    amount = models.DecimalField(_("amount"), **MONEY)
    in_play = models.DecimalField(_("in play"), default=0, **MONEY)
    transaction = models.OneToOneField(Transaction, models.PROTECT, related_name="bank_withdrawal",
                                       verbose_name=_("transaction"))
    ordered_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="bank_withdrawals",
                                   verbose_name=_("ordered by"))
    ordered_at = models.DateTimeField(_("ordered at"), default=timezone.now)

    class Meta:
        ordering = ["tenure", "number"]
        verbose_name = _("bank withdrawal")
        verbose_name_plural = _("bank withdrawals")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="tables_withdrawal_amount_positive"),
            models.UniqueConstraint(fields=["tenure", "number"], name="tables_withdrawal_number_per_tenure"),
        ]

    def __str__(self):
        return f"{self.tenure} · withdrawal {self.number}"


# ---------------------------------------------------------------------------------------
# The dispute desk: a patron's dispute of a hand, and the floor's incidents

class Dispute(models.Model):
    """A patron's dispute of a hand, opened by a pit supervisor and decided once.

    Never deleted; once decided, never changed (PostgreSQL: ``tables/sql/0003_disputes.sql``
    refuses a delete and any update but open → decided, once). ``void`` is the hand's void
    entry when the decision upheld the claim and voided the hand (``hand_void``, the usual
    path); the hand is then re-entered at the console as a new hand.
    """

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        DECIDED = "decided", _("decided")

    class Outcome(models.TextChoices):
        UPHELD = "upheld", _("upheld")
        REJECTED = "rejected", _("rejected")

    hand = models.ForeignKey(Hand, models.PROTECT, related_name="disputes", verbose_name=_("hand"))
    player = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="disputes",
                               verbose_name=_("patron"))
    claim = models.TextField(_("what is claimed"))
    opened_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                  verbose_name=_("opened by"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.OPEN)
    outcome = models.CharField(_("outcome"), max_length=8, choices=Outcome.choices, blank=True)
    decision = models.TextField(_("decision"), blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                   related_name="+", verbose_name=_("decided by"))
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    void = models.OneToOneField(HandEvent, models.PROTECT, null=True, blank=True, related_name="dispute",
                                verbose_name=_("the hand's void"))

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("dispute")
        verbose_name_plural = _("disputes")
        constraints = [
            models.CheckConstraint(condition=~Q(claim=""), name="tables_dispute_has_claim"),
            models.CheckConstraint(
                condition=(Q(status="open", outcome="", decision="", decided_by__isnull=True,
                             decided_at__isnull=True, void__isnull=True)
                           | (Q(status="decided", outcome__in=["upheld", "rejected"], decided_by__isnull=False,
                                decided_at__isnull=False) & ~Q(decision=""))),
                name="tables_dispute_decided_whole"),
            models.CheckConstraint(condition=Q(void__isnull=True) | Q(outcome="upheld"),
                                   name="tables_dispute_void_if_upheld"),
        ]
        indexes = [models.Index(fields=["hand"], name="tables_dispute_hand_idx")]

    def __str__(self):
        return f"{self.hand} · dispute #{self.pk}"


class Incident(models.Model):
    """An incident at a table recorded by the pit: a card exposed, a misdeal, a patron's
    behaviour, other; with its hand and its patron when there are. Written once, never
    changed or deleted (PostgreSQL: ``tables/sql/0003_disputes.sql``)."""

    class Kind(models.TextChoices):
        CARD_EXPOSED = "card_exposed", _("a card exposed")
        MISDEAL = "misdeal", _("a misdeal")
        BEHAVIOUR = "behaviour", _("a patron's behaviour")
        OTHER = "other", _("other")

    table = models.ForeignKey(Table, models.PROTECT, related_name="incidents", verbose_name=_("table"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    hand = models.ForeignKey(Hand, models.PROTECT, null=True, blank=True, related_name="incidents",
                             verbose_name=_("hand"))
    player = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="incidents",
                               verbose_name=_("patron"))
    text = models.TextField(_("what happened"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)

    class Meta:
        ordering = ["-recorded_at", "-id"]
        verbose_name = _("incident")
        verbose_name_plural = _("incidents")
        constraints = [models.CheckConstraint(condition=~Q(text=""), name="tables_incident_has_text")]

    def __str__(self):
        return f"{self.table} · incident #{self.pk}"
