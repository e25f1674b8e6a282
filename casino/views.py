"""Project-wide pages: the home page that lists what the user's roles open; the lock-out
page after too many failed logins."""

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def home(request):
    """The landing page after login: the entry pages of the user's roles."""
    return render(request, "home.html")


def locked_out(request, original_response=None, credentials=None):
    """The lock-out page (django-axes' ``AXES_LOCKOUT_CALLABLE``): answered, with status
    429, to a login whose user name or address made ``AXES_FAILURE_LIMIT`` failed attempts
    within the cool-off (``AXES_COOLOFF_TIME``), the right password included.

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
