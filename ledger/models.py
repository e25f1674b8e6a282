"""The double-entry ledger: accounts, transactions, entries.

Money is ``Decimal`` euros with two places in ``DecimalField(14, 2)`` columns (the engine's
integer cents become euros at the boundary, ``ledger.money``); never a float.

Sign convention: an account's ``balance`` is **credits − debits**, i.e. what the account's
owner holds: a player's chips, a bank tenure's bank, the house's commission are positive.
The cage's cash account is their counterpart: its balance is minus the cash the cage has
taken in (cash is an asset the cage holds for the chips it issued). Every transaction
balances, so all balances always sum to zero.

In PostgreSQL (``ledger/sql/*.sql``) the database itself refuses: a transaction whose
entries do not balance, that has fewer than two entries or not the number it was posted
with (deferred constraint triggers), an entry added to a transaction after it was posted, any UPDATE or DELETE of a transaction
or an entry, a DELETE of an account, an UPDATE of an account other than its ``balance``
and ``is_open``. Amounts are positive by CHECK constraint. A mistake is corrected by a
reversal transaction (``Transaction.reverses`` / ``original.reversal``). Every transaction
is signed and chained (``ledger.signing``): one the database holds without its signature
(inserted by SQL, altered, a leg added or removed) is a fault of ``ledger_check``.

Who owns an account is said by its owner's row: a player's chips by ``player`` (the
kernel, ``patrons``), a bank tenure's by ``tables.BankTenure.account``, a drop box's and
a tips box's by ``boxes``; the ledger imports none of the apps above it.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from patrons.models import Player

MONEY = {"max_digits": 14, "decimal_places": 2}


class Account(models.Model):
    """Where money is: a player's chips, a tenure's bank (``tables.BankTenure.account``),
    the house's commission, the cage,
    a table's drop box (the cash of its table buy-ins: ``boxes.DropBox`` names its table),
    a session's tips box (the chips tipped at the table: ``boxes.TipsBox`` names its
    session), the tips' tronc, the count variances, the cage floats and the outstanding
    chips.

    One sign convention for every count (a box's, a drawer's): a count that found MORE
    than the records credits the account of what it found, one that found LESS debits it.
    The count variances account is cash only (a drop box's, a drawer's): credited what a
    count found over, debited what it found short, so its balance is the cash counts' net
    over (positive) or short (negative), the sign of ``BoxCount.variance`` and
    ``Drawer.variance``. Chips a count did not find where the records put them (a tips
    box's, a cagnotte's) are still in someone's hands: the outstanding chips account is
    credited them (a liability), and debited the chips a count found beyond the records.
    The cage floats account is credited the float lent to each open drawer (the cage
    debited: its cash is counted with the drawer's), and debited it back at the close.

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
        FLOATS = "floats", _("cage floats (the house's cash lent to open drawers)")
        CHIPS_OUT = "chipsout", _("outstanding chips (not where the records put them)")

    kind = models.CharField(_("kind"), max_length=8, choices=Kind.choices)
    player = models.OneToOneField(Player, models.PROTECT, null=True, blank=True, related_name="account",
                                  verbose_name=_("player"))
    balance = models.DecimalField(_("balance"), default=0, **MONEY)
    is_open = models.BooleanField(_("open"), default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        verbose_name = _("account")
        verbose_name_plural = _("accounts")
        constraints = [
            models.CheckConstraint(
                condition=(Q(kind="player", player__isnull=False)
                           | Q(kind__in=["tenure", "house", "cage", "drop", "tronc", "tips_box", "variance",
                                           "floats", "chipsout"],
                               player__isnull=True)),
                name="ledger_account_owner_matches_kind"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind__in=["house", "cage"]),
                                    name="ledger_one_house_and_one_cage"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="tronc"), name="ledger_one_tronc"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind="variance"), name="ledger_one_variance"),
            models.UniqueConstraint(fields=["kind"], condition=Q(kind__in=["floats", "chipsout"]),
                                    name="ledger_one_floats_and_one_chips_out"),
        ]

    def __str__(self):
        if self.kind == self.Kind.PLAYER:
            return _("chips of %(player)s") % {"player": self.player.code}
        if self.kind == self.Kind.TENURE:
            return _("bank tenure #%(tenure)s") % {"tenure": self.tenure.pk}
        return str(self.get_kind_display())

    @property
    def label(self):
        """A short stable name for reports: ``player:ana``, ``tenure:12``, ``house``, ``cage``."""
        if self.kind == self.Kind.PLAYER:
            return f"player:{self.player.code}"
        if self.kind == self.Kind.TENURE:
            return f"tenure:{self.tenure.pk}"
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
        DRAWER_FLOAT = "drawer_float", _("drawer's float lent")
        DRAWER_CLOSE = "drawer_close", _("drawer closed: float back, variance")

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
    detail = models.JSONField(_("detail"), default=dict, blank=True)
    #: What caused it, as data (``ledger.references``): put into words when shown.
    cause = models.JSONField(_("cause"), default=dict, blank=True,
                             db_default=models.Value({}, output_field=models.JSONField()))
    #: Its signature (``ledger.signing``): HMAC-SHA256 under the key ``key_id`` names (the key
    #: is in the environment, never here) of its content, its legs and ``previous_signature``,
    #: the ledger's previous transaction's signature (the chain; ``GENESIS`` for the first).
    signature = models.CharField(_("signature"), max_length=64, blank=True, default="", db_default="")
    previous_signature = models.CharField(_("previous signature"), max_length=64, blank=True, default="",
                                          db_default="")
    key_id = models.CharField(_("key id"), max_length=16, blank=True, default="", db_default="",
                              help_text=_("the id of the key that signed the transaction"))
    #: How many entries it was posted with (signed): ``ledger_entry_legs`` refuses one added
    #: by any later statement, ``ledger_transaction_balanced`` one missing at COMMIT. Null
    #: only on a row not posted by the ledger (unsigned: a fault of ``ledger_check``).
    legs = models.PositiveSmallIntegerField(_("legs"), null=True, blank=True)

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


class ChainHead(models.Model):
    """The ledger's chain of signatures: its one row (``id`` 1) holds the last transaction
    posted and its signature. Every posting transaction row-locks it first (before any
    account: ``ledger.posting.lock_chain``), so that the chain's order is the order the
    transactions were posted in, and moves it with the transaction it writes."""

    signature = models.CharField(_("signature"), max_length=64)
    last_id = models.BigIntegerField(_("last transaction"), null=True, blank=True)

    class Meta:
        verbose_name = _("ledger's chain head")
        verbose_name_plural = _("ledger's chain heads")
        constraints = [models.CheckConstraint(condition=Q(id=1), name="ledger_chainhead_one_row")]

    def __str__(self):
        return f"#{self.last_id}: {self.signature}"


class ChipTransfer(models.Model):
    """Chips handed from one player to another at the pit's sight (``ledger.chips.chips_transfer``):
    the business record its posting (``transaction``, kind ``transfer``) points back at, so
    that a transfer posted without one, or a record without its posting, is a fault of the
    transactions' justification (``reports.justification``).

    ``amount`` is Decimal euros above zero; ``reason`` the pit supervisor's words;
    ``recorded_by`` the pit supervisor. Written once with its posting, never changed or
    deleted (PostgreSQL: ``ledger/sql/0005_chip_transfers.sql``).
    """

    transaction = models.OneToOneField(Transaction, models.PROTECT, related_name="chip_transfer",
                                       verbose_name=_("transaction"))
    giver = models.ForeignKey(Player, models.PROTECT, related_name="chips_given", verbose_name=_("giver"))
    receiver = models.ForeignKey(Player, models.PROTECT, related_name="chips_received", verbose_name=_("receiver"))
    amount = models.DecimalField(_("amount"), **MONEY)
    reason = models.TextField(_("reason"))
    recorded_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, related_name="chip_transfers",
                                    verbose_name=_("recorded by"))
    recorded_at = models.DateTimeField(_("recorded at"), default=timezone.now)

    class Meta:
        ordering = ["recorded_at", "id"]
        verbose_name = _("chip transfer")
        verbose_name_plural = _("chip transfers")
        constraints = [
            models.CheckConstraint(condition=Q(amount__gt=0), name="ledger_chiptransfer_amount_positive"),
            models.CheckConstraint(condition=~Q(giver=models.F("receiver")), name="ledger_chiptransfer_two_players"),
        ]

    def __str__(self):
        return f"{self.giver} → {self.receiver} {self.amount}"
