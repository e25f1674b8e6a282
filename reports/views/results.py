"""The casino's results (``reports.results``): a gaming day, the month and the year to
date against a year before, for the casino, each table and each profile; CSV. Auditors."""

from datetime import timedelta

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from casino import formatting, periods
from casino.roles import AUDITOR, role_required
from reports.results import results_csv, results_for, results_rows
from reports.views.journal import requested_day


@require_GET
@role_required(AUDITOR)
def results_page(request):
    """``/reports/results/?day=YYYY-MM-DD[&format=csv]``."""
    day = requested_day(request.GET.get("day"))
    if request.GET.get("format") == "csv":
        response = HttpResponse(results_csv(day), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name(f"results-{day.isoformat()}")}"'
        return response
    sections = [{**period, "rows": results_rows(period)} for period in results_for(day)]
    return render(request, "reports/results.html", {
        "day": day, "sections": sections, "previous": day - timedelta(days=1), "next": day + timedelta(days=1),
        "today": periods.gaming_day(timezone.now())})
