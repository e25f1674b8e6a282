"""Project-wide pages: the home page that lists what the user's roles open."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def home(request):
    """The landing page after login: the entry pages of the user's roles."""
    return render(request, "home.html")
