"""The auditors' reports: stored as versions per subject, and the requests that compute them.

A ``Report`` is one version of a subject's report (its ``key``: ``shift:<shift id>`` or
``banks:<table id>:<from>:<to>``; ``version`` 1, 2, 3…): running a report again adds a
new version beside the old ones, never overwrites one (a PostgreSQL trigger refuses any
update or delete of a stored report, ``reports/sql/0002_guards.sql``). The first shift
report computed after its shift closed is the one ``at_close``: it seals the chain head
of the shift's entries (``result["seal"]``). Its ``result`` is the JSON of
``reports.shift.shift_report`` or ``reports.banks.bank_rotation_report``
(amounts as strings of euros with two decimals).

A ``ReportRequest`` is the outbox of the Celery queue: it is written in the transaction
that asks for the report and sent to the broker once that commits. If the broker is down
the row stays ``pending`` with no ``dispatched_at``, and ``dispatch_reports`` (a beat
task and a command) sends it later.
"""

from django.conf import settings
from django.core.validators import MaxValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tables.models import Shift, Table


class ReportKind(models.TextChoices):
    """The two reports: a shift's, and a table's bank rotation over a period."""

    SHIFT = "shift", _("shift report")
    BANKS = "banks", _("bank-rotation report")


def report_key(*, kind, table_id, shift_id=None, date_from=None, date_to=None) -> str:
    """The subject's unique key: ``shift:12`` or ``banks:3:2026-11-01:2026-11-30``.

    Raises:
        ValueError: a shift report without its shift, a bank report without its dates.
    """
    if kind == ReportKind.SHIFT:
        if shift_id is None:
            raise ValueError("a shift report needs its shift")
        return f"shift:{shift_id}"
    if kind == ReportKind.BANKS:
        if date_from is None or date_to is None:
            raise ValueError("a bank-rotation report needs its period")
        return f"banks:{table_id}:{date_from.isoformat()}:{date_to.isoformat()}"
    raise ValueError(f"unknown report kind {kind!r}")


class Report(models.Model):
    """One stored version of the report of a shift or of a table's banks over a period.

    ``result`` is the computation's JSON; ``exceptions`` how many audit and
    reconciliation exceptions it holds (for the list); ``version`` counts the subject's
    computations from 1 (each run adds one); ``at_close``: the shift report stored at the
    shift's close (the first computed once it was closed; at most one per shift), whose
    sealed chain head later reports check. Never updated nor deleted.
    """

    kind = models.CharField(_("kind"), max_length=8, choices=ReportKind.choices)
    key = models.CharField(_("key"), max_length=80, db_index=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    at_close = models.BooleanField(_("stored at the shift's close"), default=False)
    table = models.ForeignKey(Table, models.PROTECT, related_name="reports", verbose_name=_("table"))
    shift = models.ForeignKey(Shift, models.PROTECT, null=True, blank=True, related_name="reports",
                              verbose_name=_("shift"))
    date_from = models.DateField(_("from"), null=True, blank=True)
    date_to = models.DateField(_("to"), null=True, blank=True)
    result = models.JSONField(_("result"))
    exceptions = models.PositiveIntegerField(_("exceptions"), default=0)
    computed_at = models.DateTimeField(_("computed at"), default=timezone.now)
    seconds = models.DecimalField(_("seconds to compute"), max_digits=9, decimal_places=3, default=0)

    class Meta:
        ordering = ["-computed_at", "-id"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")
        constraints = [
            models.CheckConstraint(condition=(Q(kind="shift", shift__isnull=False)
                                              | Q(kind="banks", date_from__isnull=False, date_to__isnull=False)),
                                   name="reports_report_subject"),
            models.UniqueConstraint(fields=["key", "version"], name="reports_report_key_version"),
            models.UniqueConstraint(fields=["key"], condition=Q(at_close=True), name="reports_report_one_at_close"),
            models.CheckConstraint(condition=Q(version__gte=1), name="reports_report_version_from_one"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} · {self.key} · v{self.version}"


class ReportRequest(models.Model):
    """A request to compute a report: the outbox row the Celery task works from.

    ``status`` goes pending → running → done (or failed); ``progress`` is 0–100 and
    ``stage`` names what the task is doing. ``dispatched_at`` is when it was last sent to
    the broker (None: not sent yet, e.g. Redis was down). At most one pending or running
    request per report key (a second ask returns the first).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    kind = models.CharField(_("kind"), max_length=8, choices=ReportKind.choices)
    key = models.CharField(_("key"), max_length=80)
    table = models.ForeignKey(Table, models.PROTECT, related_name="report_requests", verbose_name=_("table"))
    shift = models.ForeignKey(Shift, models.PROTECT, null=True, blank=True, related_name="report_requests",
                              verbose_name=_("shift"))
    date_from = models.DateField(_("from"), null=True, blank=True)
    date_to = models.DateField(_("to"), null=True, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                     related_name="report_requests", verbose_name=_("requested by"))
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(_("progress"), default=0, validators=[MaxValueValidator(100)])
    stage = models.CharField(_("stage"), max_length=32, blank=True)
    error = models.TextField(_("error"), blank=True)
    report = models.ForeignKey(Report, models.SET_NULL, null=True, blank=True, related_name="requests",
                               verbose_name=_("report"))
    attempts = models.PositiveSmallIntegerField(_("attempts"), default=0)
    created_at = models.DateTimeField(_("requested at"), default=timezone.now)
    dispatched_at = models.DateTimeField(_("sent to the queue at"), null=True, blank=True)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("report request")
        verbose_name_plural = _("report requests")
        constraints = [
            models.UniqueConstraint(fields=["key"], condition=Q(status__in=["pending", "running"]),
                                    name="reports_one_active_request_per_key"),
            models.CheckConstraint(condition=Q(progress__lte=100), name="reports_progress_at_most_100"),
        ]
        indexes = [models.Index(fields=["status", "dispatched_at"], name="reports_request_outbox")]

    def __str__(self):
        return f"#{self.pk} {self.key} · {self.status}"

    @property
    def is_active(self):
        return self.status in (self.Status.PENDING, self.Status.RUNNING)


class EdgeFigure(models.Model):
    """A stored simulation of the bank's edge under one rule set, seat count and strategy:
    what the auditor's statistics expect of a bank (``game.edge.bank_edge``), for the
    strategy fitted to the hands reviewed (``reports.detection.expectation``).

    ``key`` is ``<rules as sorted JSON>|<seats>``, followed by ``|<strategy as sorted
    JSON>`` for a strategy other than the profile's default (``strategy``: its fields;
    ``{}`` on figures stored before strategies were kept); ``result`` is ``EdgeResult.as_dict()``
    (``mean_per_unit``, ``sd_per_unit_hand``, ``sd_per_unit_bet``,
    ``within_hand_correlation``, ``bank_wins_bet``, the strategy in words, the seed, how
    it was obtained). One row per key: computing it again replaces it.
    """

    key = models.CharField(_("key"), max_length=700, unique=True)
    rules = models.JSONField(_("rules"))
    seats = models.PositiveSmallIntegerField(_("seats"))
    strategy = models.JSONField(_("strategy"), default=dict, blank=True)
    hands = models.PositiveIntegerField(_("hands simulated"))
    seed = models.BigIntegerField(_("seed"))
    result = models.JSONField(_("result"))
    computed_at = models.DateTimeField(_("computed at"), default=timezone.now)

    class Meta:
        ordering = ["key"]
        verbose_name = _("bank's edge")
        verbose_name_plural = _("bank's edges")

    def __str__(self):
        return self.key


class AlertKind(models.TextChoices):
    """What raised an alert."""

    EXCEPTION = "exception", _("report exception")
    LARGE_BET = "large_bet", _("large bet")
    EXPECTED = "expected", _("result against the expected")
    PAIR = "pair", _("improbable pair")
    CARDS = "cards", _("card test")
    BANK_CHANGES = "bank_changes", _("bank changes")
    LARGE_LOSSES = "large_losses", _("large stakes lost to one bank")
    TRANSFERS = "transfers", _("chip transfers")
    POOLED = "pooled", _("pooled over tables and shifts")


class Alert(models.Model):
    """A finding an auditor must look at: open until an auditor acknowledges it with a note.

    Raised by ``reports.alerts.alert_raise`` (the task ``reports.raise_alerts`` after a
    report is stored). ``fingerprint`` identifies the finding (SHA-256 of its kind, subject
    and identity): the same finding raised twice is one alert. ``evidence`` is structured
    data (ids of hands, bets, bank tenures; figures as numbers) put into words at display
    time. Rows are never deleted, and only ``status`` ever changes, open → acknowledged,
    with an ``AlertChange`` row saying who, when and why (PostgreSQL triggers, migration
    ``0003_exceptions_alerts``).
    """

    class Status(models.TextChoices):
        OPEN = "open", _("open")
        ACKNOWLEDGED = "acknowledged", _("acknowledged")

    kind = models.CharField(_("kind"), max_length=16, choices=AlertKind.choices)
    code = models.CharField(_("code"), max_length=64)
    subject = models.CharField(_("subject"), max_length=120)
    fingerprint = models.CharField(_("fingerprint"), max_length=64, unique=True)
    table = models.ForeignKey(Table, models.PROTECT, null=True, blank=True, related_name="alerts",
                              verbose_name=_("table"))
    shift = models.ForeignKey(Shift, models.PROTECT, null=True, blank=True, related_name="alerts",
                              verbose_name=_("shift"))
    report = models.ForeignKey(Report, models.PROTECT, null=True, blank=True, related_name="alerts",
                               verbose_name=_("report"))
    evidence = models.JSONField(_("evidence"), default=dict)
    opened_at = models.DateTimeField(_("opened at"), default=timezone.now)
    status = models.CharField(_("status"), max_length=16, choices=Status.choices, default=Status.OPEN)
    #: The finding's group (SHA-256 of its kind, code, subject and window; blank: none): a
    #: later finding of the same group, while this alert is open, joins it as an
    #: ``AlertEvidence`` instead of opening another (``reports.alerts.alert_raise``).
    group = models.CharField(_("group"), max_length=64, blank=True, default="")
    #: The bets a statistical finding tested (SHA-256 of their hands, stakes and result;
    #: blank: not a test of bets): the same bets found again under another group's name or
    #: over a longer window on a later night are this finding, not another alert
    #: (``reports.alerts.alert_raise``).
    bets = models.CharField(_("bets"), max_length=64, blank=True, default="")

    class Meta:
        ordering = ["-opened_at", "-id"]
        verbose_name = _("alert")
        verbose_name_plural = _("alerts")
        indexes = [models.Index(fields=["status", "opened_at"], name="reports_alert_open"),
                   models.Index(fields=["bets"], condition=~Q(bets=""), name="reports_alert_bets")]
        constraints = [
            models.UniqueConstraint(fields=["group"], condition=Q(status="open") & ~Q(group=""),
                                    name="reports_alert_one_open_per_group"),
        ]

    def __str__(self):
        return f"#{self.pk} {self.kind}:{self.code} · {self.subject} · {self.status}"


class AlertEvidence(models.Model):
    """A later finding of an open alert's group (the same subject and window, found again on
    a later night with more hands): the alert is ongoing, and this row keeps that night's
    figures and hands, attributed to the run that found them. Insert only (PostgreSQL
    trigger, ``reports/sql/0011_alert_evidence.sql``); the alert's own ``evidence`` stays
    the first finding's."""

    alert = models.ForeignKey(Alert, models.PROTECT, related_name="updates", verbose_name=_("alert"))
    fingerprint = models.CharField(_("fingerprint"), max_length=64, unique=True)
    evidence = models.JSONField(_("evidence"), default=dict)
    run = models.ForeignKey("PooledReview", models.PROTECT, null=True, blank=True, related_name="evidences",
                            verbose_name=_("pooled review"))
    found_at = models.DateTimeField(_("found at"), default=timezone.now)
    #: As ``Alert.bets``: the bets this later finding tested.
    bets = models.CharField(_("bets"), max_length=64, blank=True, default="")

    class Meta:
        ordering = ["alert", "found_at", "id"]
        verbose_name = _("alert evidence")
        verbose_name_plural = _("alert evidences")
        indexes = [models.Index(fields=["bets"], condition=~Q(bets=""), name="reports_alertevidence_bets")]

    def __str__(self):
        return f"{self.alert_id} · {self.found_at:%Y-%m-%d %H:%M}"


class AlertChange(models.Model):
    """One change of an alert, attributed: its opening (by the system) and its
    acknowledgement (by an auditor, with his note). Insert only."""

    class Action(models.TextChoices):
        OPENED = "opened", _("opened")
        ACKNOWLEDGED = "acknowledged", _("acknowledged")

    alert = models.ForeignKey(Alert, models.PROTECT, related_name="changes", verbose_name=_("alert"))
    action = models.CharField(_("action"), max_length=16, choices=Action.choices)
    note = models.TextField(_("note"), blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                           related_name="alert_changes", verbose_name=_("by"))
    at = models.DateTimeField(_("at"), default=timezone.now)

    class Meta:
        ordering = ["alert", "at", "id"]
        verbose_name = _("alert change")
        verbose_name_plural = _("alert changes")
        constraints = [
            models.CheckConstraint(condition=Q(action="opened") | (Q(by__isnull=False) & ~Q(note="")),
                                   name="reports_alert_ack_has_auditor_and_note"),
            models.UniqueConstraint(fields=["alert", "action"], name="reports_alert_change_once"),
        ]

    def __str__(self):
        return f"{self.alert_id} · {self.action} · {self.at:%Y-%m-%d %H:%M}"


class WitnessIdentity(models.Model):
    """This database's name at the seals' witness (``reports.witness``): a random UUID made
    with the first report witnessed, so that each database (the demo's, a test's, a
    restored backup keeps its original's) reads and writes its own witness file. One row,
    never changed (a trigger refuses it; the app's role may only add it). Rewriting it to
    read another file leaves every stored report without its witness: a fault."""

    one = models.BooleanField(default=True, unique=True, editable=False)
    uuid = models.UUIDField(_("witness identity"), editable=False)
    created_at = models.DateTimeField(_("created at"), default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("witness identity")
        constraints = [models.CheckConstraint(condition=Q(one=True), name="reports_witnessidentity_one_row")]

    def __str__(self):
        return str(self.uuid)


class MonthlyStatement(models.Model):
    """One computation of a month's statement for the regulator (``reports.statements``):
    the casino's, each table's and each profile's drop, handle, commission, tips, banks'
    result and hold % over the month (to date while it runs), against the same month a year
    before; signed by an auditor.

    ``status`` goes pending → running → done (or failed), ``progress`` 0–100 with its
    ``stage``, while the Celery task computes it (asked for by hand, or nightly by beat);
    ``figures`` is then written once. ``signed_by``, ``signed_at`` and ``signature``
    (HMAC-SHA256 under ``CHAIN_KEY``, its id in ``key_id``, over the month, the version,
    the figures and the signer) are written once, by the signing. Never deleted; a
    PostgreSQL trigger refuses any other change (``reports/sql/0006_monthly_statements.sql``).
    """

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    month = models.DateField(_("month"), help_text=_("its first day"))
    version = models.PositiveIntegerField(_("version"), default=1)
    last_day = models.DateField(_("last gaming day counted"))
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    progress = models.PositiveSmallIntegerField(_("progress"), default=0, validators=[MaxValueValidator(100)])
    stage = models.CharField(_("stage"), max_length=32, blank=True)
    error = models.TextField(_("error"), blank=True)
    figures = models.JSONField(_("figures"), null=True, blank=True)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                     related_name="+", verbose_name=_("requested by"))
    requested_at = models.DateTimeField(_("requested at"), default=timezone.now)
    computed_at = models.DateTimeField(_("computed at"), null=True, blank=True)
    signed_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                  related_name="+", verbose_name=_("signed by"))
    signed_at = models.DateTimeField(_("signed at"), null=True, blank=True)
    signature = models.CharField(_("signature"), max_length=64, blank=True)
    key_id = models.CharField(_("key id"), max_length=32, blank=True)

    class Meta:
        ordering = ["-month", "-version"]
        verbose_name = _("monthly statement")
        verbose_name_plural = _("monthly statements")
        constraints = [
            models.UniqueConstraint(fields=["month", "version"], name="reports_statement_month_version"),
            models.CheckConstraint(condition=Q(month__day=1), name="reports_statement_first_of_month"),
            models.CheckConstraint(condition=Q(signed_by__isnull=True) | Q(status="done", signed_at__isnull=False)
                                   & ~Q(signature=""), name="reports_statement_signed_when_done"),
        ]

    def __str__(self):
        return f"{self.month:%Y-%m} v{self.version}"


class PooledReview(models.Model):
    """One run of the pooled review (``reports.pooling``): every table's hands added up
    by dealer × player, dealer × bank holder, bank holder × player, holder, player and
    dealer over the gaming day, the week and the month ending with ``day``, corrected
    together with the card tests; nightly by beat or asked for by an auditor.

    ``status`` goes pending → running → done (or failed); ``result`` is
    ``pooling.pooled_review``'s JSON without its findings, written once; ``alerts`` how
    many of its tests alert, ``opened`` how many alerts it opened (the others existed).
    Never deleted: a run asked for again is a new row."""

    class Status(models.TextChoices):
        PENDING = "pending", _("pending")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    day = models.DateField(_("last gaming day"))
    status = models.CharField(_("status"), max_length=8, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(settings.AUTH_USER_MODEL, models.PROTECT, null=True, blank=True,
                                     related_name="+", verbose_name=_("requested by"))
    created_at = models.DateTimeField(_("requested at"), default=timezone.now)
    started_at = models.DateTimeField(_("started at"), null=True, blank=True)
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    alerts = models.PositiveIntegerField(_("alerts"), default=0)
    opened = models.PositiveIntegerField(_("alerts opened"), default=0)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name = _("pooled review")
        verbose_name_plural = _("pooled reviews")

    def __str__(self):
        return f"pooled {self.day:%Y-%m-%d} · {self.status}"


class CheckPoint(models.Model):
    """One run of the audit's checks (``manage.py ledger_check``, the nightly beat task),
    what it verified up to and what it found (``reports.checkpoints``).

    ``state`` is where the run stopped: ``{"ledger": {"transaction", "signature",
    "balances"}, "tables": {table id: {"entry", "head", "hand", "number"}}}`` (the last
    transaction verified and its signature, each account's sum in cents; per table the
    last entry verified and its hash, the last hand's id and number). The next
    incremental run starts there. ``faults`` are what it found, in English (the first
    ``FAULT_LIMIT``; ``fault_count`` all of them). ``seal`` is HMAC-SHA256 under the
    audit trail's key (``casino.keys``, its id in ``key_id``) of the run's fields and the
    seal of the checkpoint before it (``previous``): a checkpoint forged, altered or
    removed from the middle breaks the seals, and the next run checks everything again.
    Never updated nor deleted (``reports/sql/0009_checkpoints.sql``).
    """

    #: How many faults a checkpoint keeps in words.
    FAULT_LIMIT = 1000

    full = models.BooleanField(_("full check"), default=False)
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"))
    seconds = models.DecimalField(_("seconds"), max_digits=10, decimal_places=3)
    chunks = models.PositiveIntegerField(_("chunks"), default=0)
    workers = models.CharField(_("run by"), max_length=16, default="process")
    hands = models.PositiveIntegerField(_("hands replayed"), default=0)
    entries = models.PositiveBigIntegerField(_("entries verified"), default=0)
    transactions = models.PositiveBigIntegerField(_("transactions verified"), default=0)
    state = models.JSONField(_("verified up to"))
    fault_count = models.PositiveIntegerField(_("faults"), default=0)
    faults = models.JSONField(_("faults found"), default=list)
    previous = models.CharField(_("previous seal"), max_length=64)
    seal = models.CharField(_("seal"), max_length=64)
    key_id = models.CharField(_("key id"), max_length=32)

    class Meta:
        ordering = ["-id"]
        verbose_name = _("audit checkpoint")
        verbose_name_plural = _("audit checkpoints")

    def __str__(self):
        return f"#{self.pk} {'full' if self.full else 'incremental'} · {self.fault_count} fault(s)"
