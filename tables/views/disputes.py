"""The dispute desk, under /tables/disputes/: a dispute opened on a hand (from the hand's
page), the hand as it stood after any of its entries (``?step=N``: the felt redrawn from
the replay of its entries up to that one), the decision (upheld, voiding the hand through
the usual void after a confirmation, or rejected), the incidents at the tables, and the
list of both by table, gaming day and patron, with its CSV.

Roles: the pit supervisor writes; an auditor reads every page and the CSV (GET) and posts
nothing (403); anyone else gets 403. Thin: forms check, ``tables.services`` writes.
"""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template import engines
from django.urls import path
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from casino import formatting
from casino.forms import add_refusal
from casino.periods import gaming_day_bounds
from casino.roles import AUDITOR, PIT_SUPERVISOR, has_role, role_required
from game import IllegalEvent
from tables import services
from tables.errors import engine_message
from tables.forms.disputes import (
    VOID,
    DeskFilterForm,
    DisputeDecideForm,
    DisputeOpenForm,
    IncidentForm,
)
from tables.models import Dispute, Hand, Incident
from tables.selectors import hand_after_entry
from tables.views.console import felt_places
from tables.views.hands import entry_lines
from tables.views.pit import void_nets

PER_PAGE = 50
CSV_TYPE = "text/csv; charset=utf-8"
FELT = "tables/console/felt.html"

desk_page = role_required(PIT_SUPERVISOR, read_roles=(AUDITOR,))


def _can_change(request):
    return has_role(request.user, PIT_SUPERVISOR)


# ---------------------------------------------------------------------------------------
# The list


def _filtered(form):
    """``(disputes, incidents)`` narrowed by the valid filters (none when invalid)."""
    disputes = Dispute.objects.select_related("hand__table", "player", "opened_by", "decided_by", "void")
    incidents = Incident.objects.select_related("table", "hand", "player", "recorded_by")
    if not form.is_valid():
        return disputes.none(), incidents.none()
    data = form.cleaned_data
    if data["table"]:
        disputes = disputes.filter(hand__table=data["table"])
        incidents = incidents.filter(table=data["table"])
    if data["day"]:
        start, end = gaming_day_bounds(data["day"])
        disputes = disputes.filter(opened_at__gte=start, opened_at__lt=end)
        incidents = incidents.filter(recorded_at__gte=start, recorded_at__lt=end)
    if data["player"]:
        disputes = disputes.filter(player=data["player"])
        incidents = incidents.filter(player=data["player"])
    return disputes.order_by("-opened_at", "-id"), incidents.order_by("-recorded_at", "-id")


@desk_page
@require_safe
def desk(request):
    """Disputes and incidents, newest first, 50 a page each; ``?table=``, ``?day=`` (a
    gaming day) and ``?player=`` filter both; the same filters give the CSV."""
    form = DeskFilterForm(request.GET)
    disputes, incidents = _filtered(form)
    query = request.GET.copy()
    for key in ("dpage", "ipage"):
        query.pop(key, None)
    return render(request, "tables/disputes/desk.html", {
        "form": form, "query": query.urlencode(), "can_change": _can_change(request),
        "disputes": Paginator(disputes, PER_PAGE).get_page(request.GET.get("dpage")),
        "incidents": Paginator(incidents, PER_PAGE).get_page(request.GET.get("ipage"))},
        status=200 if form.is_valid() else 400)


def _user(user):
    return user.get_username() if user is not None else ""


def desk_csv_blocks(disputes, incidents):
    """The CSV's two blocks, in the reader's language: the disputes, then the incidents."""
    yield [[f"# {_('Disputes')}"], [
        _("dispute"), _("table"), _("hand"), _("opened at"), _("opened by"), _("patron"), _("claim"), _("status"),
        _("outcome"), _("decision"), _("decided by"), _("decided at"), _("hand voided")]] + [
        [d.pk, d.hand.table.name, d.hand.number, formatting.csv_instant(d.opened_at), _user(d.opened_by),
         d.player.code if d.player else "", d.claim, d.get_status_display(), d.get_outcome_display(), d.decision,
         _user(d.decided_by), formatting.csv_instant(d.decided_at), _("yes") if d.void_id else _("no")]
        for d in disputes]
    yield [[f"# {_('Incidents')}"], [
        _("incident"), _("table"), _("hand"), _("kind"), _("patron"), _("what happened"), _("recorded by"),
        _("recorded at")]] + [
        [i.pk, i.table.name, i.hand.number if i.hand else "", i.get_kind_display(), i.player.code if i.player else "",
         i.text, _user(i.recorded_by), formatting.csv_instant(i.recorded_at)]
        for i in incidents]


@desk_page
@require_safe
def desk_csv(request):
    """The list's disputes and incidents (its filters, every page) as CSV; bad filters:
    400 with the errors as text."""
    form = DeskFilterForm(request.GET)
    if not form.is_valid():
        return HttpResponse(form.errors.as_text(), status=400, content_type="text/plain; charset=utf-8")
    disputes, incidents = _filtered(form)
    response = HttpResponse(formatting.csv_text(desk_csv_blocks(disputes, incidents)), content_type=CSV_TYPE)
    stem = "-".join(["disputes", *(str(form.cleaned_data["day"]),) * bool(form.cleaned_data["day"])])
    response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name(stem)}"'
    return response


# ---------------------------------------------------------------------------------------
# A dispute


@role_required(PIT_SUPERVISOR)
def dispute_open(request, table_id, number):
    """Open a dispute on a hand: the patron (optional) and what he claims."""
    hand = get_object_or_404(Hand.objects.select_related("table"), table_id=table_id, number=number)
    form = DisputeOpenForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            dispute = services.dispute_open(hand=hand, claim=form.cleaned_data["claim"], opened_by=request.user,
                                            player=form.cleaned_data["player"])
        except ValidationError as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("Dispute #%(id)s opened on hand #%(number)s at %(table)s.")
                             % {"id": dispute.pk, "number": hand.number, "table": hand.table.name})
            return redirect("tables:dispute", pk=dispute.pk)
    return render(request, "tables/disputes/open.html", {"hand": hand, "form": form})


def _step(request, total):
    try:
        return int(request.GET.get("step", total))
    except ValueError:
        return total


def _replay(request, hand):
    """What the page shows of the hand after the entry asked for (``?step=N``, default
    the last): ``{"step", "total", "felt" (HTML), "complete"}``, or ``{"unplayable": why}``."""
    entries = entry_lines(hand)
    try:
        at = hand_after_entry(hand, _step(request, len(entries)))
    except IllegalEvent as error:
        return {"entries": entries, "unplayable": engine_message(error)}
    places = felt_places(at.state, hand.settlement if at.complete else None)
    felt = engines["jinja2"].get_template(FELT).render({"places": places})
    return {"entries": entries, "step": at.step, "total": at.total, "felt": mark_safe(felt),  # noqa: S308 (Jinja2 escapes)
            "entry": entries[at.step - 1] if at.step else None,
            "previous": at.step - 1 if at.step > 0 else None, "next": at.step + 1 if at.step < at.total else None}


@desk_page
def dispute(request, pk):
    """A dispute: the claim, the hand as it stood after any entry (``?step=N``), and the
    decision. Deciding "upheld, void the hand" is confirmed on a second page first (what
    the void's reversal takes back); only the confirmation posts it."""
    dispute = get_object_or_404(Dispute.objects.select_related(
        "hand__table", "hand__bank", "hand__voided_by", "player", "opened_by", "decided_by", "void"), pk=pk)
    hand = dispute.hand
    voidable = hand.status != Hand.Status.VOIDED
    form = DisputeDecideForm(request.POST or None, voidable=voidable)
    context = {"dispute": dispute, "hand": hand, "form": form, "can_change": _can_change(request)}
    if request.method == "POST" and form.is_valid():
        outcome = form.cleaned_data["outcome"]
        void = outcome == VOID
        if void and request.POST.get("confirm") != "yes":
            return render(request, "tables/disputes/confirm.html", {**context, "nets": void_nets(hand)})
        try:
            services.dispute_decide(dispute=dispute, outcome=Dispute.Outcome.UPHELD if void else outcome,
                                    decision=form.cleaned_data["decision"], decided_by=request.user, void=void)
        except ValidationError as error:
            add_refusal(form, error, fields={"outcome": "outcome", "decision": "decision"})
        else:
            messages.success(request, _("Dispute #%(id)s decided.") % {"id": dispute.pk})
            return redirect("tables:dispute", pk=dispute.pk)
    context.update(_replay(request, hand))
    return render(request, "tables/disputes/dispute.html", context, status=400 if form.errors else 200)


# ---------------------------------------------------------------------------------------
# Incidents


@role_required(PIT_SUPERVISOR)
def incident_new(request):
    """Record an incident at a table (``?table=ID&number=N`` preset from a hand's page)."""
    form = IncidentForm(request.POST or None, initial={"table": request.GET.get("table"),
                                                       "number": request.GET.get("number")})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            incident = services.incident_record(table=data["table"], kind=data["kind"], text=data["text"],
                                                recorded_by=request.user, hand=data["hand"], player=data["player"])
        except ValidationError as error:
            add_refusal(form, error, fields={"hand": "number"})
        else:
            messages.success(request, _("Incident #%(id)s recorded at %(table)s.")
                             % {"id": incident.pk, "table": incident.table.name})
            return redirect("tables:disputes")
    return render(request, "tables/disputes/incident.html", {"form": form})


urlpatterns = [
    path("disputes/", desk, name="disputes"),
    path("disputes/disputes.csv", desk_csv, name="disputes_csv"),
    path("disputes/<int:pk>/", dispute, name="dispute"),
    path("disputes/incidents/new/", incident_new, name="incident_new"),
    path("hands/<int:table_id>/<int:number>/dispute/", dispute_open, name="dispute_open"),
]
