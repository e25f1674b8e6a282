"""Project-wide pages: the home page that lists what the user's roles open."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render

from casino.roles import AUDITOR, has_role

#: Open alerts listed on an auditor's home (the rest are on the alerts page).
HOME_ALERTS = 20


@login_required
def home(request):
    """The landing page after login: the entry pages of the user's roles; for an auditor,
    the open alerts too (issue 17)."""
    context = {}
    if has_role(request.user, AUDITOR):
        from reports.alert_views import open_alerts
        from reports.models import Alert

        context["open_alerts"] = open_alerts(limit=HOME_ALERTS)
        context["open_alert_count"] = Alert.objects.filter(status=Alert.Status.OPEN).count()
    return render(request, "home.html", context)
