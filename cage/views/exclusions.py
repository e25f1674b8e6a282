"""The exclusion register's pages (``patrons.admission``): the loads of the regulators'
files and the self-exclusions, loaded and entered by the compliance officer (or an
administrator); the admissions refused, read by the compliance officer and the auditor."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.cache import never_cache

from cage.forms import ExclusionUploadForm, SelfExclusionForm
from casino import formatting
from casino.forms import add_refusal
from casino.periods import gaming_day
from casino.roles import ADMIN, AUDITOR, COMPLIANCE, has_role, role_required
from patrons.admission import (
    allows_play_without_identity,
    document_key,
    exclusion_load,
    in_force,
    name_key,
    self_exclusion_add,
)
from patrons.models import AdmissionRefusal, ExclusionEntry, ExclusionLoad, ExclusionSource

#: Who changes the register (an auditor reads it).
KEEPERS = (COMPLIANCE, ADMIN)
#: The most refusals and self-exclusions a page lists (the latest).
LISTED = 200
#: The CSV's media type.
CSV_TYPE = "text/csv; charset=utf-8"


def register_search(query: str, day, started_by=None):
    """The register's entries (every load's and every self-exclusion, in force or not on
    ``day``) whose name holds ``query`` (compared as ``name_key``: case, accents and signs
    aside) or whose document holds it (as ``document_key``): ``(entries, ids in force)``,
    the latest first, at most ``LISTED``; ``started_by``: as ``patrons.admission.in_force``.
    A query of fewer than 2 characters finds nothing."""
    query = (query or "").strip()
    by_name, by_document = name_key(query), document_key(query)
    if len(query) < 2 or not (by_name or by_document):
        return [], set()
    condition = Q(name_key__contains=by_name) if len(by_name) >= 2 else Q(pk__in=[])
    if len(by_document) >= 2:
        condition |= Q(document_key__contains=by_document)
    entries = list(ExclusionEntry.objects.filter(condition).select_related("load", "entered_by")
                   .order_by("-id")[:LISTED])
    current = set(in_force(day, started_by=started_by).filter(pk__in=[e.pk for e in entries])
                  .values_list("pk", flat=True))
    return entries, current


@never_cache
@role_required(*KEEPERS, read_roles=(AUDITOR,))
def exclusions(request):
    """The register: a regulator's file uploaded (``?`` POST ``action=load``), a
    self-exclusion entered (``action=self``); every load (file, SHA-256, who, when, rows,
    the one in force per source) and the self-exclusions."""
    upload, entry = ExclusionUploadForm(), SelfExclusionForm()
    if request.method == "POST" and request.POST.get("action") == "load":
        upload = ExclusionUploadForm(request.POST, request.FILES)
        if upload.is_valid():
            file = upload.cleaned_data["file"]
            try:
                load = exclusion_load(content=file.read(), file_name=file.name, source=upload.cleaned_data["source"],
                                      loaded_by=request.user)
            except ValidationError as error:
                add_refusal(upload, error)
            else:
                messages.success(request, _("%(file)s is loaded: %(rows)s entries, now the register in force of "
                                            "%(source)s.") % {"file": load.file_name, "rows": load.rows,
                                                             "source": load.get_source_display()})
                return redirect("cage:exclusions")
    elif request.method == "POST" and request.POST.get("action") == "self":
        entry = SelfExclusionForm(request.POST)
        if entry.is_valid():
            try:
                added = self_exclusion_add(entered_by=request.user, **entry.cleaned_data)
            except ValidationError as error:
                add_refusal(entry, error)
            else:
                messages.success(request, _("Self-exclusion #%(entry)s entered.") % {"entry": added.pk})
                return redirect("cage:exclusions")
    now = timezone.now()
    day, today = gaming_day(now), timezone.localdate(now)  # in force now: as the admission check reads it
    current = set(in_force(day, started_by=today).filter(load__isnull=False).values_list("load_id", flat=True)
                  .distinct())
    loads = ExclusionLoad.objects.select_related("loaded_by").order_by("-id")
    selfs = (ExclusionEntry.objects.filter(source=ExclusionSource.SELF, load__isnull=True)
             .select_related("entered_by").order_by("-id")[:LISTED])
    query = request.GET.get("q", "").strip()[:100]
    found, found_in_force = register_search(query, day, today)
    return render(request, "cage/exclusions.html", {
        "query": query, "found": found, "found_in_force": found_in_force,
        "upload": upload, "entry": entry, "loads": loads, "current": current, "selfs": selfs, "day": day,
        "in_force": in_force(day, started_by=today).count(), "can_change": has_role(request.user, *KEEPERS),
        "without_identity": allows_play_without_identity()})


@never_cache
@role_required(COMPLIANCE, AUDITOR)
def admission_refusals(request):
    """The admissions refused (``AdmissionRefusal``), the latest first: when, where, who
    attempted it, the patron, why, the register's entry matched."""
    refusals = (AdmissionRefusal.objects.select_related("attempted_by", "player", "entry", "entry__load")
                .order_by("-at", "-id")[:LISTED])
    return render(request, "cage/admission_refusals.html", {"refusals": refusals, "listed": LISTED})


#: The refusals' CSV columns (marked for the catalogue; translated when written).
REFUSAL_COLUMNS = [
    pgettext_lazy("refusals CSV", "refusal"),
    pgettext_lazy("refusals CSV", "refused at"),
    pgettext_lazy("refusals CSV", "gaming day"),
    pgettext_lazy("refusals CSV", "where"),
    pgettext_lazy("refusals CSV", "place"),
    pgettext_lazy("refusals CSV", "player id"),
    pgettext_lazy("refusals CSV", "name"),
    pgettext_lazy("refusals CSV", "document"),
    pgettext_lazy("refusals CSV", "date of birth"),
    pgettext_lazy("refusals CSV", "reason"),
    pgettext_lazy("refusals CSV", "missing"),
    pgettext_lazy("refusals CSV", "register entry"),
    pgettext_lazy("refusals CSV", "whose register"),
    pgettext_lazy("refusals CSV", "load"),
    pgettext_lazy("refusals CSV", "line of the file"),
    pgettext_lazy("refusals CSV", "attempted by"),
]


def refusal_rows(refusals):
    """The refusals' CSV block, in the reader's language: a header, then a row each."""
    header = [str(column) for column in REFUSAL_COLUMNS]
    return [header] + [
        [x.pk, formatting.csv_instant(x.at), formatting.day(x.gaming_day, "SHORT_DATE_FORMAT"),
         x.get_where_display(), x.place, x.player_code, x.name, x.document_number,
         formatting.day(x.date_of_birth, "SHORT_DATE_FORMAT") if x.date_of_birth else "",
         x.get_reason_display(), ", ".join(x.missing or []), x.entry_id or "",
         x.entry.get_source_display() if x.entry else "", x.entry.load_id or "" if x.entry else "",
         x.entry.line or "" if x.entry else "", x.attempted_by.get_username()]
        for x in refusals]


@never_cache
@role_required(COMPLIANCE, AUDITOR)
def admission_refusals_csv(request):
    """Every admission refused (``AdmissionRefusal``), the latest first, as CSV in the
    reader's convention (``casino.formatting.csv_text``)."""
    refusals = (AdmissionRefusal.objects.select_related("attempted_by", "entry")
                .order_by("-at", "-id"))
    response = HttpResponse(formatting.csv_text([refusal_rows(refusals)]), content_type=CSV_TYPE)
    response["Content-Disposition"] = f'attachment; filename="{formatting.csv_name("admission-refusals")}"'
    return response
