"""The accounting journal of a gaming day (``reports.journal``): the page, its CSV in the
reader's locale and its JSON for an accounting system. Read only; auditors."""

from datetime import date, timedelta

from django.http import HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET

from casino import formatting, periods
from casino.roles import AUDITOR, role_required
from reports.journal import journal_csv, journal_day, journal_json


def requested_day(value) -> date:
    """The gaming day asked for (``YYYY-MM-DD``), else today's."""
    try:
        return date.fromisoformat(value or "")
    except ValueError:
        return periods.gaming_day(timezone.now())


@require_GET
@role_required(AUDITOR)
def journal_page(request):
    """``/reports/journal/?day=YYYY-MM-DD[&format=csv|json]``: a gaming day's journal."""
    day = requested_day(request.GET.get("day"))
    journal = journal_day(day=day)
    wanted = request.GET.get("format")
    if wanted == "csv":
        response = HttpResponse(journal_csv(journal), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name(f"journal-{day.isoformat()}")}"'
        return response
    if wanted == "json":
        response = JsonResponse(journal_json(journal), json_dumps_params={"ensure_ascii": False, "indent": 1})
        response["Content-Disposition"] = f'attachment; filename="journal-{day.isoformat()}.json"'
        return response
    return render(request, "reports/journal.html", {
        "journal": journal, "previous": day - timedelta(days=1), "next": day + timedelta(days=1),
        "today": periods.gaming_day(timezone.now())})
