"""The double-entry ledger: accounts, transactions, entries, bank tenures, cashier slips.

Money is ``Decimal`` euros with two places in ``DecimalField(14, 2)`` columns (the engine's
integer cents become euros at the boundary, ``ledger.money``); never a float.

Sign convention: an account's ``balance`` is **credits − debits**, i.e. what the account's
owner holds: a player's chips, a bank tenure's bank, the house's commission are positive.
The cage's cash account is their counterpart: its balance is minus the cash the cage has
taken in (cash is an asset the cage holds for the chips it issued). Every transaction
balances, so all balances always sum to zero.

In PostgreSQL (migration 0002) the database itself refuses: a transaction whose entries do
not balance or that has fewer than two entries (deferred constraint triggers), any UPDATE
or DELETE of a transaction, entry, syndicate share or cashier slip, a DELETE of an account
or tenure, an UPDATE of an account other than its ``balance`` and ``is_open``, and a
tenure's shares not summing to 100. Amounts are positive by CHECK constraint. A mistake is
corrected by a reversal transaction (``Transaction.reverses`` / ``original.reversal``).
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tables.models import Player, Table

MONEY = {"max_digits": 14, "decimal_places": 2}


class BankTenure(models.Model):
    """One holder's time with the bank at a table, from ``opened_at`` to ``closed_at``.

    The tenure's money is its ``Account`` (kind ``tenure``); ``capital`` (Decimal euros,
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
    #: [issue 16; Melilla casino rules 2014 art. 52]
    deposit_required = models.BooleanField(_("capital deposited at the cage"), default=False)

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("bank tenure")
        verbose_name_plural = _("bank tenures")
        constraints = [
            models.UniqueConstraint(fields=["table"], condition=Q(closed_at__isnull=True),
                                    name="ledger_one_open_tenure_per_table"),
            models.CheckConstraint(condition=Q(capital__gte=0), name="ledger_tenure_capital_not_negative"),
            models.CheckConstraint(
                condition=(Q(began="sale", price__gt=0, seller__isnull=False)
                           | (~Q(began="sale") & Q(price__isnull=True, seller__isnull=True))),
                name="ledger_tenure_sale_has_price"),
            models.CheckConstraint(
                condition=Q(closed_at__isnull=True, ended="") | (Q(closed_at__isnull=False) & ~Q(ended="")),
                name="ledger_tenure_closed_has_end"),
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
            models.UniqueConstraint(fields=["tenure", "player"], name="ledger_share_one_per_player"),
            models.CheckConstraint(condition=Q(percent__gt=0, percent__lte=100), name="ledger_share_percent_range"),
        ]

    def __str__(self):
        return f"{self.player} {self.percent} %"


class Account(models.Model):
    """Where money is: a player's chips, a tenure's bank, the house's commission, the cage,
    a table's drop box (the cash of its table buy-ins: ``boxes.DropBox`` names its table),
    a session's tips box (the chips tipped at the table: ``boxes.TipsBox`` names its
    session), the tips' tronc, and the count variances (over and short: what the boxes'
    counts found beyond or below the records, credits − debits).

    ``balance`` (Decimal euros, credits − debits) is kept by the posting transaction under
    a row lock, so reading it is one row. ``is_open`` is false once a tenure is closed:
    nothing more is posted to it. One account per player, per tenure, and one house and
    one cage account.
    """

    class Kind(models.TextChoices):
        PLAYER = "player", _("player chips")
        TENURE = "tenure", _("bank tenure")
        HOUSE = "house", _("house commission")
        CAGE = "cage", _("cage cash")
        DROP = "drop", _("table drop box")
        TRONC = "tronc", _("tips (tronc)")
        TIPS_BOX = "tips_box", _("table tips box")
        VARIANCE = "variance", _("count variances (over and short)")

    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    player = models.OneToOneField(Player, models.PROTECT, null=True, blank=True, related_name="account",
                                  verbose_name=_("player"))
    tenure = models.OneToOneField(BankTenure, models.PROTECT, null=True, blank=True, related_name="account",
                                  verbose_name=_("tenure"))
    balance = models.DecimalField(_("balance"), default=0, **MONEY)
    is_open = models.BooleanField(_("open"), default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="player", player__isnull=False, tenure__isnull=True)
                           | Q(kind="tenure", tenure__isnull=False, player__isnull=True)
                           | Q(kind__in=["house", "cage", "drop", "tronc", "tips_box", "variance"],
                               player__isnull=True, tenure__isnull=True)),
                name="ledger_account_owner_matches_kind"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind__in=["house", "cage"]),
                                    name="ledger_one_house_and_one_cage"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="tronc"), name="ledger_one_tronc"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="variance"), name="ledger_one_variance"),
        ]

    def __str__(self):
        if self.kind == self.Kind.PLAYER:
            return _("chips of %(player)s") % {"player": self.player.code}
        if self.kind == self.Kind.TENURE:
            return _("bank tenure #%(tenure)s") % {"tenure": self.tenure_id}
        return str(self.get_kind_display())

    @property
    def label(self):
        """A short stable name for reports: ``player:ana``, ``tenure:12``, ``house``, ``cage``."""
        if self.kind == self.Kind.PLAYER:
            return f"player:{self.player.code}"
        if self.kind == self.Kind.TENURE:
            return f"tenure:{self.tenure_id}"
        if self.kind in (self.Kind.DROP, self.Kind.TIPS_BOX):
            return f"{self.kind}:{self.id}"
        return self.kind


class Transaction(models.Model):
    """A balanced set of entries, posted once: never changed, never deleted.

    ``idempotency_key`` is unique (a second posting with the same key is refused);
    ``reference`` says what caused it ("hand Mesa 1 #12", "slip 000123"); ``posted_by``
    is the staff user, null only for system postings (``source`` starting with
    ``system``). A reversal points at its original through ``reverses``; the original
    finds it as ``original.reversal``.
    """

    class Kind(models.TextChoices):
        HAND = "hand", _("hand settlement")
        BUY_IN = "buy_in", _("buy-in")
        CASH_OUT = "cash_out", _("cash-out")
        CAPITAL_IN = "capital_in", _("bank capital in")
        DISTRIBUTION = "distribution", _("bank distribution")
        BANK_SALE = "bank_sale", _("bank sale")
        REVERSAL = "reversal", _("reversal")
        OPENING = "opening", _("opening chips (migration)")
        TRANSFER = "transfer", _("chip transfer")
        TABLE_BUY_IN = "table_buy_in", _("table buy-in")
        BANK_WITHDRAWAL = "bank_withdrawal", _("bank withdrawal")
        BANK_REBUILD = "bank_rebuild", _("bank rebuilt")
        TIPS = "tips", _("tips into the tronc")
        TRONC = "tronc", _("tronc distribution")
        TIP = "tip", _("tip at the table")
        BOX_COUNT = "box_count", _("box counted into the cage")

    kind = models.CharField(_("kind"), max_length=16, choices=Kind.choices)
    reference = models.CharField(_("reference"), max_length=200)
    idempotency_key = models.CharField(_("idempotency key"), max_length=200)
    posted_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                  related_name="ledger_transactions", verbose_name=_("posted by"))
    source = models.CharField(_("source"), max_length=64)
    posted_at = models.DateTimeField(_("posted at"), default=timezone.now)
    reverses = models.OneToOneField("self", models.PROTECT, null=True, blank=True, related_name="reversal",
                                    verbose_name=_("reverses"))
    memo = models.TextField(_("memo"), blank=True)
    tenure = models.ForeignKey(BankTenure, models.PROTECT, null=True, blank=True, related_name="transactions",
                               verbose_name=_("tenure"))
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    #: What caused it, as data (``ledger.references``): put into words when shown.
    cause = models.JSONField(_("cause"), default=dict, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name = _("transaction")
        verbose_name_plural = _("transactions")
        constraints = [
            models.UniqueConstraint(fields=["idempotency_key"], name="ledger_transaction_idempotency_key"),
            models.CheckConstraint(condition=Q(posted_by__isnull=False) | Q(source__startswith="system"),
                                   name="ledger_transaction_posted_by_or_system"),
            models.CheckConstraint(condition=Q(kind="reversal", reverses__isnull=False)
                                   | (~Q(kind="reversal") & Q(reverses__isnull=True)),
                                   name="ledger_transaction_reversal_links_original"),
            models.CheckConstraint(condition=~Q(idempotency_key="") & ~Q(reference=""),
                                   name="ledger_transaction_key_and_reference"),
        ]

    def __str__(self):
        return f"#{self.pk} {self.get_kind_display()} · {self.reference_words}"

    @property
    def reference_words(self):
        """What caused it, in the reader's language (``ledger.references.reference_text``)."""
        from ledger.references import reference_text

        return reference_text(self)

    @property
    def memo_words(self):
        """The memo as written by its author; a void's reversal converted from the English
        text of old rows shows the void's reason alone."""
        void = (self.cause or {}).get("void") or {}
        return void.get("reason", self.memo)

    @property
    def source_words(self):
        """The channel it came from, in words (``console`` → ``consola de mesa``)."""
        from ledger.references import source_text

        return source_text(self.source)


class Entry(models.Model):
    """One side of a transaction on one account: an unsigned ``amount`` > 0 (Decimal
    euros), debit or credit. Credits raise the account's balance, debits lower it."""

    class Side(models.TextChoices):
        DEBIT = "D", _("debit")
        CREDIT = "C", _("credit")

    transaction = models.ForeignKey(Transaction, models.PROTECT, related_name="entries",
                                    verbose_name=_("transaction"))
    # Indexed with ``id`` below (statements, running balances), not on its own.
    account = models.ForeignKey(Account, models.PROTECT, related_name="entries", db_index=False,
                                verbose_name=_("account"))
    side = models.CharField(_("side"), max_length=1, choices=Side.choices)
    amount = models.DecimalField(_("amount"), **MONEY)

    class Meta:
        ordering = ["id"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_entry_amount_positive"),
            models.CheckConstraint(condition=Q(side__in=["D", "C"]), name="ledger_entry_side_valid"),
        ]
        indexes = [models.Index(fields=["account", "id"], name="ledger_entry_account_id")]

    def __str__(self):
        return f"{self.get_side_display()} {self.amount} · {self.account_id}"

    @property
    def signed(self):
        """The entry's effect on its account's balance: +amount for a credit, −amount for a debit."""
        return self.amount if self.side == self.Side.CREDIT else -self.amount


class CashierSlip(models.Model):
    """A numbered cashier's slip: a buy-in (cash in, chips out), a cash-out (chips in,
    cash out) or a bank deposit (cash in, into a bank tenure's account: ``tenure`` and the
    depositing syndicate member ``player``, for his share of its capital). ``number`` is
    sequential without gaps (taken under the cage account's row lock); ``amount`` is
    Decimal euros above zero; ``balance_after`` is the player's chips just after the slip, as they were at issue (Decimal euros, stored at booking under the
    account's row lock; migration 0004 filled it in for the slips booked before). A slip
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
    drawer = models.ForeignKey("cage.Drawer", models.PROTECT, null=True, blank=True, related_name="slips",
                               verbose_name=_("drawer"))
    # A bank deposit's tenure (null for every other kind: CHECK below).
    tenure = models.ForeignKey(BankTenure, models.PROTECT, null=True, blank=True, related_name="deposits",
                               verbose_name=_("bank tenure"))
    # A deposit for a rebuild the pit ordered (null: for the bank's capital, or no deposit).
    rebuild = models.ForeignKey("BankRebuild", models.PROTECT, null=True, blank=True, related_name="deposits",
                                verbose_name=_("bank rebuild"))

    class Meta:
        ordering = ["-number"]
        verbose_name = _("cashier slip")
        verbose_name_plural = _("cashier slips")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_slip_amount_positive"),
            models.CheckConstraint(condition=Q(kind="bank_deposit", tenure__isnull=False)
                                   | (~Q(kind="bank_deposit") & Q(tenure__isnull=True)),
                                   name="ledger_slip_deposit_has_tenure"),
            models.CheckConstraint(condition=Q(rebuild__isnull=True) | Q(kind="bank_deposit"),
                                   name="ledger_slip_rebuild_is_a_deposit"),
        ]

    def __str__(self):
        return f"{self.number:06d}"

    @property
    def reference(self):
        """``slip 000123``: how the slip's transaction names it."""
        return f"slip {self.number:06d}"


class SlipVoid(models.Model):
    """A cashier slip voided by a cage supervisor, never by the cashier who issued it:
    ``reason`` (not empty), who and when, and ``reversal``, the ledger transaction that
    reverses the slip's posting. One per slip; never changed or deleted (PostgreSQL
    triggers, migration 0004)."""

    slip = models.OneToOneField(CashierSlip, models.PROTECT, related_name="void", verbose_name=_("slip"))
    reason = models.TextField(_("reason"))
    voided_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="slip_voids",
                                  verbose_name=_("voided by"))
    voided_at = models.DateTimeField(_("voided at"), default=timezone.now)
    reversal = models.OneToOneField(Transaction, models.PROTECT, related_name="slip_void",
                                    verbose_name=_("reversal"))

    class Meta:
        ordering = ["-voided_at"]
        verbose_name = _("slip void")
        verbose_name_plural = _("slip voids")
        constraints = [models.CheckConstraint(condition=~Q(reason=""), name="ledger_slipvoid_has_reason")]

    def __str__(self):
        return f"{self.slip} void"


class PlayerChange(models.Model):
    """Who registered a player or changed his record at the cage, when, and what:
    ``changes`` is ``{field: [before, after]}`` (strings; dates ISO). Never changed or
    deleted (PostgreSQL triggers, migration 0004). Written by ``ledger.services.patrons``."""

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
                                    name="ledger_one_open_auction_per_table"),
            models.CheckConstraint(condition=Q(sessions__gte=1), name="ledger_auction_sessions_from_one"),
            models.CheckConstraint(
                condition=(Q(awarded_at__isnull=True, winner__isnull=True, amount__isnull=True, tenure__isnull=True)
                           | Q(awarded_at__isnull=False, winner__isnull=False, amount__gt=0,
                               tenure__isnull=False, awarded_by__isnull=False)),
                name="ledger_auction_awarded_whole"),
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
        constraints = [models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_bid_amount_positive")]

    def __str__(self):
        return f"{self.player} {self.amount}"


class BankRebuild(models.Model):
    """A wiped-out bank's rebuild ordered by the pit between hands: ``amount`` (Decimal
    euros above zero, at least the bank's first amount less what it held, ``held``) is
    deposited at the cage by its syndicate, each member his share by largest remainder
    (``CashierSlip`` of kind ``bank_deposit`` with ``rebuild`` set); the console opens no
    hand until it is deposited (PostgreSQL too: migration 0014) or the bank is given up.
    ``number`` counts the tenure's rebuilds from 1. Written once, never changed.
    [issue 16; Melilla casino rules 2014 art. 52: "a bank wiped out is rebuilt to at least
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
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_rebuild_amount_positive"),
            models.UniqueConstraint(fields=["tenure", "number"], name="ledger_rebuild_number_per_tenure"),
        ]

    def __str__(self):
        return f"{self.tenure} · rebuild {self.number}"
