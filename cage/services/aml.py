"""Anti-money-laundering: every cage movement, cash taken at a table for chips (a table
buy-in), bank capital put in or taken out, bank distribution and sale price, added up per
patron per gaming day wherever it happened (``movement_place``: the cage or a table).

Every posting of the ledger passes these rules (``AmlCheck``, registered with
``ledger.posting.register_check`` when the cage app is ready); those of kinds
``AML_KINDS`` are checked, under the row locks of the patrons' chips accounts (so a
patron's movements are checked one after the other):

1. ``aml_check`` before anything is written: the patron's day with this movement; at the
   threshold without his identity on file, a staff member's movement is refused
   (``AmlRefused``, nothing of it posted; the attempt kept as an ``AmlRefusal`` by the
   services decorated with ``ledger.posting.refusals_recorded``); a system posting, or a
   7½ takeover the game imposes (``refusable``), is recorded with an ``unidentified``
   alert instead. A table buy-in is the dealer's choice to take the cash: refused at the
   threshold as at the cage.
2. ``aml_record`` after the posting: the movements, and the alerts they raise.

Profiles (``AML_PROFILE``):

- ``eu`` (default): ins and outs added together; due diligence (identity) at
  ``AML_THRESHOLD`` (2,000.00 €) a day, single or linked. [Directive (EU) 2015/849 art.
  11(d); Ley 10/2010 art. 7.3 and RD 304/2014 art. 28 (Spain); CMF L561-13 (France)]
- ``us``: cash in and cash out added up apart; a currency transaction report (alert
  ``ctr``) above ``AML_US_CTR_THRESHOLD`` ($10,000) of either a gaming day, the identity
  required then; every movement above ``AML_US_LOG_THRESHOLD`` ($3,000) in the log.
  [31 CFR 1021.311, 1021.313, 1021.410(b)]

Structuring: movements of one day each under the threshold that together reach it (in
the US profile: pass the report's threshold) raise a ``structuring`` alert.
"""

from collections import defaultdict
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal

from django.conf import settings
from django.db import transaction as db
from django.db.models import Count, Max, Q, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from cage.errors import AmlRefused
from cage.models import AmlAlert, AmlMovement, AmlRefusal, AmlReview
from casino import formatting
from casino.periods import gaming_day, retain_until
from ledger.money import euros

ZERO = Decimal("0.00")
AML_KINDS = frozenset(AmlMovement.Kind.values)
IN, OUT = AmlMovement.Direction.IN, AmlMovement.Direction.OUT


def _money(name):
    return Decimal(str(getattr(settings, name))).quantize(Decimal("0.01"))


def profile() -> str:
    """``"eu"`` or ``"us"`` (``AML_PROFILE``)."""
    value = str(getattr(settings, "AML_PROFILE", "eu")).lower()
    if value not in ("eu", "us"):
        raise ValueError(f"AML_PROFILE is 'eu' or 'us', not {value!r}")
    return value


def threshold() -> Decimal:
    """The day's amount that needs the patron's identity: ``AML_THRESHOLD`` (eu, reached
    at or above) or ``AML_US_CTR_THRESHOLD`` (us, passed above), Decimal euros/dollars."""
    return _money("AML_US_CTR_THRESHOLD" if profile() == "us" else "AML_THRESHOLD")


def log_threshold() -> Decimal:
    """The US log's threshold (``AML_US_LOG_THRESHOLD``): movements above it are logged."""
    return _money("AML_US_LOG_THRESHOLD")


@dataclass
class Pending:
    """A patron's movement checked, to be recorded once its transaction exists."""

    player: object
    kind: str
    direction: str
    amount: Decimal
    at: datetime
    day: date
    alerts: list


def _direction(kind, side):
    """A buy-in is cash in (his chips are credited), a cash-out cash out; otherwise a
    debit of his chips is money he puts in, a credit money he takes out."""
    if kind in (AmlMovement.Kind.BUY_IN, AmlMovement.Kind.TABLE_BUY_IN):
        return IN
    if kind == AmlMovement.Kind.CASH_OUT:
        return OUT
    return IN if side == "D" else OUT


def _days_so_far(player_ids, day) -> dict:
    """``{player id: {direction: (total, count, largest)}}`` of those patrons' standing
    movements on gaming day ``day`` (``AmlMovementQuerySet.standing``: a voided slip's no
    longer counts), one statement; a patron without any that day is left out."""
    days = defaultdict(dict)
    for row in (AmlMovement.objects.standing().filter(player_id__in=player_ids, gaming_day=day)
                .values("player_id", "direction")
                .annotate(total=Sum("amount"), n=Count("id"), largest=Max("amount")).order_by()):
        days[row["player_id"]][row["direction"]] = (row["total"], row["n"], row["largest"])
    return days


#: Channels of the postings the rules of the game make at the table (a 7½ takeover entered
#: at the console or imported): recorded with an ``unidentified`` alert, never refused (the
#: hand is played). Cash taken at the table for chips is not one of them.
UNREFUSABLE_SOURCES = frozenset({"console", "import"})


def refusable(*, posted_by, source: str, kind: str = "") -> bool:
    """May a posting of ``kind`` be refused: a staff member's choice at the cage, the pit or
    the table (a table buy-in), not the system's (``source`` "system…") nor a takeover the
    game imposes (the bank's postings from ``UNREFUSABLE_SOURCES``)."""
    if posted_by is None or source.startswith("system"):
        return False
    return kind == AmlMovement.Kind.TABLE_BUY_IN or source not in UNREFUSABLE_SOURCES


def movement_place(movement) -> str:
    """Where a movement happened, in the reader's language: the table's name for cash taken
    at a table (its posting's ``cause`` names the table: "Mesa 1", not "mesa Mesa 1"; "table"
    when it names none), "table" for a takeover the game
    made (posted from the console or an import), else "cage" (the cashier's desk, where
    the bank's capital is deposited and its distributions paid)."""
    transaction = movement.transaction
    if movement.kind == AmlMovement.Kind.TABLE_BUY_IN:
        return str((transaction.cause or {}).get("table") or _("table"))
    if transaction.source in UNREFUSABLE_SOURCES:
        return _("table")
    return _("cage")


def aml_check(*, kind: str, legs, posted_by, at: datetime, source: str = "", patron=None) -> list[Pending]:
    """Check a posting's patrons before it is written.

    Args:
        kind: the ledger transaction's kind (only ``AML_KINDS`` are checked);
        legs: ``[(account id, "D"/"C", cents)]``; posted_by: the staff user or None (the
        system); at: the posting's time; source: the posting's channel (``refusable``);
        patron: ``(Player, cents)``: the patron's cash in when no leg is his chips (a bank
        deposit at the cage, kind ``capital_in``: cash in, as a buy-in).
    Returns:
        the movements to record with ``aml_record`` (empty for other kinds).
    Raises:
        AmlRefused: a staff member's movement takes a patron without identity on file to
        the threshold; the message says the day's total, the threshold and what to do.
    """
    if kind not in AML_KINDS:
        return []
    from ledger.models import Account

    players = {account.pk: account.player for account in Account.objects.filter(
        pk__in={leg[0] for leg in legs}, kind=Account.Kind.PLAYER).select_related("player")}
    day = gaming_day(at)
    return [_assess(player=player, kind=kind, direction=direction, amount=amount, so_far=_days_so_far([player.pk], day)[player.pk],
                    at=at, day=day, posted_by=posted_by, source=source)
            for player, direction, amount in _patrons(kind, legs, players, patron)]


def _patrons(kind, legs, players, patron=None):
    """``[(Player, direction, Decimal euros)]``: what a posting's legs move for each patron
    (``players``: ``{account id: Player}`` of the legs' chips accounts), in account-id
    order; ``patron`` as for ``aml_check``."""
    amounts = defaultdict(int)
    for account_id, side, amount in legs:
        if account_id in players:
            amounts[(account_id, _direction(kind, side))] += amount
    if patron is not None:
        players, amounts = {0: patron[0]}, {(0, IN): patron[1]}
    return [(players[account_id], direction, euros(amount_cents))
            for (account_id, direction), amount_cents in sorted(amounts.items())]


def _assess(*, player, kind, direction, amount, so_far, at, day, posted_by, source) -> Pending:
    """One patron's movement (``amount``: Decimal euros) checked against his gaming day
    ``so_far`` (``{direction: (total, count, largest)}`` before it): the ``Pending``
    movement with the alerts it raises.

    Raises:
        AmlRefused: as ``aml_check``.
    """
    us, limit = profile() == "us", threshold()
    if us:  # cash in and cash out apart, the report above the threshold
        before, count, largest = so_far.get(direction, (ZERO, 0, ZERO))
        after, due = before + amount, before + amount > limit
        crossed = before <= limit < after
        small = max(largest or ZERO, amount) <= limit
    else:  # ins and outs together, due diligence at the threshold
        before = sum((total for total, _n, _l in so_far.values()), ZERO)
        count = sum(n for _t, n, _l in so_far.values())
        largest = max((big for _t, _n, big in so_far.values()), default=ZERO)
        after, due = before + amount, before + amount >= limit
        crossed = before < limit <= after
        small = max(largest, amount) < limit
    alerts = []
    if due and not player.has_identity:
        if refusable(posted_by=posted_by, source=source, kind=kind):
            raise AmlRefused(
                _("refused: %(player)s's movements of the gaming day %(day)s would reach %(total)s, at or above "
                  "the threshold of %(threshold)s that needs his identity on file; record his document, "
                  "nationality and date of birth first"),
                params={"player": player.code, "day": formatting.day(day), "total": formatting.money(after),
                        "threshold": formatting.money(limit)}, field="player",
                attempt={"player": player, "kind": kind, "direction": direction, "amount": amount,
                         "day_total": after, "threshold": limit, "at": at, "gaming_day": day,
                         "refused_by": posted_by, "source": source})
        alerts.append((AmlAlert.Kind.UNIDENTIFIED, after, count + 1))
    if crossed and small and count >= 1:
        alerts.append((AmlAlert.Kind.STRUCTURING, after, count + 1))
    if us and crossed:
        alerts.append((AmlAlert.Kind.CTR, after, count + 1))
    return Pending(player, kind, direction, amount, at, day, alerts)


def _movement(item, *, transaction, posted_by) -> AmlMovement:
    """The ``AmlMovement`` of a checked movement, unsaved."""
    return AmlMovement(player=item.player, kind=item.kind, direction=item.direction, amount=item.amount, at=item.at,
                       gaming_day=item.day, transaction=transaction, identified=item.player.has_identity,
                       recorded_by=posted_by, retain_until=retain_until(item.day))


def _alert(item, movement, kind, total, count) -> AmlAlert:
    """The ``AmlAlert`` ``kind`` a checked movement raises, unsaved."""
    return AmlAlert(kind=kind, player=item.player, gaming_day=item.day, total=total, movements=count,
                    movement=movement, raised_at=item.at, retain_until=retain_until(item.day))


def aml_refusal_record(*, player, kind: str, direction: str, amount: Decimal, day_total: Decimal,
                       threshold: Decimal, at: datetime, gaming_day: date, refused_by, source: str = "") -> AmlRefusal:
    """Write a refused attempt (``AmlRefusal``), kept ``AML_RETENTION_YEARS`` years.

    Args: the refusal's fields (``amount``, ``day_total``, ``threshold``: Decimal euros;
        ``refused_by``: the staff user). Returns: the AmlRefusal.
    """
    with db.atomic():
        return AmlRefusal.objects.create(player=player, kind=kind, direction=direction, amount=amount,
                                         day_total=day_total, threshold=threshold, at=at, gaming_day=gaming_day,
                                         refused_by=refused_by, source=source or "", retain_until=retain_until(gaming_day))


def aml_record(pending: list[Pending], *, transaction, posted_by) -> list[AmlMovement]:
    """Record checked movements (``aml_check``) for their posted ``transaction`` and the
    alerts they raise (one of a kind per patron per day). Returns the movements."""
    recorded = []
    for item in pending:
        movement = _movement(item, transaction=transaction, posted_by=posted_by)
        movement.save()
        for kind, total, count in item.alerts:
            if not AmlAlert.objects.filter(kind=kind, player=item.player, gaming_day=item.day).exists():
                _alert(item, movement, kind, total, count).save()
        recorded.append(movement)
    return recorded


class AmlBatch:
    """The AML rules for an import's postings kept in memory for its batch: the same
    checks and alerts as ``aml_check`` and ``aml_record`` one posting at a time, each patron's gaming day read once (for every patron the batch
    names, in one statement, with the alerts already raised), then kept up to date in
    memory; the movements and alerts written with the batch's postings (``detach``) once its
    transactions have their ids.

    The caller holds the row locks of the patrons' chips accounts until its transaction
    ends (``ledger.services.posting.SettlementBatch``), as ``_post`` does for one posting:
    no other posting adds to their days meanwhile. Anything else that posts for them
    (opening chips) goes through ``_post`` after they are written, then ``forget``.
    """

    def __init__(self):
        self.days = {}  # (player id, gaming day) -> {direction: (total, count, largest)} (Decimal euros)
        self.alerted = set()  # (alert kind, player id, gaming day): raised already, or pending
        self.movements, self.alerts = [], []  # unsaved AmlMovement and AmlAlert, in order

    def check(self, *, kind: str, legs, players: dict, posted_by, at: datetime, source: str,
              transaction, expect=()) -> list[Pending]:
        """``aml_check`` then ``aml_record`` of one posting, in memory.

        Args:
            kind, legs, posted_by, at, source: as ``aml_check``; players: ``{account id:
            Player}`` of the legs' chips accounts (others are not patrons'); transaction:
            the posting's Transaction (its id set before ``detach``); expect: other Players
            whose days to read in the same statement if one is read (the batch's).
        Returns:
            the movements checked (empty for a kind the rules do not add up).
        Raises:
            AmlRefused: as ``aml_check`` (nothing kept).
        """
        if kind not in AML_KINDS:
            return []
        day = gaming_day(at)
        patrons = _patrons(kind, legs, players)
        self._read({player for player, _d, _a in patrons} | set(expect), day)
        pending = [_assess(player=player, kind=kind, direction=direction, amount=amount,
                           so_far=self.days[(player.pk, day)], at=at, day=day, posted_by=posted_by, source=source)
                   for player, direction, amount in patrons]
        for item in pending:  # the day's totals moved after the whole posting was checked, as one at a time
            so_far = self.days[(item.player.pk, day)]
            total, count, largest = so_far.get(item.direction, (ZERO, 0, ZERO))
            so_far[item.direction] = (total + item.amount, count + 1, max(largest or ZERO, item.amount))
            movement = _movement(item, transaction=transaction, posted_by=posted_by)
            self.movements.append(movement)
            for alert_kind, total_after, movements in item.alerts:
                if (alert_kind, item.player.pk, day) not in self.alerted:
                    self.alerted.add((alert_kind, item.player.pk, day))
                    self.alerts.append(_alert(item, movement, alert_kind, total_after, movements))
        return pending

    def _read(self, players, day):
        """Read the gaming day ``day`` of those ``players`` not read yet: their standing
        movements' totals (``_days_so_far``) and the alerts raised (two statements)."""
        new = {player.pk for player in players if (player.pk, day) not in self.days}
        if not new:
            return
        read = _days_so_far(new, day)
        for player_id in new:
            self.days[(player_id, day)] = read[player_id]
        self.alerted.update(AmlAlert.objects.filter(player_id__in=new, gaming_day=day)
                            .values_list("kind", "player_id", "gaming_day"))

    def mark(self):
        """What ``undo`` goes back to: the state now."""
        return (len(self.movements), len(self.alerts), {key: dict(day) for key, day in self.days.items()},
                set(self.alerted))

    def undo(self, mark):
        """Forget what was checked since ``mark`` (a record refused)."""
        movements, alerts, self.days, self.alerted = mark
        del self.movements[movements:]
        del self.alerts[alerts:]

    def detach(self) -> list:
        """The movements and alerts kept, made ready to write and taken out of the batch:
        ``casino.bulk.CopyIn``s, the movements (their transactions' ids set already, their
        own taken now), then their alerts (which point at them)."""
        from casino.bulk import IdPool, instances_copy

        writes = [instances_copy(AmlMovement, self.movements, ids=IdPool(AmlMovement)),
                  instances_copy(AmlAlert, self.alerts)]
        self.movements, self.alerts = [], []
        return writes

    def forget(self):
        """Forget the days read (another service posted since); nothing may be pending."""
        if self.movements:
            raise RuntimeError("write the pending AML movements before another service posts")
        self.days.clear()
        self.alerted.clear()


def day_totals(*, day: date) -> dict[str, dict]:
    """Every patron's totals for gaming day ``day``, one query: his standing movements
    (a voided slip's is listed in the register but not added up).

    Returns:
        ``{player code: {"in", "out", "total" (Decimal), "movements" (int), "largest"
        (Decimal), "identified" (bool)}}``, ``total`` = in + out.
    """
    rows = (AmlMovement.objects.standing().filter(gaming_day=day).values("player__code")
            .annotate(cash_in=Sum("amount", filter=Q(direction=IN)), cash_out=Sum("amount", filter=Q(direction=OUT)),
                      n=Count("id"), largest=Max("amount"))
            .order_by("player__code"))
    from patrons.models import Player

    identified = {player.code: player.has_identity for player in Player.objects.filter(
        code__in=[row["player__code"] for row in rows])}
    return {row["player__code"]: {"in": row["cash_in"] or ZERO, "out": row["cash_out"] or ZERO,
                                  "total": (row["cash_in"] or ZERO) + (row["cash_out"] or ZERO),
                                  "movements": row["n"], "largest": row["largest"],
                                  "identified": identified[row["player__code"]]}
            for row in rows}


def alert_review(*, alert: AmlAlert, note: str, reviewed_by) -> AmlReview:
    """A compliance officer marks an alert reviewed, with his note (a new record each time).

    Returns:
        the AmlReview; the alert's latest review stands.
    Raises:
        ReviewError: an empty note (field ``note``).
        PermissionError: ``reviewed_by`` is no compliance officer.
    """
    from cage.errors import ReviewError
    from casino.roles import COMPLIANCE, has_role

    if not has_role(reviewed_by, COMPLIANCE):
        raise PermissionError("only a compliance officer reviews an AML alert")
    note = (note or "").strip()
    if not note:
        raise ReviewError(_("a review needs a note saying what was found"), field="note")
    return AmlReview.objects.create(alert=alert, note=note, reviewed_by=reviewed_by, reviewed_at=timezone.now(),
                                    retain_until=retain_until(max(alert.gaming_day, timezone.localdate())))


class AmlCheck:
    """The AML rules as the ledger's posting check (``ledger.posting.register_check``):
    ``check`` is ``aml_check``, ``record`` is ``aml_record``, ``batch`` an ``AmlBatch``."""

    @staticmethod
    def check(*, kind, legs, posted_by, at, source, patron):
        return aml_check(kind=kind, legs=legs, posted_by=posted_by, at=at, source=source, patron=patron)

    @staticmethod
    def record(pending, *, transaction, posted_by):
        aml_record(pending, transaction=transaction, posted_by=posted_by)

    @staticmethod
    def batch():
        return AmlBatch()
