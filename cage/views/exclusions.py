"""The exclusion register's pages (``patrons.admission``): the loads of the regulators'
files and the self-exclusions, loaded and entered by the compliance officer (or an
administrator); the admissions refused, read by the compliance officer and the auditor."""

from django.contrib import messages
from django.core.exceptions import ValidationError
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache

from cage.forms import ExclusionUploadForm, SelfExclusionForm
from casino.forms import add_refusal
from casino.periods import gaming_day
from casino.roles import ADMIN, AUDITOR, COMPLIANCE, has_role, role_required
from patrons.admission import (
    allows_play_without_identity,
    exclusion_load,
    in_force,
    self_exclusion_add,
)
from patrons.models import AdmissionRefusal, ExclusionEntry, ExclusionLoad, ExclusionSource

#: Who changes the register (an auditor reads it).
KEEPERS = (COMPLIANCE, ADMIN)
#: The most refusals and self-exclusions a page lists (the latest).
LISTED = 200


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
    day = gaming_day(timezone.now())
    current = set(in_force(day).filter(load__isnull=False).values_list("load_id", flat=True).distinct())
    loads = ExclusionLoad.objects.select_related("loaded_by").order_by("-id")
    selfs = (ExclusionEntry.objects.filter(source=ExclusionSource.SELF, load__isnull=True)
             .select_related("entered_by").order_by("-id")[:LISTED])
    return render(request, "cage/exclusions.html", {
        "upload": upload, "entry": entry, "loads": loads, "current": current, "selfs": selfs, "day": day,
        "in_force": in_force(day).count(), "can_change": has_role(request.user, *KEEPERS),
        "without_identity": allows_play_without_identity()})


@never_cache
@role_required(COMPLIANCE, AUDITOR)
def admission_refusals(request):
    """The admissions refused (``AdmissionRefusal``), the latest first: when, where, who
    attempted it, the patron, why, the register's entry matched."""
    refusals = (AdmissionRefusal.objects.select_related("attempted_by", "player", "entry", "entry__load")
                .order_by("-at", "-id")[:LISTED])
    return render(request, "cage/admission_refusals.html", {"refusals": refusals, "listed": LISTED})
