"""Project-wide pages: the home page that lists what the user's roles open; the lock-out
page after too many failed logins."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from casino.roles import AUDITOR, DEALER, has_role

#: Open alerts listed on an auditor's home (the rest are on the alerts page).
HOME_ALERTS = 20


@login_required
def home(request):
    """The landing page after login: the entry pages of the user's roles; for a dealer,
    the console of each table where his shift is open (one click to it); for an
    auditor, the open alerts too."""
    context = {}
    if has_role(request.user, DEALER):
        from tables.models import Shift

        context["open_shifts"] = list(Shift.objects.select_related("table")
                                      .filter(current_dealer=request.user, closed_at__isnull=True).order_by("table__name"))
    if has_role(request.user, AUDITOR):
        from reports.models import Alert
        from reports.views.alerts import open_alerts

        context["open_alerts"] = open_alerts(limit=HOME_ALERTS)
        context["open_alert_count"] = Alert.objects.filter(status=Alert.Status.OPEN).count()
    return render(request, "home.html", context)


def locked_out(request, original_response=None, credentials=None):
    """The lock-out page (django-axes' ``AXES_LOCKOUT_CALLABLE``): answered, with status
    429, to a login whose user name made ``AXES_FAILURE_LIMIT`` failed attempts from its
    address, or whose address ``AXES_ADDRESS_FAILURE_LIMIT`` of any names, within the cool-off (``AXES_COOLOFF_TIME``), the right password included.

    ``original_response`` is the login page the view drew (unused); ``credentials`` the
    credentials tried (the user name is shown back). Says how long to wait and who can
    lift the lock (an administrator)."""
    from axes.helpers import get_client_username, get_cool_off

    from api.views.auth import cooloff_minutes

    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": cooloff_minutes(),
        "username": get_client_username(request, credentials) or "",
        "cool_off": get_cool_off(request),
    }
    return render(request, "registration/locked_out.html", context,
                  status=settings.AXES_HTTP_RESPONSE_CODE)
