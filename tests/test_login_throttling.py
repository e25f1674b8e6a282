"""Guessing passwords is bounded (issue 14, "Doors"): django-axes counts failed logins per
user name and per address on the login page and on ``POST /api/auth/token/``; past
``AXES_FAILURE_LIMIT`` (5) it locks them out for ``AXES_COOLOFF_TIME`` (15 minutes), the
right password included, with a page in Spanish saying what to do; the token view is
also throttled by DRF per address and per user name."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "secret-pass-1"
LIMIT = 5


@pytest.fixture(autouse=True)
def _fresh_throttles():
    cache.clear()  # DRF's throttles count in the cache
    yield
    cache.clear()


def login(client, username, password, address="10.0.0.1"):
    return client.post("/accounts/login/", {"username": username, "password": password},
                       REMOTE_ADDR=address)


def token(client, username, password, address="10.0.0.1"):
    return client.post("/api/auth/token/", {"username": username, "password": password},
                       content_type="application/json", REMOTE_ADDR=address)


def test_the_login_page_locks_a_user_out_after_five_failures_even_with_the_right_password(client):
    UserFactory(username="dealer1", roles=["dealer"])
    for _attempt in range(LIMIT - 1):
        response = login(client, "dealer1", "guess")
        assert response.status_code == 200 and "introduzca un nombre de usuario y clave correctos" in response.content.decode()
    locked = login(client, "dealer1", "guess")
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Acceso bloqueado" in page and "15 minutos" in page and "administrador" in page

    right = login(client, "dealer1", PASSWORD)
    assert right.status_code == 429 and "_auth_user_id" not in client.session
    assert client.get("/").status_code == 302  # not logged in

    # After the cool-off the right password works again.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    welcome = login(client, "dealer1", PASSWORD)
    assert welcome.status_code == 302 and client.get("/").status_code == 200


def test_a_user_is_locked_out_whatever_address_the_guesses_come_from(client):
    UserFactory(username="caja1", roles=["cashier"])
    for attempt in range(LIMIT):
        login(client, "caja1", "guess", address=f"10.0.1.{attempt}")
    assert login(Client(), "caja1", PASSWORD, address="10.0.9.9").status_code == 429


def test_an_address_is_locked_out_whatever_user_names_it_tries(client):
    UserFactory(username="pit1", roles=["pit_supervisor"])
    for attempt in range(LIMIT):
        login(client, f"nobody{attempt}", "guess", address="10.0.2.2")
    assert login(Client(), "pit1", PASSWORD, address="10.0.2.2").status_code == 429
    assert login(Client(), "pit1", PASSWORD, address="10.0.2.3").status_code == 302  # another address


def test_fewer_failures_than_the_limit_do_not_lock(client):
    UserFactory(username="audit1", roles=["auditor"])
    for _attempt in range(LIMIT - 1):
        login(client, "audit1", "guess")
    assert login(client, "audit1", PASSWORD).status_code == 302


def test_the_token_endpoint_locks_out_after_five_failures_with_the_login_page(client):
    UserFactory(username="audit1", roles=["auditor"])
    for _attempt in range(LIMIT - 1):
        wrong = token(client, "audit1", "guess")
        assert wrong.status_code == 400 and wrong.json()["error"]["rule"] == "authorization"
    locked = token(client, "audit1", "guess")
    assert locked.status_code == 429
    error = locked.json()["error"]
    assert error["rule"] == "locked_out" and error["field"] == "username"
    assert "15 minutos" in error["message"] and "administrador" in error["message"]
    right = token(client, "audit1", PASSWORD)
    assert right.status_code == 429 and "token" not in right.json()
    # The login page shares the count: the user name is locked there too.
    assert login(client, "audit1", PASSWORD, address="10.0.3.3").status_code == 429

    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert token(client, "audit1", PASSWORD).status_code == 200


def test_the_token_endpoint_is_throttled_per_address_and_per_user_name(client, settings):
    UserFactory(username="audit1", roles=["auditor"])
    UserFactory(username="audit2", roles=["auditor"])
    settings.AXES_ENABLED = False  # DRF's throttles alone
    for _attempt in range(10):
        assert token(client, "audit1", PASSWORD, address="10.0.4.1").status_code == 200
    throttled = token(client, "audit1", PASSWORD, address="10.0.4.2")  # the same name elsewhere
    assert throttled.status_code == 429 and throttled.json()["error"]["rule"] == "throttled"
    assert int(throttled["Retry-After"]) > 0
    for _attempt in range(10):
        assert token(client, "audit2", PASSWORD, address="10.0.4.1").status_code == 200
    # 20 from 10.0.4.1 in the minute: that address is throttled whatever name it asks for.
    assert token(client, "audit3", PASSWORD, address="10.0.4.1").status_code == 429


def test_a_token_request_that_is_not_an_object_is_a_400_not_a_500(client):
    for body in ("[1, 2]", '"audit1"', "{", "null"):
        response = client.post("/api/auth/token/", body, content_type="application/json")
        assert response.status_code == 400, body
