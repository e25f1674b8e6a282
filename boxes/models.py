"""The table's boxes: its drop box account, the table buy-ins, the boxes' counts and the
explanations of their variances.

A table *session* is a ``tables.Shift``: opened and closed by a pit supervisor with its
dealer, each signed (who, when). Its boxes are counted once it is closed, each by two
people, neither the session's dealer, by denomination. Nothing here is updated or
deleted (PostgreSQL triggers, ``boxes/sql/0002_guards.sql``): a wrong count stays, with its explanation.
[France, arrêté of 14 May 2007 art. 69]
"""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from ledger.models import MONEY, Account, Transaction
from patrons.models import Player
from tables.models import Shift, Table


class DropBox(models.Model):
    """A table's drop box: its ``ledger.Account`` of kind ``drop``, created on the table's
    first buy-in. Its balance is minus the cash the box holds (as the cage's)."""

    table = models.OneToOneField(Table, models.PROTECT, related_name="drop_box", verbose_name=_("table"))
    account = models.OneToOneField(Account, models.PROTECT, related_name="drop_box", verbose_name=_("account"))

    class Meta:
        verbose_name = _("drop box")
        verbose_name_plural = _("drop boxes")

    def __str__(self):
        return f"{self.table} · drop"


class TableBuyIn(models.Model):
    """Cash exchanged for chips at the table, into its drop box, entered by the dealer at
    the console: ``amount`` (Decimal euros > 0) credited to the player's chips and debited
    to the table's drop box account, in ``transaction``."""

    shift = models.ForeignKey(Shift, models.PROTECT, related_name="buy_ins", verbose_name=_("session"))
    player = models.ForeignKey(Player, models.PROTECT, related_name="table_buy_ins", verbose_name=_("player"))
    amount = models.DecimalField(_("amount"), **MONEY)
    transaction = models.OneToOneField(Transaction, models.PROTECT, related_name="table_buy_in",
                                       verbose_name=_("transaction"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)

    class Meta:
        ordering = ["shift", "id"]
        verbose_name = _("table buy-in")
        verbose_name_plural = _("table buy-ins")
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="boxes_buy_in_amount_positive")]

    def __str__(self):
        return f"{self.shift.table} · {self.player.code} {self.amount}"


class TipsBox(models.Model):
    """A session's tips box: its ``ledger.Account`` of kind ``tips_box``, created on the
    session's first chip tip. Its balance is the chips tipped into it (the players'
    chips debited, the box credited) until its count moves them to the tronc."""

    shift = models.OneToOneField(Shift, models.PROTECT, related_name="tips_box", verbose_name=_("session"))
    account = models.OneToOneField(Account, models.PROTECT, related_name="tips_box", verbose_name=_("account"))

    class Meta:
        verbose_name = _("tips box")
        verbose_name_plural = _("tips boxes")

    def __str__(self):
        return f"{self.shift} · tips"


class TableTip(models.Model):
    """A tip at the table, entered by the dealer at the console.

    ``kind`` ``chips``: a player's chips (``player``) dropped into the tips box; posted in
    ``transaction`` (his chips debited, the session's tips box credited). ``kind``
    ``cash``: cash a patron put straight into the box, recorded by the dealer without
    player or posting (the cash reaches the ledger when the box is counted into the
    cage). Both are what the tips box is expected to hold.
    """

    class Kind(models.TextChoices):
        CHIPS = "chips", _("chips")
        CASH = "cash", _("cash")

    shift = models.ForeignKey(Shift, models.PROTECT, related_name="tips", verbose_name=_("session"))
    kind = models.CharField(_("paid in"), max_length=5, choices=Kind.choices, default=Kind.CHIPS)
    player = models.ForeignKey(Player, models.PROTECT, null=True, blank=True, related_name="table_tips",
                               verbose_name=_("player"))
    amount = models.DecimalField(_("amount"), **MONEY)
    transaction = models.OneToOneField(Transaction, models.PROTECT, null=True, blank=True, related_name="table_tip",
                                       verbose_name=_("transaction"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)
    #: The form's token or the API's key, so a tip sent twice is recorded once (blank: none).
    key = models.CharField(_("idempotency key"), max_length=200, blank=True)

    class Meta:
        ordering = ["shift", "id"]
        verbose_name = _("tip at the table")
        verbose_name_plural = _("tips at the table")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="boxes_tip_amount_positive"),
            models.UniqueConstraint(fields=["key"], condition=~Q(key=""), name="boxes_tip_key_once"),
            models.CheckConstraint(
                condition=(Q(kind="chips", player__isnull=False, transaction__isnull=False)
                           | Q(kind="cash", player__isnull=True, transaction__isnull=True)),
                name="boxes_tip_chips_have_player_and_posting"),
        ]

    def __str__(self):
        return f"{self.shift.table} · tip {self.amount}"


class BoxCountQuerySet(models.QuerySet):
    def latest_counts(self):
        """The counts that stand: those no recount superseded."""
        return self.filter(superseded_by__isnull=True)


class BoxCount(models.Model):
    """One box of a closed session counted by two people, by denomination.

    ``denominations`` is ``{"50.00": 3, "0.50": 4}`` (face value in euros as a string with
    two places: how many pieces); ``total`` their sum. ``expected`` is what the session's
    records say the box holds (the drop: its table buy-ins; the cagnotte: the commission
    its settled hands computed; tips: the tips recorded at the console, chips and cash)
    and ``variance`` is ``total − expected`` (negative: short), kept at the count.

    A recount is a new row that ``supersedes`` the earlier one, with its ``reason``: the
    earlier stays on record, the latest (no ``superseded_by``) is the one that counts.
    ``transaction`` is the count's posting (the drop into the cage, the tips into the
    tronc; a recount posts the difference), null when there is nothing to post.
    """

    class Box(models.TextChoices):
        DROP = "drop", _("drop box")
        CAGNOTTE = "cagnotte", _("cagnotte box")
        TIPS = "tips", _("tips box")

    shift = models.ForeignKey(Shift, models.PROTECT, related_name="box_counts", verbose_name=_("session"))
    box = models.CharField(_("box"), max_length=8, choices=Box.choices)
    denominations = models.JSONField(_("pieces by denomination"))
    total = models.DecimalField(_("counted"), **MONEY)
    expected = models.DecimalField(_("expected"), null=True, blank=True, **MONEY)
    variance = models.DecimalField(_("variance"), null=True, blank=True, **MONEY)
    first_counter = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                      verbose_name=_("first counter"))
    second_counter = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                       verbose_name=_("second counter"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                    verbose_name=_("recorded by"))
    counted_at = models.DateTimeField(_("counted at"), default=timezone.now)
    supersedes = models.OneToOneField("self", models.PROTECT, null=True, blank=True, related_name="superseded_by",
                                      verbose_name=_("recount of"))
    reason = models.TextField(_("reason for the recount"), blank=True)
    transaction = models.OneToOneField(Transaction, models.PROTECT, null=True, blank=True, related_name="box_count",
                                       verbose_name=_("transaction"))

    objects = BoxCountQuerySet.as_manager()

    class Meta:
        ordering = ["shift", "box", "id"]
        verbose_name = _("box count")
        verbose_name_plural = _("box counts")
        constraints = [
            models.UniqueConstraint(fields=["shift", "box"], condition=Q(supersedes__isnull=True),
                                    name="boxes_one_first_count_per_box"),
            models.CheckConstraint(condition=Q(supersedes__isnull=True) | ~Q(reason=""),
                                   name="boxes_recount_has_reason"),
            models.CheckConstraint(condition=~Q(first_counter=F("second_counter")), name="boxes_two_counters"),
            models.CheckConstraint(condition=Q(total__gte=0), name="boxes_count_not_negative"),
            models.CheckConstraint(condition=Q(box__in=["drop", "cagnotte", "tips"]), name="boxes_box_valid"),
            models.CheckConstraint(
                condition=(Q(expected__isnull=True, variance__isnull=True)
                           | Q(expected__isnull=False, variance=F("total") - F("expected"))),
                name="boxes_variance_is_total_less_expected"),
        ]

    def __str__(self):
        return f"{self.shift} · {self.box} {self.total}"

    @property
    def is_latest(self):
        """True unless a recount superseded it."""
        try:
            return self.superseded_by is None
        except BoxCount.DoesNotExist:
            return True
        return False

    @property
    def pieces(self):
        """``[(face value Decimal, pieces int, amount Decimal)]``, highest value first."""
        from decimal import Decimal

        rows = [(Decimal(value), int(count)) for value, count in self.denominations.items()]
        return [(value, count, value * count) for value, count in sorted(rows, reverse=True)]


class VarianceNote(models.Model):
    """A supervisor's explanation of a count's variance (who, when, why): the variance
    is no longer an open exception, and stays on record with its explanation."""

    count = models.OneToOneField(BoxCount, models.PROTECT, related_name="note", verbose_name=_("count"))
    text = models.TextField(_("explanation"))
    explained_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                     verbose_name=_("explained by"))
    explained_at = models.DateTimeField(_("explained at"), default=timezone.now)

    class Meta:
        verbose_name = _("variance explanation")
        verbose_name_plural = _("variance explanations")
        constraints = [models.CheckConstraint(condition=~Q(text=""), name="boxes_note_has_text")]

    def __str__(self):
        return f"{self.count} · {self.text[:40]}"


class TroncDistribution(models.Model):
    """The tronc (the tips counted at the tables) shared out by the configured policy:
    ``staff_percent`` to the staff pool, the rest to the casino; the pool among the
    dealers by the minutes of their sessions whose tips it shares. ``counts`` are the tips
    counts it distributes (each once); ``transaction`` posts it (the tronc debited, the
    house credited the casino's part, the cage credited the staff's, paid out).
    [Madrid, Decreto 58/2006 art. 19.6: tips shared between staff and casino]"""

    counts = models.ManyToManyField(BoxCount, related_name="tronc_distributions", verbose_name=_("tips counts"))
    total = models.DecimalField(_("total"), **MONEY)
    staff_percent = models.DecimalField(_("staff's percent"), max_digits=5, decimal_places=2)
    staff_total = models.DecimalField(_("staff pool"), **MONEY)
    casino_total = models.DecimalField(_("casino's part"), **MONEY)
    transaction = models.OneToOneField(Transaction, models.PROTECT, related_name="tronc_distribution",
                                       verbose_name=_("transaction"))
    made_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+",
                                verbose_name=_("made by"))
    made_at = models.DateTimeField(_("made at"), default=timezone.now)

    class Meta:
        ordering = ["-made_at", "-id"]
        verbose_name = _("tronc distribution")
        verbose_name_plural = _("tronc distributions")
        constraints = [
            models.CheckConstraint(condition=Q(total=F("staff_total") + F("casino_total")),
                                   name="boxes_tronc_parts_add_up"),
            models.CheckConstraint(condition=Q(total__gt=0, staff_total__gte=0, casino_total__gte=0,
                                               staff_percent__gte=0, staff_percent__lte=100),
                                   name="boxes_tronc_amounts_valid"),
        ]

    def __str__(self):
        return f"tronc #{self.pk} {self.total}"


class TroncShare(models.Model):
    """One staff member's part of a distribution's pool: his ``minutes`` at the tables
    (from his sessions) and ``amount`` (Decimal euros)."""

    distribution = models.ForeignKey(TroncDistribution, models.PROTECT, related_name="shares",
                                     verbose_name=_("distribution"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="+", verbose_name=_("staff"))
    minutes = models.PositiveIntegerField(_("minutes worked"))
    amount = models.DecimalField(_("amount"), **MONEY)

    class Meta:
        ordering = ["distribution", "id"]
        verbose_name = _("tronc share")
        verbose_name_plural = _("tronc shares")
        constraints = [models.UniqueConstraint(fields=["distribution", "user"], name="boxes_tronc_one_share_each")]

    def __str__(self):
        return f"{self.user} {self.amount}"
