"""The monthly statement the regulator asks for: a month's results (``reports.results``)
for the casino, each table and each profile against the same month a year before,
computed by Celery with its progress shown, then signed by an auditor.

A statement is a ``reports.models.MonthlyStatement``: asked for by hand (``statement_request``,
from the statements page) or nightly by beat (``statement_request_nightly``: the month to
date of the gaming day just ended, so that on the 1st the whole month before is there to
sign), computed by the task ``reports.monthly_statement`` (``statement_compute``: by id,
safe to run twice), signed once (``statement_sign``: HMAC-SHA256 under ``CHAIN_KEY`` over
the month, the version, the figures and the signer). ``statement_faults`` checks every
signature (``ledger_check`` runs it): a signed statement whose figures were rewritten is a
fault. CSV and PDF in the reader's language (``statement_csv``, ``statement_pdf``).
"""

import calendar
import hmac
import io
import json
from datetime import date, timedelta

from django.db import transaction as db
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from casino import formatting, keys
from casino.periods import gaming_day
from casino.roles import AUDITOR, has_role
from reports.models import MonthlyStatement
from reports.results import (
    FIGURES,
    period_from_json,
    period_json,
    period_results,
    results_rows,
    year_before,
)

#: The earliest year a statement counts (its year before must be a calendar year too).
FIRST_YEAR = 1900


class StatementError(Exception):
    """A statement asked for, or signed, against the rules: ``str(error)`` says which."""


def month_bounds(month: date, today: date) -> tuple[date, date]:
    """The gaming days a statement of ``month`` counts: its first, and its last or
    ``today``'s eve while the month runs.

    Raises:
        StatementError: a month that has not begun (nothing to count yet), or one before
            ``FIRST_YEAR``.
    """
    first = month.replace(day=1)
    if first.year < FIRST_YEAR:
        raise StatementError(_("Month: give one from %(year)s on.") % {"year": FIRST_YEAR})
    last = first.replace(day=calendar.monthrange(first.year, first.month)[1])
    if first >= today:
        raise StatementError(_("The month of %(month)s has no gaming day over yet.") % {
            "month": formatting.day(first, "YEAR_MONTH_FORMAT")})
    return first, min(last, today - timedelta(days=1))


def statement_request(*, month: date, requested_by=None, today: date | None = None) -> MonthlyStatement:
    """Ask for a new version of ``month``'s statement and queue its computation once this
    transaction commits (``reports.monthly_statement``).

    Args:
        month: any day of the month; requested_by: the auditor, None for beat;
        today: the current gaming day (default: now's).
    Returns:
        the pending MonthlyStatement.
    Raises:
        StatementError: a month not begun; someone without the auditor's role.
    """
    if requested_by is not None and not has_role(requested_by, AUDITOR):
        raise StatementError(_("Only an auditor asks for a monthly statement."))
    today = gaming_day(timezone.now()) if today is None else today
    first, last = month_bounds(month, today)
    with db.atomic():
        last_version = (MonthlyStatement.objects.select_for_update().filter(month=first)
                        .order_by("-version").values_list("version", flat=True).first())
        statement = MonthlyStatement.objects.create(month=first, version=(last_version or 0) + 1, last_day=last,
                                                    requested_by=requested_by)

        def queue():
            from reports.tasks import monthly_statement

            monthly_statement.delay(statement.pk)

        db.on_commit(queue)
    return statement


def statement_request_nightly(*, today: date | None = None) -> MonthlyStatement | None:
    """Beat's nightly statement: the month to date of the gaming day just ended (on the
    1st, the whole month before). None when that month already has a version counting
    that day (the task ran twice)."""
    today = gaming_day(timezone.now()) if today is None else today
    yesterday = today - timedelta(days=1)
    month = yesterday.replace(day=1)
    if MonthlyStatement.objects.filter(month=month, last_day=yesterday).exclude(status="failed").exists():
        return None
    return statement_request(month=month, today=today)


def _progress(statement_id, percent, stage):
    MonthlyStatement.objects.filter(pk=statement_id, status=MonthlyStatement.Status.RUNNING).update(
        progress=percent, stage=stage)


def statement_compute(*, statement_id: int) -> MonthlyStatement:
    """Compute a pending (or interrupted) statement and store its figures once.

    Idempotent: a statement done or failed is returned as it is.
    Returns:
        the MonthlyStatement, ``done`` with its ``figures`` (``{"month": {"now": period,
        "before": period}}``, each period ``first``, ``last``, ``casino``, ``tables``,
        ``profiles``, figures as strings of euros with two places, ``hold`` a percent
        string or None), or ``failed`` with its ``error``.
    """
    with db.atomic():
        statement = MonthlyStatement.objects.select_for_update().get(pk=statement_id)
        if statement.status in (MonthlyStatement.Status.DONE, MonthlyStatement.Status.FAILED):
            return statement
        statement.status, statement.progress, statement.stage = MonthlyStatement.Status.RUNNING, 5, "month"
        statement.save(update_fields=["status", "progress", "stage"])
    try:
        now = period_results(first=statement.month, last=statement.last_day)
        _progress(statement_id, 50, "year_before")
        before = period_results(first=year_before(statement.month), last=year_before(statement.last_day))
        _progress(statement_id, 90, "storing")
        figures = {"month": {"now": period_json(now), "before": period_json(before)}}
        fields = {"status": MonthlyStatement.Status.DONE, "figures": figures, "progress": 100, "stage": "done",
                  "computed_at": timezone.now()}
    except Exception as error:  # stored for the page, then raised again for the worker's log
        MonthlyStatement.objects.filter(pk=statement_id).update(status=MonthlyStatement.Status.FAILED,
                                                                error=str(error)[:2000], stage="failed")
        raise
    MonthlyStatement.objects.filter(pk=statement_id, status=MonthlyStatement.Status.RUNNING).update(**fields)
    return MonthlyStatement.objects.get(pk=statement_id)


def statement_signature(statement: MonthlyStatement, *, key_id: str, signer_id: int, signed_at) -> str | None:
    """HMAC-SHA256 (hex) under key ``key_id`` of the statement's month, version, last day,
    figures (canonical JSON), signer and instant; None when this server lacks that key."""
    key = keys.secret(key_id)
    if key is None:
        return None
    body = json.dumps({"month": statement.month.isoformat(), "version": statement.version,
                       "last_day": statement.last_day.isoformat(), "figures": statement.figures,
                       "signer": signer_id, "signed_at": signed_at.isoformat()},
                      sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return keys.hmac_hex(key, body)


def statement_sign(*, statement: MonthlyStatement, auditor) -> MonthlyStatement:
    """Sign a computed statement, once (one transaction).

    Raises:
        StatementError: not an auditor; not computed yet; signed already.
    """
    if not has_role(auditor, AUDITOR):
        raise StatementError(_("Only an auditor signs a monthly statement."))
    with db.atomic():
        statement = MonthlyStatement.objects.select_for_update().get(pk=statement.pk)
        if statement.status != MonthlyStatement.Status.DONE:
            raise StatementError(_("This statement is not computed yet: sign it once its figures are there."))
        if statement.signed_by_id is not None:
            raise StatementError(_("This statement was signed already, by %(user)s.") % {
                "user": statement.signed_by.get_username()})
        signed_at = timezone.now().replace(microsecond=0)
        statement.signed_by, statement.signed_at, statement.key_id = auditor, signed_at, keys.current_key_id()
        statement.signature = statement_signature(statement, key_id=statement.key_id, signer_id=auditor.pk,
                                                  signed_at=signed_at)
        statement.save(update_fields=["signed_by", "signed_at", "key_id", "signature"])
    return statement


def statement_faults() -> list[dict]:
    """Every signed statement whose signature is not its figures' any more.

    Returns:
        ``[{"code": "statement_forged", "statement": id, "month": "YYYY-MM", "version": n}]``
        (a statement signed with a key this server lacks is left unchecked).
    """
    faults = []
    for statement in MonthlyStatement.objects.filter(signed_by__isnull=False).order_by("pk").iterator():
        expected = statement_signature(statement, key_id=statement.key_id, signer_id=statement.signed_by_id,
                                       signed_at=statement.signed_at)
        if expected is not None and not hmac.compare_digest(expected, statement.signature):
            faults.append({"code": "statement_forged", "statement": statement.pk,
                           "month": f"{statement.month:%Y-%m}", "version": statement.version})
    return faults


def statement_rows(statement: MonthlyStatement) -> list[dict]:
    """The statement's rows for the page, the CSV and the PDF: ``reports.results.results_rows``
    of its stored month and the same month a year before (``[]`` before it is computed)."""
    month = (statement.figures or {}).get("month")
    if not month:
        return []
    return results_rows({"now": period_from_json(month["now"]), "before": period_from_json(month["before"])})


FIGURE_WORDS = {"drop": gettext_lazy("Drop"), "handle": gettext_lazy("Handle"),
                "commission": gettext_lazy("Commission"), "tips": gettext_lazy("Tips"),
                "banks_result": gettext_lazy("Banks' result"), "hold": gettext_lazy("House hold %")}


def _words():
    return {name: str(text) for name, text in FIGURE_WORDS.items()}


def statement_csv(statement: MonthlyStatement) -> str:
    """The statement as CSV in the reader's language and locale (``casino.formatting``): a
    line naming the separator, the month and its signature, then a row per level."""
    buffer = io.StringIO()
    writer, description = formatting.csv_writer(buffer)
    writer.writerow([f"# {description}"])
    writer.writerow([_("Monthly statement"), formatting.day(statement.month, "YEAR_MONTH_FORMAT"),
                     _("version %(version)s") % {"version": statement.version},
                     _("gaming days %(first)s to %(last)s") % {
                         "first": formatting.day(statement.month, "SHORT_DATE_FORMAT"),
                         "last": formatting.day(statement.last_day, "SHORT_DATE_FORMAT")},
                     signature_words(statement)])
    words = _words()
    header = [_("Level"), _("Name")]
    for name in (*FIGURES, "hold"):
        header += [words[name], _("%(figure)s a year before") % {"figure": words[name]}]
    writer.writerow(header)
    levels = {"casino": _("casino"), "table": _("table"), "profile": _("profile")}
    for row in statement_rows(statement):
        line = [levels[row["level"]], row["name"]]
        for name in (*FIGURES, "hold"):
            line += [formatting.csv_amount(getattr(row["now"], name)), formatting.csv_amount(getattr(row["before"], name))]
        writer.writerow(line)
    return buffer.getvalue()


def signature_words(statement: MonthlyStatement) -> str:
    """Who signed and when, with the signature's first 16 hex digits; or "not signed"."""
    if statement.signed_by_id is None:
        return _("not signed")
    return _("signed by %(user)s on %(when)s · signature %(signature)s…") % {
        "user": statement.signed_by.get_username(), "when": formatting.instant(statement.signed_at),
        "signature": statement.signature[:16]}


def statement_pdf(statement: MonthlyStatement) -> bytes:
    """The statement as an A4 PDF (reportlab): the title, the period, the table of figures
    now and a year before, and the signature block."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    buffer = io.BytesIO()
    document = SimpleDocTemplate(buffer, pagesize=landscape(A4), title=_("Monthly statement"))
    styles = getSampleStyleSheet()
    words = _words()
    levels = {"casino": _("casino"), "table": _("table"), "profile": _("profile")}
    story = [Paragraph(_("Monthly statement · %(month)s · version %(version)s") % {
        "month": formatting.day(statement.month, "YEAR_MONTH_FORMAT"), "version": statement.version}, styles["Title"]),
        Paragraph(_("Gaming days %(first)s to %(last)s, against the same days a year before (euros).") % {
            "first": formatting.day(statement.month, "SHORT_DATE_FORMAT"),
            "last": formatting.day(statement.last_day, "SHORT_DATE_FORMAT")}, styles["Normal"]), Spacer(1, 8)]
    header = [_("Level"), _("Name")] + [words[name] for name in (*FIGURES, "hold")]
    data = [header]
    def shown(figures, name):  # only the hold is ever None (no handle)
        value = getattr(figures, name)
        return "—" if value is None else formatting.number(value, 2)

    for row in statement_rows(statement):
        data.append([levels[row["level"]], row["name"]] + [shown(row["now"], name) for name in (*FIGURES, "hold")])
        data.append(["", _("a year before")] + [shown(row["before"], name) for name in (*FIGURES, "hold")])
    grid = Table(data, repeatRows=1)
    grid.setStyle(TableStyle([("FONTSIZE", (0, 0), (-1, -1), 8), ("ALIGN", (2, 1), (-1, -1), "RIGHT"),
                              ("LINEBELOW", (0, 0), (-1, 0), 0.5, colors.black),
                              ("TEXTCOLOR", (0, 2), (-1, -1), colors.black)]))
    story += [grid, Spacer(1, 16), Paragraph(signature_words(statement), styles["Normal"])]
    document.build(story)
    return buffer.getvalue()
