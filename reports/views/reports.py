"""The auditors' pages: start a report, watch it, read it, download it. Thin: a form
checks the input, ``reports.services`` queues, ``reports.selectors`` reads.
Auditors only (a superuser has every role); starting a report is an auditor's POST."""

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from casino.formatting import csv_name
from casino.roles import AUDITOR, role_required
from reports import selectors, services
from reports.exports import (
    bet_kind_rows,
    card_rows,
    chart_svg,
    chart_title,
    report_csv,
    report_pdf,
    tenure_life,
)
from reports.forms import BankReportForm, ShiftReportForm
from reports.models import Report, ReportKind, ReportRequest
from reports.texts import (
    BEGAN,
    BET_KINDS,
    BOXES,
    ENDED,
    RECONCILED,
    RESULTS,
    event_text,
    exception_text,
)
from tables.rules_words import deck_words

LIST_PER_PAGE = 50


@require_GET
@role_required(AUDITOR)
def index(request):
    """Shifts to report on, the bank-rotation form, the latest requests and reports."""
    return render(request, "reports/index.html", {
        "shifts": selectors.shifts_page(page=request.GET.get("shifts")),
        "reports": selectors.reports_page(page=request.GET.get("reports")),
        "requests": selectors.requests_page(page=request.GET.get("requests"), per_page=10),
        "banks_form": BankReportForm(),
    })


def _queued(request, report_request):
    if report_request.status == ReportRequest.Status.DONE and report_request.report_id:
        return redirect("reports:report", pk=report_request.report_id)
    return redirect("reports:request", pk=report_request.pk)


@require_POST
@role_required(AUDITOR)
def request_shift(request):
    """Start a shift's report; then watch it."""
    form = ShiftReportForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose a shift to report on."))
        return redirect("reports:index")
    shift = form.cleaned_data["shift"]
    try:
        queued = services.report_request(kind=ReportKind.SHIFT, table=shift.table, shift=shift,
                                         requested_by=request.user)
    except services.ReportError as error:
        messages.error(request, str(error))
        return redirect("reports:index")
    return _queued(request, queued)


@require_POST
@role_required(AUDITOR)
def request_banks(request):
    """Start a bank-rotation report of a table over a period; then watch it."""
    form = BankReportForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            queued = services.report_request(kind=ReportKind.BANKS, table=data["table"], date_from=data["date_from"],
                                             date_to=data["date_to"], requested_by=request.user)
        except services.ReportError as error:
            form.add_error(error.field if error.field in form.fields else None, str(error))
        else:
            return _queued(request, queued)
    return render(request, "reports/index.html", {
        "shifts": selectors.shifts_page(page=1), "reports": selectors.reports_page(page=1),
        "requests": selectors.requests_page(page=1, per_page=10), "banks_form": form}, status=400)


@require_GET
@role_required(AUDITOR)
def request_page(request, pk):
    """A request's progress bar (polls ``request_status``); the report once done."""
    report_request = get_object_or_404(ReportRequest.objects.select_related("table", "shift", "requested_by"), pk=pk)
    return render(request, "reports/request.html", {"report_request": report_request,
                                                    "state": selectors.request_state(report_request)})


@require_GET
@role_required(AUDITOR)
def request_status(request, pk):
    """The small JSON the progress bar polls (``reports.selectors.request_state``)."""
    report_request = get_object_or_404(ReportRequest, pk=pk)
    return JsonResponse(selectors.request_state(report_request))


def _page(rows, request, name):
    return Paginator(rows, LIST_PER_PAGE).get_page(request.GET.get(name))


@require_GET
@role_required(AUDITOR)
def report_page(request, pk):
    """A stored report as a page; long lists are paginated, the chart is inline SVG."""
    report = get_object_or_404(Report.objects.select_related("table", "shift"), pk=pk)
    result = report.result
    context = {
        "report": report, "result": result, "summary": result["summary"],
        "exceptions": [exception_text(item) for item in result["exceptions"]],
        "chart": mark_safe(chart_svg(report)),  # numbers and translated labels we wrote, escaped
        "chart_title": chart_title(report) if result["chart"]["points"] else "",
        "began": BEGAN, "ended": ENDED,
        "versions": selectors.report_versions(report),
        "report_alerts": _report_alerts(report), "review_url": _review_url(report),
    }
    if report.kind == ReportKind.SHIFT:
        context.update(
            results=[{**row, "label": RESULTS.get(row["result"], row["result"])} for row in result["results"]],
            kinds=[{**value, "label": BET_KINDS.get(kind, kind)} for kind, value in bet_kind_rows(result)],
            cards=[{**test, "cells": card_rows(test), "deck_words": deck_words(test["deck"])}
                   for test in result["cards"]],
            reconciliation=[{**row, "label": RECONCILED.get(row["what"], row["what"])}
                            for row in result["reconciliation"]["lines"]],
            tenures=_page([{**row, "began_label": BEGAN.get(row["began"], row["began"])} for row in result["tenures"]],
                          request, "tenures"),
            players=_page(result["players"], request, "players"),
            voids=_page(result["voids"], request, "voids"),
            undos=_page([{**row, "undone_text": event_text(row["undone"])} for row in result["undos"]],
                        request, "undos"),
            boxes=_boxes(result.get("boxes")),
        )
        return render(request, "reports/shift.html", context)
    context.update(
        tenures=_page([{**row, "began_label": BEGAN.get(row["began"], row["began"]),
                        "ended_label": ENDED.get(row["ended"], "") if row["ended"] else "",
                        "life": tenure_life(row)}
                       for row in result["tenures"]], request, "tenures"),
        chain=result["chain"],
    )
    return render(request, "reports/banks.html", context)


def _boxes(boxes):
    """The report's boxes section with each box named (a report stored before it: None)."""
    if boxes is None:
        return None
    return {**boxes, "counts": [{**row, "label": BOXES.get(row["box"], row["box"])} for row in boxes["counts"]],
            "not_counted": [BOXES.get(box, box) for box in boxes["not_counted"]]}


def _report_alerts(report):
    """The alerts this report raised, each with its finding in words."""
    from reports.texts import alert_text

    alerts = list(report.alerts.select_related("table").order_by("-opened_at", "-id"))
    for alert in alerts:
        alert.text = alert_text(alert.kind, alert.code, alert.evidence)
    return alerts


def _review_url(report):
    """The review page of the report's hands: its shift, or its table and period."""
    from urllib.parse import urlencode

    from django.urls import reverse
    from django.utils import timezone

    if report.kind == ReportKind.SHIFT:
        shift = report.shift
        start = timezone.localdate(shift.opened_at)
        end = timezone.localdate(shift.closed_at) if shift.closed_at else timezone.localdate()
        query = {"table": report.table_id, "date_from": start, "date_to": max(start, end), "shift": shift.pk,
                 "funnel": "tenure"}
    else:
        query = {"table": report.table_id, "date_from": report.date_from, "date_to": report.date_to,
                 "funnel": "tenure"}
    return f"{reverse('reports:review')}?{urlencode(query)}"


def _filename(report, extension):
    """``report-shift-mesa-1-shift-12.pdf``; a CSV's name also says its separator
    (``…-semicolon.csv``: ``casino.formatting.csv_name``), as its first line does."""
    table = "".join(c if c.isalnum() else "-" for c in report.table.name).strip("-").lower()
    subject = f"shift-{report.shift_id}" if report.kind == ReportKind.SHIFT else f"{report.date_from}_{report.date_to}"
    if extension == "csv":
        return csv_name(f"report-{report.kind}-{table}-{subject}")
    return f"report-{report.kind}-{table}-{subject}.{extension}"


@require_GET
@role_required(AUDITOR)
def report_csv_download(request, pk):
    """The stored report as a CSV file."""
    report = get_object_or_404(Report.objects.select_related("table"), pk=pk)
    response = HttpResponse(report_csv(report), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{_filename(report, "csv")}"'
    return response


@require_GET
@role_required(AUDITOR)
def report_pdf_download(request, pk):
    """The stored report as a PDF file, with the chart."""
    report = get_object_or_404(Report.objects.select_related("table"), pk=pk)
    response = HttpResponse(report_pdf(report), content_type="application/pdf")
    response["Content-Disposition"] = f'attachment; filename="{_filename(report, "pdf")}"'
    return response
