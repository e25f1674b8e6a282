"""The cage's records: cashiers' drawers, and the anti-money-laundering (AML) records.

Money is ``Decimal`` euros with two places (``DecimalField(14, 2)``), never a float.

- ``Drawer``: a cashier's cash drawer from its opening float to its close. The float and
  the closing count are counted by denomination (``{"50.00": 3, "0.20": 7}``: euro notes
  and coins, ``cage.denominations``); at the close the expected amount (float + cash in −
  cash out of its slips), the count, the variance (count − expected) and both signatures
  (the cashier and a cage supervisor, never the same person) are stored. Slips
  (``ledger.CashierSlip.drawer``) are booked only against an open drawer of their cashier.
- ``AmlMovement``: one patron's part of a cage movement, a bank's capital in, its
  distribution or a sale price, with its gaming day; ``AmlAlert``: what the movements of
  a patron's gaming day raised (structuring; in the US profile a currency transaction
  report); ``AmlReview``: a compliance officer's note on an alert; ``IdentityRecord``: a
  patron's identity as recorded, with who recorded it.

In PostgreSQL (``cage/sql/0002_guards.sql``): drawers are never deleted and a closed drawer never
changes; AML records and identity records are append-only, and a DELETE is refused while
their ``retain_until`` (the gaming day + ``AML_RETENTION_YEARS``) has not passed.
[EU Directive 2015/849 art. 11(d), 40; Ley 10/2010 art. 7, 25; RD 304/2014 art. 28]
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ledger.models import MONEY, Transaction
from patrons.models import Player
from tables.models import BankRebuild, BankTenure


class Drawer(models.Model):
    """A cashier's drawer: open from ``opened_at`` until ``closed_at``.

    ``float_count`` and ``closing_count`` map a denomination (a string of euros with two
    places) to how many pieces were counted; ``float_amount`` and ``counted`` are their
    totals. At the close: ``cash_in`` and ``cash_out`` (the slips' totals), ``expected``
    (float + cash in − cash out), ``variance`` (counted − expected; negative: short),
    ``tolerance`` (``CAGE_DRAWER_TOLERANCE`` then), the cashier's signature (``closed_by``,
    the cashier himself) and the supervisor's (``supervisor``). At most one open drawer
    per cashier. ``float_transaction`` and ``close_transaction`` are the ledger's postings
    of its float lent and of its close (none when there was nothing to post): the records
    those postings point back at (``reports.justification``).
    """

    cashier = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="drawers",
                                verbose_name=_("cashier"))
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    float_count = models.JSONField(_("float by denomination"))
    float_amount = models.DecimalField(_("float"), **MONEY)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)
    closing_count = models.JSONField(_("count by denomination"), null=True, blank=True)
    counted = models.DecimalField(_("counted"), null=True, blank=True, **MONEY)
    cash_in = models.DecimalField(_("cash in"), null=True, blank=True, **MONEY)
    cash_out = models.DecimalField(_("cash out"), null=True, blank=True, **MONEY)
    expected = models.DecimalField(_("expected"), null=True, blank=True, **MONEY)
    variance = models.DecimalField(_("variance"), null=True, blank=True, **MONEY)
    tolerance = models.DecimalField(_("tolerance"), null=True, blank=True, **MONEY)
    supervisor = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                   related_name="drawers_signed", verbose_name=_("supervisor"))
    note = models.TextField(_("note"), blank=True)
    float_transaction = models.OneToOneField(Transaction, models.PROTECT, null=True, blank=True,
                                             related_name="drawer_floated", verbose_name=_("float's posting"))
    close_transaction = models.OneToOneField(Transaction, models.PROTECT, null=True, blank=True,
                                             related_name="drawer_closed", verbose_name=_("close's posting"))

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("drawer")
        verbose_name_plural = _("drawers")
        constraints = [
            models.UniqueConstraint(fields=["cashier"], condition=Q(closed_at__isnull=True),
                                    name="cage_one_open_drawer_per_cashier"),
            models.CheckConstraint(condition=Q(float_amount__gte=0), name="cage_drawer_float_not_negative"),
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True, closing_count__isnull=True, counted__isnull=True,
                            expected__isnull=True, variance__isnull=True, supervisor__isnull=True)
                | Q(closed_at__isnull=False, closing_count__isnull=False, counted__gte=0, cash_in__gte=0,
                    cash_out__gte=0, expected__isnull=False, variance=F("counted") - F("expected"),
                    tolerance__gte=0, supervisor__isnull=False),
                name="cage_drawer_closed_in_full"),
            models.CheckConstraint(condition=~Q(supervisor=F("cashier")), name="cage_drawer_two_signatures"),
        ]

    def __str__(self):
        return f"#{self.pk} · {self.cashier}"

    @property
    def is_open(self):
        return self.closed_at is None

    @property
    def beyond_tolerance(self):
        """True when closed with a variance above its tolerance (an audit exception)."""
        return self.variance is not None and abs(self.variance) > self.tolerance


class CashierSlip(models.Model):
    """A numbered cashier's slip: a buy-in (cash in, chips out), a cash-out (chips in,
    cash out) or a bank deposit (cash in, into a bank tenure's account: ``tenure`` and the
    depositing syndicate member ``player``, for his share of its capital). ``number`` is
    sequential without gaps (taken under the cage account's row lock); ``amount`` is
    Decimal euros above zero; ``balance_after`` is the player's chips just after the slip, as they were at issue (Decimal euros, stored at booking under the
    account's row lock). A slip
    is never changed: a void is a ``SlipVoid`` with its reversal."""

    class Kind(models.TextChoices):
        BUY_IN = "buy_in", _("buy-in")
        CASH_OUT = "cash_out", _("cash-out")
        BANK_DEPOSIT = "bank_deposit", _("bank deposit")

    number = models.PositiveBigIntegerField(_("number"), unique=True)
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    player = models.ForeignKey(Player, models.PROTECT, related_name="cashier_slips", verbose_name=_("player"))
    amount = models.DecimalField(_("amount"), **MONEY)
    balance_after = models.DecimalField(_("balance after the slip"), **MONEY)
    transaction = models.OneToOneField(Transaction, models.PROTECT, related_name="slip",
                                       verbose_name=_("transaction"))
    issued_at = models.DateTimeField(_("issued at"), default=timezone.now)
    issued_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="cashier_slips",
                                  verbose_name=_("issued by"))
    # The cashier's open drawer it was booked against (null only for slips of before the
    # drawers; PostgreSQL refuses a new slip without one: cage/migrations/0002).
    drawer = models.ForeignKey(Drawer, models.PROTECT, null=True, blank=True, related_name="slips",
                               verbose_name=_("drawer"))
    # A bank deposit's tenure (null for every other kind: CHECK below).
    tenure = models.ForeignKey(BankTenure, models.PROTECT, null=True, blank=True, related_name="deposits",
                               verbose_name=_("bank tenure"))
    # A deposit for a rebuild the pit ordered (null: for the bank's capital, or no deposit).
    rebuild = models.ForeignKey(BankRebuild, models.PROTECT, null=True, blank=True, related_name="deposits",
                                verbose_name=_("bank rebuild"))

    class Meta:
        ordering = ["-number"]
        verbose_name = _("cashier slip")
        verbose_name_plural = _("cashier slips")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="cage_slip_amount_positive"),
            models.CheckConstraint(condition=Q(kind="bank_deposit", tenure__isnull=False)
                                   | (~Q(kind="bank_deposit") & Q(tenure__isnull=True)),
                                   name="cage_slip_deposit_has_tenure"),
            models.CheckConstraint(condition=Q(rebuild__isnull=True) | Q(kind="bank_deposit"),
                                   name="cage_slip_rebuild_is_a_deposit"),
        ]

    def __str__(self):
        return f"{self.number:06d}"

    @property
    def reference(self):
        """``slip 000123``: how the slip's transaction names it."""
        return f"slip {self.number:06d}"


class SlipVoid(models.Model):
    """A cashier slip voided by a cage supervisor, never by the cashier who issued it:
    ``reason`` (not empty), who and when, ``reversal``, the ledger transaction that
    reverses the slip's posting, and ``drawer``, the open drawer that paid or took the
    void's cash. One per slip; never changed or deleted, and booked only into an open
    drawer (PostgreSQL triggers, ``cage/sql/0002_guards.sql``,
    ``cage/sql/0003_void_drawer.sql``)."""

    slip = models.OneToOneField(CashierSlip, models.PROTECT, related_name="void", verbose_name=_("slip"))
    reason = models.TextField(_("reason"))
    voided_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="slip_voids",
                                  verbose_name=_("voided by"))
    voided_at = models.DateTimeField(_("voided at"), default=timezone.now)
    reversal = models.OneToOneField(Transaction, models.PROTECT, related_name="slip_void",
                                    verbose_name=_("reversal"))
    # The open drawer whose cash the void moved (``cage.services.drawer.drawer_for_void``):
    # the slip's own while open, else the voiding supervisor's or the slip's cashier's
    # current one; a closed drawer's figures never change. Null only for voids of before
    # this field, whose cash went back to the slip's own drawer.
    drawer = models.ForeignKey(Drawer, models.PROTECT, null=True, blank=True, related_name="voids",
                               verbose_name=_("drawer"))

    class Meta:
        ordering = ["-voided_at"]
        verbose_name = _("slip void")
        verbose_name_plural = _("slip voids")
        constraints = [models.CheckConstraint(condition=~Q(reason=""), name="cage_slipvoid_has_reason")]

    def __str__(self):
        return f"{self.slip} void"


class AmlMovementQuerySet(models.QuerySet):
    """AML movements, with the ones that stand told from the ones whose posting was voided."""

    def standing(self):
        """The movements whose transaction was not reversed (a voided slip's stays in the
        register, marked, but no longer adds to the patron's day: its cash went back)."""
        return self.filter(transaction__reversal__isnull=True)


class AmlMovement(models.Model):
    """One patron's part of a movement the AML rules add up per gaming day.

    ``direction`` is ``in`` (the patron hands cash or chips to the cage or a bank) or
    ``out`` (he receives them); ``amount`` Decimal euros above zero; ``gaming_day`` the
    casino's day (``AML_GAMING_DAY_START`` hour, ``TIME_ZONE``) of ``at``.
    ``identified``: the patron's identity was on file then; ``recorded_by`` null for a
    system posting.
    """

    class Kind(models.TextChoices):
        BUY_IN = "buy_in", _("buy-in")
        CASH_OUT = "cash_out", _("cash-out")
        CAPITAL_IN = "capital_in", _("bank capital in")
        DISTRIBUTION = "distribution", _("bank distribution")
        BANK_SALE = "bank_sale", _("bank sale price")
        TABLE_BUY_IN = "table_buy_in", _("table buy-in")

    class Direction(models.TextChoices):
        IN = "in", _("in")
        OUT = "out", _("out")

    player = models.ForeignKey(Player, models.PROTECT, related_name="aml_movements", verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    direction = models.CharField(_("direction"), max_length=3, choices=Direction.choices)
    amount = models.DecimalField(_("amount"), **MONEY)
    at = models.DateTimeField(_("at"))
    gaming_day = models.DateField(_("gaming day"))
    transaction = models.ForeignKey(Transaction, models.PROTECT, related_name="aml_movements",
                                    verbose_name=_("transaction"))
    identified = models.BooleanField(_("identity on file"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                    related_name="+", verbose_name=_("recorded by"))
    retain_until = models.DateField(_("kept until"))

    objects = AmlMovementQuerySet.as_manager()

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("AML movement")
        verbose_name_plural = _("AML movements")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="cage_aml_amount_positive"),
            models.UniqueConstraint(fields=["transaction", "player", "direction"], name="cage_aml_one_per_leg"),
        ]
        indexes = [models.Index(fields=["gaming_day", "player"], name="cage_aml_day_player")]

    def __str__(self):
        return f"{self.gaming_day} · {self.player_id} · {self.kind} {self.direction} {self.amount}"


class AmlRefusal(models.Model):
    """An attempted movement the AML rules refused: a staff member's buy-in, cash-out,
    deposit or bank movement that would have taken a patron without identity on file to
    the threshold (``cage.services.aml.aml_check``). Nothing of the movement was posted;
    this record keeps the attempt. [Directive (EU) 2015/849 art. 33(1)(a): suspicious
    transactions "including attempted transactions"; Ley 10/2010 art. 18]

    ``amount`` Decimal euros of the attempt; ``day_total`` the patron's standing day with
    it; ``threshold`` the one it reached; ``refused_by`` the staff member whose entry was
    refused; ``source`` the posting's channel (``cashier``, ``pit``…).
    """

    player = models.ForeignKey(Player, models.PROTECT, related_name="aml_refusals", verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=16, choices=AmlMovement.Kind.choices)
    direction = models.CharField(_("direction"), max_length=3, choices=AmlMovement.Direction.choices)
    amount = models.DecimalField(_("amount"), **MONEY)
    day_total = models.DecimalField(_("day's total with it"), **MONEY)
    threshold = models.DecimalField(_("threshold"), **MONEY)
    at = models.DateTimeField(_("at"))
    gaming_day = models.DateField(_("gaming day"))
    refused_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                   verbose_name=_("entered by"))
    source = models.CharField(_("source"), max_length=32, blank=True)
    retain_until = models.DateField(_("kept until"))

    class Meta:
        ordering = ["at", "id"]
        verbose_name = _("refused AML movement")
        verbose_name_plural = _("refused AML movements")
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="cage_aml_refusal_amount_positive")]
        indexes = [models.Index(fields=["gaming_day", "player"], name="cage_aml_refusal_day_player")]

    def __str__(self):
        return f"{self.gaming_day} · {self.player_id} · refused {self.kind} {self.amount}"


class AmlAlert(models.Model):
    """What a patron's gaming day raised.

    Kinds: ``structuring`` (several movements, each under the threshold, together at or
    above it), ``ctr`` (US: the day's cash in, or out, above the currency transaction
    report's threshold), ``unidentified`` (a system posting, which cannot be refused,
    reached the threshold without an identity on file). ``total`` Decimal euros: the
    day's total that raised it; ``movement`` the movement that did.
    """

    class Kind(models.TextChoices):
        STRUCTURING = "structuring", _("structuring")
        CTR = "ctr", _("currency transaction report")
        UNIDENTIFIED = "unidentified", _("threshold reached without identity")

    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    player = models.ForeignKey(Player, models.PROTECT, related_name="aml_alerts", verbose_name=_("player"))
    gaming_day = models.DateField(_("gaming day"))
    total = models.DecimalField(_("total"), **MONEY)
    movements = models.PositiveIntegerField(_("movements"))
    movement = models.ForeignKey(AmlMovement, models.PROTECT, related_name="alerts", verbose_name=_("movement"))
    raised_at = models.DateTimeField(_("raised at"), default=timezone.now)
    retain_until = models.DateField(_("kept until"))

    class Meta:
        ordering = ["-gaming_day", "-id"]
        verbose_name = _("AML alert")
        verbose_name_plural = _("AML alerts")
        constraints = [
            models.UniqueConstraint(fields=["kind", "player", "gaming_day"], name="cage_aml_alert_once_a_day"),
        ]

    def __str__(self):
        return f"#{self.pk} {self.kind} · {self.player_id} · {self.gaming_day}"


class AmlReview(models.Model):
    """A compliance officer's review of an alert: his note, who, when. Several may follow
    one another; the latest stands."""

    alert = models.ForeignKey(AmlAlert, models.PROTECT, related_name="reviews", verbose_name=_("alert"))
    note = models.TextField(_("note"))
    reviewed_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("reviewed by"))
    reviewed_at = models.DateTimeField(_("reviewed at"), default=timezone.now)
    retain_until = models.DateField(_("kept until"))

    class Meta:
        ordering = ["-reviewed_at", "-id"]
        verbose_name = _("AML review")
        verbose_name_plural = _("AML reviews")
        constraints = [models.CheckConstraint(condition=~Q(note=""), name="cage_aml_review_has_note")]

    def __str__(self):
        return f"#{self.alert_id} · {self.reviewed_by_id} · {self.reviewed_at:%Y-%m-%d %H:%M}"
