"""The auditors' alerts: the open ones (also on the auditor's home), one alert with its
evidence and history, its acknowledgement with a note. Thin: ``reports.alerts`` writes."""

import copy
from datetime import date
from decimal import Decimal

from django import forms
from django.contrib import messages
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods

from casino.roles import AUDITOR, role_required
from reports.alerts import NOTE_MIN, AlertError, alert_acknowledge, alert_ongoing, alert_updates
from reports.evidence import evidence_hand_links, evidence_hands_url
from reports.models import Alert
from reports.statistics import NIGHTLY_ALPHA
from reports.texts import alert_test_rows, alert_text, exception_text

PER_PAGE = 50
#: Hands shown as links in an alert's evidence (the rest are counted).
HANDS_SHOWN = 200


class AcknowledgeForm(forms.Form):
    """The auditor's note: what he checked and what he found."""

    note = forms.CharField(label=gettext_lazy("Note"), min_length=NOTE_MIN, max_length=4000,
                           widget=forms.Textarea(attrs={"rows": 4, "autofocus": True}),
                           help_text=gettext_lazy("What you checked and what you found (kept with the alert)."))


def alert_update_rows(alert):
    """An alert's later findings (``reports.alerts.alert_updates``), each also with
    ``hand_total`` and ``hands_url`` (the hand history filtered to its hands, or None)."""
    updates = alert_updates(alert)
    for update in updates:
        evidence = update.evidence if isinstance(update.evidence, dict) else {}
        update.hand_total = evidence.get("hand_total", evidence.get("hands"))
        shown = copy.copy(alert)
        shown.evidence = evidence
        update.hands_url = evidence_hands_url(shown)
    return updates


def open_alerts(limit=None):
    """The open alerts, latest first, each with ``text`` (its finding in words) and
    ``ongoing`` (``reports.alerts.alert_ongoing``)."""
    rows = (Alert.objects.filter(status=Alert.Status.OPEN).select_related("table").prefetch_related("updates")
            .order_by("-opened_at", "-id"))
    if limit is not None:
        rows = rows[:limit]
    alerts = list(rows)
    for alert in alerts:
        alert.text = alert_text(alert.kind, alert.code, alert.evidence)
        alert.ongoing = alert_ongoing(alert)
    return alerts


@require_GET
@role_required(AUDITOR)
def alert_list(request):
    """Alerts, open ones by default (``?status=acknowledged`` or ``all`` for the others)."""
    status = request.GET.get("status", "open")
    rows = Alert.objects.select_related("table").prefetch_related("updates").order_by("-opened_at", "-id")
    if status in (Alert.Status.OPEN, Alert.Status.ACKNOWLEDGED):
        rows = rows.filter(status=status)
    else:
        status = "all"
    page = Paginator(rows, PER_PAGE).get_page(request.GET.get("page"))
    for alert in page:
        alert.text = alert_text(alert.kind, alert.code, alert.evidence)
        alert.ongoing = alert_ongoing(alert)
    return render(request, "reports/alerts.html", {"page": page, "status": status,
                                                   "open_count": Alert.objects.filter(status="open").count(),
                                                   "nightly_percent": Decimal(str(NIGHTLY_ALPHA)) * 100})


def _evidence_hands(alert):
    """The hands an alert's evidence names, as ``[(table id, number)]`` for links, and their
    count (``reports.evidence.evidence_hand_links``: old evidence never breaks the page)."""
    return evidence_hand_links(alert, HANDS_SHOWN)


def _exception_items(alert):
    """A grouped exception alert's exceptions in words (at most ``HANDS_SHOWN``), or []."""
    evidence = alert.evidence if isinstance(alert.evidence, dict) else {}
    items = evidence.get("items") if alert.kind == "exception" else None
    if not isinstance(items, list):
        return []
    return [exception_text(item) for item in items[:HANDS_SHOWN] if isinstance(item, dict)]


def _large_bet_figures(alert):
    """A grouped large-bet alert's figures (count, total, largest, threshold, gaming day), or None."""
    evidence = alert.evidence if isinstance(alert.evidence, dict) else {}
    if alert.kind != "large_bet" or alert.code != "stakes":
        return None
    try:
        return {"count": int(evidence["count"]), "total": Decimal(evidence["total"]),
                "largest": Decimal(evidence["largest"]), "threshold": Decimal(evidence["threshold"]),
                "gaming_day": date.fromisoformat(evidence["gaming_day"]), "player": evidence.get("player")}
    except (KeyError, TypeError, ValueError, ArithmeticError):
        return None


@require_http_methods(["GET", "HEAD", "POST"])
@role_required(AUDITOR)
def alert_detail(request, pk):
    """One alert: its finding, its evidence (figures and hands), its history; an open one
    is acknowledged here with a note (POST)."""
    alert = get_object_or_404(Alert.objects.select_related("table", "shift", "report"), pk=pk)
    form = AcknowledgeForm(request.POST or None)
    if request.method == "POST":
        if form.is_valid():
            try:
                alert_acknowledge(alert_id=alert.pk, note=form.cleaned_data["note"], by=request.user)
            except AlertError as error:
                form.add_error("note" if error.field == "note" else None, str(error))
            else:
                messages.success(request, _("Alert #%(id)s acknowledged.") % {"id": alert.pk})
                return redirect("reports:alerts")
    hands, total = _evidence_hands(alert)
    evidence = alert.evidence if isinstance(alert.evidence, dict) else {}
    items = _exception_items(alert)
    context = {"alert": alert, "text": alert_text(alert.kind, alert.code, alert.evidence), "form": form,
               "changes": alert.changes.select_related("by").order_by("at", "id"), "hands": hands,
               "hand_total": total, "categories": evidence.get("categories"),
               "hands_url": evidence_hands_url(alert), "items": items,
               "item_total": evidence.get("item_total", len(items)) if items else 0,
               "figures": _large_bet_figures(alert),
               "test_rows": alert_test_rows(str(alert.kind), alert.code, alert.evidence),
               "updates": alert_update_rows(alert)}
    return render(request, "reports/alert.html", context, status=400 if request.method == "POST" else 200)
