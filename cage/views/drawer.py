"""The cage's pages: the cashier's drawer (open, count, close with the supervisor's
signature), a patron's identity, the drawers, the AML register. Thin: forms parse,
services write, selectors read."""

from datetime import date, timedelta

from django.conf import settings
from django.contrib import messages
from django.db.models import F, Q
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from cage import selectors
from cage.errors import DrawerError
from cage.forms import CloseForm, CountForm, IdentityForm, PlayerLookupForm, ReviewForm, field_name
from cage.models import AmlAlert, Drawer
from cage.services import aml
from cage.services.drawer import (
    drawer_close,
    drawer_lines,
    drawer_open,
    drawer_preview,
    drawer_voids,
    open_drawer_of,
    variance_text,
)
from casino import formatting, periods
from casino.errors import Refusal
from casino.forms import add_refusal
from casino.roles import AUDITOR, CAGE_SUPERVISOR, CASHIER, COMPLIANCE, has_role, role_required
from ledger.errors import LedgerError
from patrons.models import Player
from patrons.services import player_record_identity


@never_cache
@role_required(CASHIER)
def drawer(request):
    """The cashier's drawer: open it with its float, or see it open (float, slips)."""
    current = open_drawer_of(request.user)
    form = CountForm(request.POST or None) if current is None else None
    if request.method == "POST" and form is not None and form.is_valid():
        try:
            opened = drawer_open(cashier=request.user, count=form.count)
        except LedgerError as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("Drawer #%(drawer)s open with a float of %(amount)s.") % {
                "drawer": opened.pk, "amount": formatting.money(opened.float_amount)})
            return redirect("cage:drawer")
    slips = list(current.slips.select_related("player", "void").order_by("number")) if current else []
    return render(request, "cage/drawer.html", {
        "drawer": current, "form": form, "slips": slips, "lookup": PlayerLookupForm(),
        "voids": list(drawer_voids(current)) if current else [],
        "recent": Drawer.objects.filter(cashier=request.user, closed_at__isnull=False).order_by("-closed_at")[:5]})


@never_cache
@role_required(CASHIER)
def drawer_close_page(request):
    """Close the drawer in two steps: the blind count by denomination, then the
    confirmation with the expected amount and the variance, signed by a cage supervisor."""
    current = open_drawer_of(request.user)
    if current is None:
        messages.error(request, _("You have no open drawer to close."))
        return redirect("cage:drawer")
    form = CloseForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            preview = drawer_preview(drawer=current, count=form.count)
        except LedgerError as error:
            add_refusal(form, error)
        else:
            if request.POST.get("confirm") == "yes":
                supervisor = form.signed_by(request)
                if supervisor is not None:
                    try:
                        closed = drawer_close(drawer=current, cashier=request.user, supervisor=supervisor,
                                              count=form.count, note=form.cleaned_data["note"])
                    except DrawerError as error:
                        add_refusal(form, error)
                    else:
                        messages.success(request, _("Drawer #%(drawer)s closed: %(variance)s.") % {
                            "drawer": closed.pk, "variance": variance_text(closed.variance)})
                        return redirect("cage:drawer_detail", pk=closed.pk)
            return render(request, "cage/drawer_confirm.html", {
                "drawer": current, "form": form, "preview": preview, "variance": variance_text(preview["variance"]),
                "hidden": [form[field_name(d)] for d in preview["count"]],
                "lines": _lines(preview["count"])})
    return render(request, "cage/drawer_close.html", {"drawer": current, "form": form})


def _lines(count):
    from decimal import Decimal

    from cage.forms import denomination_label

    return [(denomination_label(d), pieces, Decimal(d) * pieces) for d, pieces in count.items() if pieces]


@role_required(CASHIER, CAGE_SUPERVISOR, AUDITOR)
def drawer_detail(request, pk):
    """One drawer as recorded: float and count by denomination, expected, variance, the
    two signatures, its slips. A cashier sees only his own."""
    shown = get_object_or_404(Drawer.objects.select_related("cashier", "supervisor"), pk=pk)
    if shown.cashier_id != request.user.pk and not has_role(request.user, CAGE_SUPERVISOR, AUDITOR):
        return redirect("cage:drawer")
    return render(request, "cage/drawer_detail.html", {
        "drawer": shown, "float_lines": _lines(shown.float_count),
        "count_lines": _lines(shown.closing_count) if shown.closing_count else [],
        "variance": variance_text(shown.variance) if shown.variance is not None else "",
        "lines": drawer_lines(shown), "voids": list(drawer_voids(shown)),
        "slips": shown.slips.select_related("player", "void").order_by("number")})


@role_required(CAGE_SUPERVISOR, AUDITOR, CASHIER)
def drawers(request):
    """The drawers, open ones first then the latest closed (200); ``?state=open`` the open
    ones, ``?state=beyond`` those closed beyond their tolerance."""
    rows = Drawer.objects.select_related("cashier", "supervisor").order_by("-closed_at", "-opened_at")
    if not has_role(request.user, CAGE_SUPERVISOR, AUDITOR):
        rows = rows.filter(cashier=request.user)
    state = request.GET.get("state", "")
    if state == "open":
        rows = rows.filter(closed_at__isnull=True)
    elif state == "beyond":
        rows = rows.filter(Q(variance__gt=F("tolerance")) | Q(variance__lt=-F("tolerance")))
    return render(request, "cage/drawers.html", {"drawers": rows[:200], "state": state})


@never_cache
@role_required(CASHIER)
def identity_lookup(request):
    """From a player's id to his identity page."""
    form = PlayerLookupForm(request.GET or None)
    if form.is_valid():
        player = Player.objects.filter(code__iexact=form.cleaned_data["code"].strip()).first()
        if player is not None:
            return redirect("cage:identity", code=player.code)
        messages.error(request, _("No player has the id %(code)s.") % {"code": form.cleaned_data["code"]})
    return redirect("cage:drawer")


@never_cache
@role_required(CASHIER)
def identity(request, code):
    """Record or correct a patron's identity (attributed to the cashier)."""
    player = get_object_or_404(Player, code=code)
    initial = {"name": player.name, "document_type": player.document_type or "dni",
               "document_number": player.document_number, "nationality": player.nationality,
               "date_of_birth": player.date_of_birth}
    form = IdentityForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            player_record_identity(player=player, recorded_by=request.user, **form.cleaned_data)
        except Refusal as error:
            add_refusal(form, error)
        else:
            messages.success(request, _("Identity of %(player)s recorded.") % {"player": player.code})
            return redirect("cage:identity", code=player.code)
    focus = next((name for name in form.errors if name in form.fields), "document_number")
    return render(request, "cage/identity.html", {
        "player": player, "form": form, "focus": focus,
        "records": player.identity_records.select_related("recorded_by")[:20]})


def _day(request):
    try:
        return date.fromisoformat(request.GET.get("day", ""))
    except ValueError:
        return periods.gaming_day(timezone.now())


@role_required(COMPLIANCE, read_roles=(AUDITOR,))
def aml_register(request):
    """The AML register of a gaming day (``?day=YYYY-MM-DD``, default today's): each
    patron's totals, the alerts and their reviews, the movements; ``?format=csv``."""
    register = selectors.aml_register(day=_day(request))
    if request.GET.get("format") == "csv":
        response = HttpResponse(selectors.register_csv(register), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name("aml-" + register["day"].isoformat())}"'
        return response
    return render(request, "cage/aml_register.html", {
        "register": register, "can_review": has_role(request.user, COMPLIANCE), "review_form": ReviewForm(),
        "retention": settings.AML_RETENTION_YEARS, "previous": register["day"] - timedelta(days=1),
        "next": register["day"] + timedelta(days=1)})


@require_POST
@role_required(COMPLIANCE)
def alert_review(request, pk):
    """A compliance officer marks an alert reviewed with his note."""
    alert = get_object_or_404(AmlAlert, pk=pk)
    form = ReviewForm(request.POST)
    if form.is_valid():
        try:
            aml.alert_review(alert=alert, note=form.cleaned_data["note"], reviewed_by=request.user)
        except LedgerError as error:
            messages.error(request, str(error))
        else:
            messages.success(request, _("Alert #%(alert)s reviewed.") % {"alert": alert.pk})
    else:
        messages.error(request, _("A review needs a note saying what was found."))
    return redirect(_register_url(alert.gaming_day))


def _register_url(day):
    from django.urls import reverse

    return f"{reverse('cage:aml_register')}?day={day.isoformat()}"
