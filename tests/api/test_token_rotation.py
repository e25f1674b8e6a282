"""An API token stops working when its user's password changes (issue 14, "Doors"): the
old token is refused (401) and the new password gets a new token; a save that does not
touch the password (a login's ``last_login``) keeps it."""

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def tables_with(key):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client.get("/api/tables/")


def new_token(username, password):
    cache.clear()  # the token view's throttles
    response = APIClient().post("/api/auth/token/", {"username": username, "password": password}, format="json")
    assert response.status_code == 200, response.content
    return response.json()["token"]


@pytest.mark.parametrize("how", ["set_password", "admin_form", "password_change_page"])
def test_a_password_change_rotates_the_token(how, client):
    user = UserFactory(username="audit1", roles=["auditor"])
    old = new_token("audit1", "secret-pass-1")
    assert tables_with(old).status_code == 200
    if how == "set_password":
        user.set_password("otra-clave-larga-9")
        user.save()
    elif how == "admin_form":
        from django.contrib.auth.forms import AdminPasswordChangeForm

        form = AdminPasswordChangeForm(user, {"password1": "otra-clave-larga-9", "password2": "otra-clave-larga-9"})
        assert form.is_valid(), form.errors
        form.save()
    else:
        client.force_login(user)
        response = client.post("/accounts/password_change/", {
            "old_password": "secret-pass-1", "new_password1": "otra-clave-larga-9",
            "new_password2": "otra-clave-larga-9"})
        assert response.status_code == 302
    refused = tables_with(old)
    assert refused.status_code == 401 and refused.json()["error"]["rule"] == "authentication_failed"
    assert not Token.objects.filter(key=old).exists()
    fresh = new_token("audit1", "otra-clave-larga-9")
    assert fresh != old and tables_with(fresh).status_code == 200


def test_saves_that_keep_the_password_keep_the_token():
    user = UserFactory(username="audit1", roles=["auditor"])
    key = new_token("audit1", "secret-pass-1")
    user.first_name = "Ana"
    user.save()
    user.save(update_fields=["last_login"])
    get_user_model().objects.get(pk=user.pk).save()
    assert new_token("audit1", "secret-pass-1") == key and tables_with(key).status_code == 200
