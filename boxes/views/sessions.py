"""The pit's pages of the boxes: a session's boxes (its buy-ins, the counts by two people,
the variances to explain), the cagnotte register of a session and the daily control
register (each also as CSV), the tronc and its distributions. A pit supervisor records;
an auditor reads every page and posts nothing (403)."""

from datetime import date

from django.contrib import messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from boxes import services
from boxes.forms import BoxCountForm, BoxRecountForm, VarianceNoteForm
from boxes.models import BoxCount, TableBuyIn, TableTip
from boxes.registers import cagnotte_register, daily_register
from casino import formatting
from casino.forms import add_refusal
from casino.roles import AUDITOR, PIT_SUPERVISOR, has_role, role_required
from tables.models import Shift

pit_page = role_required(PIT_SUPERVISOR, read_roles=(AUDITOR,))
CSV_TYPE = "text/csv; charset=utf-8"


# ---------------------------------------------------------------------------------------
# A session's boxes

def _can_change(request):
    return has_role(request.user, PIT_SUPERVISOR)


@pit_page
def session_boxes(request, shift_id):
    """A session's boxes: its table buy-ins and tips, the counts made (by whom, by
    denomination, against the records; a recount listed under the count it supersedes)
    and the forms to count the boxes left, to count one again and to explain a variance."""
    shift = get_object_or_404(Shift.objects.select_related("table", "dealer", "opened_by", "closed_by"), pk=shift_id)
    counts = list(BoxCount.objects.filter(shift=shift).order_by("box", "id").select_related(
        "first_counter", "second_counter", "recorded_by", "note__explained_by", "superseded_by"))
    left = [box for box in BoxCount.Box.values if box not in {c.box for c in counts}]
    dealers = services.session_dealers(shift)  # not offered as counters
    form = BoxCountForm(request.POST or None, boxes=left, dealers=dealers) if left else None
    note_forms, recount_forms = {}, {}
    if request.method == "POST":
        if not _can_change(request):
            raise PermissionDenied
        if "count" in request.POST and form is not None and form.is_valid():
            try:
                services.box_count(shift=shift, box=form.cleaned_data["box"], pieces=form.pieces(),
                                   first_counter=form.cleaned_data["first_counter"],
                                   second_counter=form.cleaned_data["second_counter"], recorded_by=request.user)
            except ValidationError as error:
                add_refusal(form, error)
            else:
                messages.success(request, _("Count recorded."))
                return redirect("boxes:session", shift_id=shift.pk)
        elif "recount" in request.POST:
            count = get_object_or_404(BoxCount, pk=request.POST.get("count_id"), shift=shift)
            recount = BoxRecountForm(request.POST, prefix=f"r{count.pk}", dealers=dealers)
            recount_forms[count.pk] = recount
            if recount.is_valid():
                try:
                    services.box_recount(count=count, pieces=recount.pieces(), reason=recount.cleaned_data["reason"],
                                         first_counter=recount.cleaned_data["first_counter"],
                                         second_counter=recount.cleaned_data["second_counter"],
                                         recorded_by=request.user)
                except ValidationError as error:
                    add_refusal(recount, error)
                else:
                    messages.success(request, _("Recount recorded: it supersedes the earlier count."))
                    return redirect("boxes:session", shift_id=shift.pk)
        elif "explain" in request.POST:
            count = get_object_or_404(BoxCount, pk=request.POST.get("count_id"), shift=shift)
            note = VarianceNoteForm(request.POST, prefix=f"n{count.pk}")
            note_forms[count.pk] = note
            if note.is_valid():
                try:
                    services.variance_explain(count=count, text=note.cleaned_data["text"],
                                              explained_by=request.user)
                except ValidationError as error:
                    add_refusal(note, error)
                else:
                    messages.success(request, _("Explanation recorded."))
                    return redirect("boxes:session", shift_id=shift.pk)
        if form is not None and "count" not in request.POST:
            form = BoxCountForm(boxes=left, dealers=dealers)
    for count in counts:
        count.latest = count.is_latest
        if count.latest and count.variance and not hasattr(count, "note"):
            count.note_form = note_forms.get(count.pk) or VarianceNoteForm(prefix=f"n{count.pk}")
        if count.latest:
            count.recount_form = recount_forms.get(count.pk) or BoxRecountForm(prefix=f"r{count.pk}", dealers=dealers)
            count.recount_open = count.pk in recount_forms
    return render(request, "boxes/session.html", {
        "shift": shift, "table": shift.table, "counts": counts, "form": form, "can_change": _can_change(request),
        "buy_ins": TableBuyIn.objects.filter(shift=shift).select_related("player", "recorded_by").order_by("id"),
        "tips": TableTip.objects.filter(shift=shift).select_related("player", "recorded_by").order_by("id"),
        "tips_total": services.session_tips(shift),
        "buy_in_total": services.session_buy_ins(shift), "commission": services.session_commission(shift)})


# ---------------------------------------------------------------------------------------
# Registers

def _csv(stem, header, rows):
    """A register as a CSV download in the reader's convention (``casino.formatting.csv_text``)."""
    response = HttpResponse(formatting.csv_text([[header, *rows]]), content_type=CSV_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name(stem)}"'
    return response


_money = formatting.csv_amount


@pit_page
def session_cagnotte(request, shift_id):
    """The cagnotte register of one table's session: each levy numbered, with its hand,
    time, bank and running total; ``?format=csv`` downloads it."""
    shift = get_object_or_404(Shift.objects.select_related("table", "dealer"), pk=shift_id)
    levies = cagnotte_register(shift)
    if request.GET.get("format") == "csv":
        return _csv(f"cagnotte-{shift.table.name}-{shift.pk}".replace(" ", "-").lower(),
                    [_("levy"), _("hand"), _("settled at"), _("bank"), _("amount"), _("running total")],
                    [[levy.number, levy.hand, formatting.csv_instant(levy.settled_at), levy.bank,
                      _money(levy.amount), _money(levy.running)] for levy in levies])
    count = BoxCount.objects.latest_counts().filter(shift=shift, box=BoxCount.Box.CAGNOTTE).first()
    return render(request, "boxes/cagnotte.html", {"shift": shift, "table": shift.table, "levies": levies,
                                                   "total": levies[-1].running if levies else 0, "count": count})


@pit_page
def daily(request):
    """The daily control register: every session opened on the day (``?day=YYYY-MM-DD``,
    default today in the casino's time zone) by table, with the totals of all tables;
    ``?format=csv`` downloads it."""
    try:
        day = date.fromisoformat(request.GET.get("day") or "")
    except ValueError:
        day = timezone.localdate()
    register = daily_register(day)
    if request.GET.get("format") == "csv":
        rows = [[line.shift.table.name, line.shift.pk, line.shift.dealer.get_username(), line.levies,
                 _money(line.cagnotte), _money(line.cagnotte_counted), _money(line.cagnotte_variance),
                 _money(line.drop), _money(line.drop_counted), _money(line.drop_variance),
                 _money(line.tips_counted), line.open_variances] for line in register.lines]
        rows.append(["", "", _("total"), sum(line.levies for line in register.lines),
                     _money(register.total("cagnotte")), _money(register.total("cagnotte_counted")),
                     _money(register.total("cagnotte_variance")), _money(register.total("drop")),
                     _money(register.total("drop_counted")), _money(register.total("drop_variance")),
                     _money(register.total("tips_counted")), sum(line.open_variances for line in register.lines)])
        return _csv(f"control-register-{day.isoformat()}",
                    [_("table"), _("session"), _("dealer"), _("levies"), _("cagnotte"), _("cagnotte counted"),
                     _("cagnotte variance"), _("drop"), _("drop counted"), _("drop variance"), _("tips counted"),
                     _("open variances")], rows)
    totals = {name: register.total(name) for name in ("cagnotte", "cagnotte_counted", "cagnotte_variance", "drop",
                                                      "drop_counted", "drop_variance", "tips_counted")}
    totals["levies"] = sum(line.levies for line in register.lines)
    return render(request, "boxes/daily.html", {
        "register": register, "totals": totals, "day": day,
        "previous": date.fromordinal(day.toordinal() - 1), "next": date.fromordinal(day.toordinal() + 1)})


@pit_page
def tronc(request):
    """The tronc: what it holds, the tips counted and not yet shared out, the distribution
    they would make by the configured policy (confirmed before it posts), and the
    distributions made."""
    from boxes.models import TroncDistribution
    from boxes.tronc import tronc_distribute, tronc_plan
    from ledger.models import Account

    if request.method == "POST":
        if not _can_change(request):
            raise PermissionDenied
        if request.POST.get("confirm") == "yes":
            try:
                done = tronc_distribute(made_by=request.user)
            except ValidationError as error:
                messages.error(request, str(error))
            else:
                messages.success(request, _("Tronc of %(total)s shared out: %(staff)s to the staff, %(casino)s to the "
                                            "casino.") % {"total": formatting.money(done.total), "staff": formatting.money(done.staff_total),
                                                         "casino": formatting.money(done.casino_total)})
            return redirect("boxes:tronc")
    balance = Account.objects.filter(kind=Account.Kind.TRONC).values_list("balance", flat=True).first()
    distributions = (TroncDistribution.objects.select_related("made_by").prefetch_related("shares__user")
                     .order_by("-made_at", "-id")[:20])
    return render(request, "boxes/tronc.html", {"plan": tronc_plan(), "balance": balance or 0,
                                                "distributions": distributions, "can_change": _can_change(request),
                                                "confirming": request.GET.get("confirm") == "1"})
