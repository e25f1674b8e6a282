"""Alerts: raising them (idempotent: a finding is one alert however often it is found) and
an auditor's acknowledgement with his note. One transaction each.

Any finding can become an alert: a report's exception (a reconciliation difference, a
gap, a broken chain, any code ``reports.audit`` or another module appends to a report's
``exceptions``), a large bet, or a statistical finding of ``reports.detection``. A
finding is a ``Finding``: its kind, its code, its subject (what it is about: ``shift:12``,
``hand:345``, ``table:3:2026-11-01:2026-11-30``), its identity (what makes two findings
the same: the subject and the code, plus e.g. the pair's people) and its evidence
(structured data: ids and numbers).

A finding may also name its group (``Finding.group``: e.g. a pooled group's window, "player
p5 over the week"): a new finding of a group that has an open alert (found again on a later
night with more hands) joins that alert as an ``AlertEvidence`` (the alert is ongoing, its
latest figures and hands attributed to the run) instead of opening another; once the alert
is acknowledged, the group's next finding opens a new alert.

A statistical finding names the bets it tested (``Finding.bets``): the same bets found
again under another name (a shift's holder × player pair one night, the dealer × player
over the week the next, when they met only in those hands) or over a longer window are
that finding, open or acknowledged, never another alert.
"""

import hashlib
import json
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError
from django.db import IntegrityError
from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _

from casino.roles import AUDITOR, has_role
from reports.models import Alert, AlertChange, AlertEvidence, AlertKind
from reports.texts import alert_text

#: An acknowledgement's note: at least this many characters (a word or two is not a note).
NOTE_MIN = 5


class AlertError(ValidationError):
    """An acknowledgement refused: the message says why; ``field`` names the form field."""

    def __init__(self, message, *, params=None, field=None):
        super().__init__(message, code="alert", params=params)
        self.field = field

    def __str__(self):
        return " ".join(self.messages)


@dataclass(frozen=True)
class Finding:
    """A finding that raises an alert.

    Attributes:
        kind: an ``AlertKind`` value.
        code: what was found, within the kind (``"gaps"``, ``"dealer×bank"``, ``"first:bank"``).
        subject: what it is about, e.g. ``"shift:12"`` or ``"hand:345"`` (at most 120 characters).
        identity: what, besides kind, code and subject, tells this finding from another of the
            same subject (e.g. the pair's two people); JSON-serialisable.
        evidence: the finding's data (JSON: ids of hands, bets, tenures; numbers).
        table_id, shift_id, report_id: where it was found (optional).
        group: what, besides kind, code and subject, makes later findings the same ongoing
            finding (e.g. the window, ``"week"``); None: none (each finding its own alert).
        bets: the digest of the bets a statistical finding tested (64 hex digits,
            ``reports.pooling.bets_digest``); a finding of the same bets as one raised
            before is that one. "": none.
    """

    kind: str
    code: str
    subject: str
    identity: object = None
    evidence: dict = field(default_factory=dict)
    table_id: int | None = None
    shift_id: int | None = None
    report_id: int | None = None
    group: object = None
    bets: str = ""

    @property
    def group_key(self) -> str:
        """SHA-256 (hex) of kind, code, subject and group as sorted JSON; "" without a group."""
        if self.group is None:
            return ""
        text = json.dumps([self.kind, self.code, self.subject, self.group], sort_keys=True, default=str,
                          ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()

    @property
    def fingerprint(self) -> str:
        """SHA-256 (hex) of kind, code, subject and identity as sorted JSON."""
        text = json.dumps([self.kind, self.code, self.subject, self.identity], sort_keys=True, default=str,
                          ensure_ascii=False)
        return hashlib.sha256(text.encode()).hexdigest()


def alert_raise(*, finding: Finding, run=None) -> tuple[Alert, bool]:
    """Open an alert for a finding, unless that finding already has one (open or
    acknowledged, or joined to one): idempotent, safe under concurrent raises (unique
    fingerprints; one open alert per group). A new finding of a group (``Finding.group``)
    whose alert is open joins it: an ``AlertEvidence`` row with the finding's evidence,
    attributed to ``run``; nothing of the alert changes. A finding of the same bets
    (``Finding.bets``) as an alert's, or as a finding joined to one, is that alert's.

    Args:
        finding: the ``Finding``.
        run: the ``PooledReview`` that found it (None: another source), kept on a joined
            finding's evidence row.
    Returns:
        ``(alert, created)``: the alert of this finding (the open alert it joined, if it
        did); created False if it existed or joined one (``alert_raise_joined`` tells which).
    Raises:
        ValueError: an unknown kind.
    """
    alert, outcome = alert_raise_joined(finding=finding, run=run)
    return alert, outcome == "opened"


def alert_raise_joined(*, finding: Finding, run=None, _retry=True) -> tuple[Alert, str]:
    """``alert_raise``, saying what happened: ``(alert, outcome)``, outcome ``"opened"``
    (a new alert), ``"joined"`` (an ``AlertEvidence`` added to the group's open alert) or
    ``"known"`` (this finding was raised before: nothing written). One transaction.

    Raises:
        ValueError: an unknown kind.
    """
    if finding.kind not in AlertKind.values:
        raise ValueError(f"unknown alert kind {finding.kind!r}")
    fingerprint = finding.fingerprint
    group = finding.group_key
    with db.atomic():
        existing = Alert.objects.filter(fingerprint=fingerprint).first()
        if existing is not None:
            return existing, "known"
        joined = AlertEvidence.objects.filter(fingerprint=fingerprint).select_related("alert").first()
        if joined is not None:
            return joined.alert, "known"
        if finding.bets:  # the same bets found before under another name or window: the same finding
            existing = Alert.objects.filter(bets=finding.bets).order_by("pk").first()
            if existing is not None:
                return existing, "known"
            joined = AlertEvidence.objects.filter(bets=finding.bets).select_related("alert").order_by("pk").first()
            if joined is not None:
                return joined.alert, "known"
        try:
            with db.atomic():
                now = timezone.now()
                if group:
                    ongoing = Alert.objects.select_for_update().filter(group=group, status=Alert.Status.OPEN).first()
                    if ongoing is not None:
                        AlertEvidence.objects.create(alert=ongoing, fingerprint=fingerprint, evidence=finding.evidence,
                                                     run=run, found_at=now, bets=finding.bets)
                        return ongoing, "joined"
                alert = Alert.objects.create(
                    kind=finding.kind, code=finding.code[:64], subject=finding.subject[:120], fingerprint=fingerprint,
                    table_id=finding.table_id, shift_id=finding.shift_id, report_id=finding.report_id,
                    evidence=finding.evidence, opened_at=now, group=group, bets=finding.bets)
                AlertChange.objects.create(alert=alert, action=AlertChange.Action.OPENED, by=None, at=now)
        except IntegrityError:  # a concurrent raise of the same finding (or group) committed first
            if not _retry:
                raise
            return alert_raise_joined(finding=finding, run=run, _retry=False)
        return alert, "opened"


def alerts_raise(*, findings, run=None) -> list[Alert]:
    """Raise each finding (``alert_raise``) in one transaction.

    Args:
        findings: ``Finding``s.
        run: the ``PooledReview`` that found them (None: another source).
    Returns:
        the alerts opened now (findings that already had one, or joined an open one, are
        left out).
    """
    return alerts_raise_counted(findings=findings, run=run)["opened"]


def alerts_raise_counted(*, findings, run=None) -> dict:
    """``alerts_raise``, with what happened to each finding: ``{"opened": [alerts opened],
    "joined": [the open alerts joined, once per joining finding], "known": [alerts of
    findings raised before]}``. One transaction."""
    out = {"opened": [], "joined": [], "known": []}
    with db.atomic():
        for finding in findings:
            alert, outcome = alert_raise_joined(finding=finding, run=run)
            out[outcome].append(alert)
    return out


def alert_acknowledge(*, alert_id: int, note: str, by) -> Alert:
    """An auditor acknowledges an open alert with his note: the alert is closed, and an
    ``AlertChange`` row records who, when and why. Nothing else changes.

    Args:
        alert_id: the Alert's id.
        note: why it is acknowledged (what was checked, what was found); at least
            ``NOTE_MIN`` characters once trimmed.
        by: the auditor (a user holding the auditor role).
    Returns:
        the Alert, acknowledged.
    Raises:
        AlertError: no such alert, the note is too short, the user is not an auditor, or
            the alert was already acknowledged (by whom, when).
    """
    note = (note or "").strip()
    if by is None or not has_role(by, AUDITOR):
        raise AlertError(_("Only an auditor can acknowledge an alert."), field=None)
    if len(note) < NOTE_MIN:
        raise AlertError(_("Write a note of at least %(n)s characters: what you checked and what you found."),
                         params={"n": NOTE_MIN}, field="note")
    with db.atomic():
        alert = Alert.objects.select_for_update().filter(pk=alert_id).first()
        if alert is None:
            raise AlertError(_("Alert #%(id)s does not exist."), params={"id": alert_id}, field=None)
        if alert.status != Alert.Status.OPEN:
            change = alert.changes.filter(action=AlertChange.Action.ACKNOWLEDGED).select_related("by").first()
            raise AlertError(_("Alert #%(id)s was already acknowledged by %(user)s."),
                             params={"id": alert.pk, "user": change.by.get_username() if change else "?"},
                             field=None)
        AlertChange.objects.create(alert=alert, action=AlertChange.Action.ACKNOWLEDGED, note=note, by=by,
                                   at=timezone.now())
        alert.status = Alert.Status.ACKNOWLEDGED
        alert.save(update_fields=["status"])
        return alert


def alert_updates(alert) -> list[AlertEvidence]:
    """An alert's later findings joined to it (``AlertEvidence``), oldest first, each with
    ``text``: its figures in words (the reader's language). Reads ``alert.updates.all()``
    (prefetched by a list's query, else one query)."""
    updates = sorted(alert.updates.all(), key=lambda update: (update.found_at, update.pk))
    for update in updates:
        update.text = alert_text(alert.kind, alert.code, update.evidence)
    return updates


def alert_ongoing(alert) -> dict | None:
    """None when no later finding joined the alert, else ``{"count", "latest"}``: how many
    did and the latest (an ``AlertEvidence`` with ``text``, as ``alert_updates``): what the
    alerts' pages and ``GET /api/alerts/`` say of an ongoing alert."""
    updates = alert_updates(alert)
    return {"count": len(updates), "latest": updates[-1]} if updates else None
