"""Refusals (403, 404, 500) are pages in the site's layout that say why and where to go."""

import pytest
from django.conf import settings
from django.test import Client, override_settings
from django.urls import include, path, reverse

from tables import services
from tests.factories import TableFactory, UserFactory

pytestmark = pytest.mark.django_db


def _boom(request):
    raise RuntimeError("a fault that is not the user's")


urlpatterns = [path("boom/", _boom), path("", include("casino.urls"))]


def test_a_dealer_at_another_tables_console_is_told_why_and_where_to_go(client, mesa):
    other = TableFactory(name="Mesa 2")
    stranger = UserFactory(username="dealer2", roles=["dealer"])
    services.shift_open(table=other, dealer=stranger, opened_by=mesa.supervisor)
    client.force_login(stranger)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    response = client.get(reverse("tables:console", args=[mesa.table.pk]))
    page = response.content.decode()
    assert response.status_code == 403
    assert "Only dealer1, the dealer of this table&#x27;s open shift, enters its hands" in page
    assert 'class="top"' in page and "Log out" in page  # the site's layout, its menu
    assert f'href="{reverse("tables:console_tables")}"' in page  # where to go: his own table
    response = client.post(reverse("tables:console_entry", args=[mesa.table.pk]), {"action": "stand"})
    assert response.status_code == 403 and "dealer1" in response.content.decode()


def test_a_role_that_does_not_open_a_page_names_who_it_is_for(client, staff):
    client.force_login(staff["cashier"])
    response = client.get(reverse("tables:console_tables"))
    page = response.content.decode()
    assert response.status_code == 403
    assert "Esta página es para:" in page and "crupier" in page and "Sus roles: cajero." in page


def test_an_address_that_leads_nowhere_is_a_page_of_the_site(client, staff):
    client.force_login(staff["auditor"])
    response = client.get("/tables/console/999999/")
    page = response.content.decode()
    assert response.status_code == 404
    assert "/tables/console/999999/" in page and 'class="top"' in page
    assert f'href="{reverse("reports:index")}"' in page


@override_settings(ROOT_URLCONF=__name__)
def test_a_server_error_is_a_page_of_the_site_that_says_nothing_half_done_was_kept(staff):
    client = Client(raise_request_exception=False)
    client.force_login(staff["dealer"])
    response = client.get("/boom/")
    page = response.content.decode()
    assert response.status_code == 500
    assert 'class="top"' in page and "a medias" in page and "Traceback" not in page
