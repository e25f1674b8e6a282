"""Reads for the reports' pages: shifts to report on, stored reports, a request's state."""

from django.core.paginator import Paginator
from django.db.models import OuterRef, Subquery
from django.urls import reverse

from casino.periods import period_bounds
from reports.models import Report, ReportRequest
from reports.texts import stage_label
from tables.models import Hand, Shift

PER_PAGE = 25


def shifts_page(*, page=1, per_page: int = PER_PAGE):
    """A page of shifts, newest first, each with ``report_id`` (its latest stored
    report version or None) and ``request_status`` (its latest request's status or None)."""
    latest = ReportRequest.objects.filter(shift=OuterRef("pk")).order_by("-created_at", "-id")
    shifts = (Shift.objects.select_related("table", "dealer")
              .annotate(report_id=Subquery(Report.objects.filter(shift=OuterRef("pk")).order_by("-version").values("id")[:1]),
                        request_id=Subquery(latest.values("id")[:1]),
                        request_status=Subquery(latest.values("status")[:1]))
              .order_by("-opened_at", "-id"))
    return Paginator(shifts, per_page).get_page(page)


def reports_page(*, page=1, per_page: int = PER_PAGE):
    """A page of stored reports, newest first (without their JSON)."""
    reports = (Report.objects.select_related("table", "shift").defer("result").order_by("-computed_at", "-id"))
    return Paginator(reports, per_page).get_page(page)


def report_versions(report: Report) -> list[Report]:
    """Every stored version of ``report``'s subject, oldest first (without their JSON)."""
    return list(Report.objects.filter(key=report.key).defer("result").order_by("version"))


def requests_page(*, page=1, per_page: int = PER_PAGE):
    """A page of report requests, newest first."""
    requests = ReportRequest.objects.select_related("table", "requested_by").order_by("-created_at", "-id")
    return Paginator(requests, per_page).get_page(page)


def request_state(request: ReportRequest) -> dict:
    """What the progress bar polls: ``id``, ``status``, ``progress`` (0–100),
    ``stage`` and its words, ``error``, ``queued`` (sent to the broker), and
    ``report_url`` once done."""
    return {
        "id": request.pk,
        "status": request.status,
        "status_label": str(request.get_status_display()),
        "progress": request.progress,
        "stage": request.stage,
        "stage_label": stage_label(request.stage),
        "error": request.error,
        "queued": request.dispatched_at is not None,
        "report_url": reverse("reports:report", args=[request.report_id]) if request.report_id else None,
    }


def review_hands(*, table_id: int, date_from, date_to, shift: int | None = None, tenure: int | None = None,
                 dealer_id: int | None = None):
    """The hands a review reads (the review page's, the API's and the task that stores their
    theory): the table's hands opened in the gaming days ``date_from`` to ``date_to``
    (dates), of one shift, bank tenure or dealer (ids) when given. A Hand queryset."""
    start, end = period_bounds(date_from, date_to)
    hands = Hand.objects.filter(table_id=table_id, opened_at__gte=start, opened_at__lt=end)
    if shift:
        hands = hands.filter(shift_id=shift)
    if tenure:
        hands = hands.filter(tenure_id=tenure)
    if dealer_id:
        hands = hands.filter(dealer_id=dealer_id)
    return hands
