"""The monthly statements (``reports.statements``): the list with the form asking for one,
a statement's page (its progress while Celery computes it, then its figures and the
signing), its CSV and PDF. Auditors."""

import re
from datetime import date

from django.contrib import messages
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from casino import formatting, periods
from casino.roles import AUDITOR, role_required
from reports.models import MonthlyStatement
from reports.statements import (
    StatementError,
    signature_words,
    statement_csv,
    statement_pdf,
    statement_request,
    statement_rows,
    statement_sign,
)

STAGES = {"month": gettext_lazy("counting the month"), "year_before": gettext_lazy("counting the year before"),
          "storing": gettext_lazy("storing"), "done": gettext_lazy("done"), "failed": gettext_lazy("failed")}


#: The month field as a browser's ``<input type="month">`` sends it: ASCII digits only.
MONTH = re.compile(r"(\d{4})-(\d{2})", re.ASCII)


def _month(value):
    """The first day of the month ``YYYY-MM`` names, or None (not that form, not a month)."""
    found = MONTH.fullmatch(value or "")
    try:
        return date(int(found[1]), int(found[2]), 1) if found else None
    except ValueError:
        return None


@require_http_methods(["GET", "POST"])
@role_required(AUDITOR)
def statement_list(request):
    """``/reports/statements/``: every version, newest first; POST ``month=YYYY-MM`` asks for one."""
    today = periods.gaming_day(timezone.now())
    if request.method == "POST":
        month = _month(request.POST.get("month"))
        if month is None:
            messages.error(request, _("Month: give it as year and month (2026-11)."))
            return redirect("reports:statements")
        try:
            statement = statement_request(month=month, requested_by=request.user, today=today)
        except StatementError as error:
            messages.error(request, str(error))
            return redirect("reports:statements")
        return redirect("reports:statement", pk=statement.pk)
    statements = MonthlyStatement.objects.select_related("signed_by", "requested_by")[:60]
    last_month = (today.replace(day=1) - timezone.timedelta(days=1)).replace(day=1)
    return render(request, "reports/statements.html", {"statements": statements,
                                                       "suggested": f"{last_month:%Y-%m}"})


def _state(statement):
    done = statement.status == MonthlyStatement.Status.DONE
    return {"status": statement.status, "status_label": statement.get_status_display(),
            "progress": statement.progress, "stage_label": str(STAGES.get(statement.stage, gettext_lazy("starting"))),
            "queued": True, "error": statement.error,
            "report_url": reverse("reports:statement", args=[statement.pk]) if done else ""}


@require_GET
@role_required(AUDITOR)
def statement_status(request, pk):
    """``/reports/statements/<pk>/status.json``: the progress the page polls."""
    return JsonResponse(_state(get_object_or_404(MonthlyStatement, pk=pk)))


@require_GET
@role_required(AUDITOR)
def statement_page(request, pk):
    """``/reports/statements/<pk>/[?format=csv|pdf]``: its progress, else its figures."""
    statement = get_object_or_404(MonthlyStatement.objects.select_related("signed_by"), pk=pk)
    wanted = request.GET.get("format")
    if wanted in ("csv", "pdf"):
        if statement.status != MonthlyStatement.Status.DONE:
            raise Http404(_("This statement is not computed yet."))
        name = f"statement-{statement.month:%Y-%m}-v{statement.version}"
        if wanted == "csv":
            response = HttpResponse(statement_csv(statement), content_type="text/csv; charset=utf-8")
            response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name(name)}"'
        else:
            response = HttpResponse(statement_pdf(statement), content_type="application/pdf")
            response["Content-Disposition"] = f'attachment; filename="{name}.pdf"'
        return response
    if statement.status != MonthlyStatement.Status.DONE:
        return render(request, "reports/statement_progress.html", {"statement": statement, "state": _state(statement)})
    return render(request, "reports/statement.html", {"statement": statement, "rows": statement_rows(statement),
                                                      "signature": signature_words(statement)})


@require_POST
@role_required(AUDITOR)
def statement_sign_view(request, pk):
    """POST ``/reports/statements/<pk>/sign/`` (after the page's confirmation): sign it."""
    statement = get_object_or_404(MonthlyStatement, pk=pk)
    try:
        statement_sign(statement=statement, auditor=request.user)
    except StatementError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("Statement signed."))
    return redirect("reports:statement", pk=pk)
