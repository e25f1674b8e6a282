"""The privilege changes PostgreSQL recorded (``reports.privileges``), for the auditor. Read only."""

from django.core.paginator import Paginator
from django.shortcuts import render
from django.views.decorators.http import require_GET

from casino.roles import AUDITOR, role_required
from reports.privileges import line, privilege_changes

PER_PAGE = 50


@require_GET
@role_required(AUDITOR)
def privileges_page(request):
    """``/reports/privileges/[?expired=1][&page=N]``: the changes, newest first; django-axes'
    clean-ups of expired lock-outs only when asked for (counted otherwise)."""
    with_expired = request.GET.get("expired") == "1"
    page = Paginator(privilege_changes(expired=with_expired), PER_PAGE).get_page(request.GET.get("page"))
    hidden = 0 if with_expired else privilege_changes(expired=True).filter(expired=True).count()
    return render(request, "reports/privileges.html", {
        "page": page, "lines": [line(change) for change in page], "with_expired": with_expired,
        "hidden": hidden})
