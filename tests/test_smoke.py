"""The project's wiring: settings, the demo data command."""
import pytest
from django.core.management import call_command

from patrons.models import Player
from tables.models import Table


@pytest.mark.django_db
def test_demo_data_is_idempotent():
    call_command("demo")
    call_command("demo")
    assert Player.objects.filter(code="ana").count() == 1
    assert Table.objects.count() == 3


@pytest.mark.django_db
def test_pages_name_their_icon_so_browsers_do_not_ask_for_a_missing_favicon(client):
    """Without a ``<link rel="icon">`` each page view costs a 404 on /favicon.ico (and an
    error in the browser's console)."""
    page = client.get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="data:,">' in page
