"""Guessing passwords is bounded (issue 14, "Doors"): django-axes counts failed logins on
the login page and on ``POST /api/auth/token/``; past ``AXES_FAILURE_LIMIT`` (5) of one
user name at one address it locks that name there, past ``AXES_ADDRESS_FAILURE_LIMIT``
(50) of any names from one address that address, for ``AXES_COOLOFF_TIME`` (15 minutes),
the right password included, with a page in Spanish saying what to do (one person's
guesses do not lock the floor out); the token view is also throttled by DRF per address
and per user name."""

import json
import os
import subprocess
import sys
from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from tests.conftest import ROOT
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


def test_a_user_name_is_locked_at_the_address_the_guesses_came_from(client):
    UserFactory(username="caja1", roles=["cashier"])
    for _attempt in range(LIMIT):
        login(client, "caja1", "guess", address="10.0.1.1")
    assert login(Client(), "caja1", PASSWORD, address="10.0.1.1").status_code == 429
    assert login(Client(), "caja1", PASSWORD, address="10.0.9.9").status_code == 302  # his own desk


def test_one_person_guessing_does_not_lock_the_floor_out(client):
    """Two users behind one address (a shared terminal, or the TLS proxy): pit fails five
    times and is locked out; auditor, with the right password from the same address,
    logs in."""
    UserFactory(username="pit", roles=["pit_supervisor"])
    UserFactory(username="auditor", roles=["auditor"])
    for _attempt in range(LIMIT):
        login(client, "pit", "guess", address="10.0.2.2")
    assert login(Client(), "pit", PASSWORD, address="10.0.2.2").status_code == 429
    auditor = Client()
    assert login(auditor, "auditor", PASSWORD, address="10.0.2.2").status_code == 302
    assert auditor.get("/").status_code == 200
    assert token(Client(), "auditor", PASSWORD, address="10.0.2.2").status_code == 200


def test_an_address_is_locked_for_every_name_only_at_the_much_higher_count(client, settings):
    UserFactory(username="pit1", roles=["pit_supervisor"])
    address_limit = settings.AXES_ADDRESS_FAILURE_LIMIT
    assert address_limit >= 10 * LIMIT
    for attempt in range(address_limit - 1):
        login(client, f"nobody{attempt}", "guess", address="10.0.2.2")
    assert login(Client(), "pit1", PASSWORD, address="10.0.2.2").status_code == 302
    login(client, "nobody-last", "guess", address="10.0.2.2")
    assert login(Client(), "pit1", PASSWORD, address="10.0.2.2").status_code == 429
    assert login(Client(), "pit1", PASSWORD, address="10.0.2.3").status_code == 302  # another address


def proxy_settings(proxy_count):
    """The lock-out's and the throttles' settings as ``casino.settings`` makes them from the
    environment's PROXY_COUNT (read in a process of its own)."""
    code = ("from django.conf import settings as s; import json; print(json.dumps([s.AXES_IPWARE_PROXY_COUNT, "
            "list(s.AXES_IPWARE_META_PRECEDENCE_ORDER), s.REST_FRAMEWORK.get('NUM_PROXIES')]))")
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "casino.settings.test", "PROXY_COUNT": str(proxy_count)}
    output = subprocess.run([sys.executable, "-c", f"import django; django.setup(); {code}"], env=environment,
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return json.loads(output.splitlines()[-1])


def test_behind_the_tls_proxy_each_client_is_counted_at_his_own_address(client, settings):
    """With PROXY_COUNT=1 (compose's, for the TLS proxy) the address is the one the proxy
    appended to X-Forwarded-For: the same name from another client behind the same
    proxy is not locked; an address a client wrote in the header himself is not believed
    (his guesses count at the proxy's address)."""
    ipware_count, precedence, num_proxies = proxy_settings(1)
    assert (ipware_count, precedence[0], num_proxies) == (0, "HTTP_X_FORWARDED_FOR", 1)
    assert proxy_settings(0) == [None, ["REMOTE_ADDR"], None]
    settings.AXES_IPWARE_PROXY_COUNT = ipware_count
    settings.AXES_IPWARE_META_PRECEDENCE_ORDER = tuple(precedence)
    UserFactory(username="pit", roles=["pit_supervisor"])

    def via_proxy(username, password, forwarded_for):
        return Client().post("/accounts/login/", {"username": username, "password": password},
                             REMOTE_ADDR="172.18.0.5", HTTP_X_FORWARDED_FOR=forwarded_for)

    for _attempt in range(LIMIT):
        via_proxy("pit", "guess", "192.168.1.20")
    assert via_proxy("pit", PASSWORD, "192.168.1.20").status_code == 429
    assert via_proxy("pit", PASSWORD, "192.168.1.21").status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"192.168.1.20"}
    # A forged header ("6.6.6.6" written by the client, the proxy's own appended after it).
    for attempt in range(LIMIT):
        via_proxy("pit", "guess", f"6.6.6.{attempt}, 192.168.1.22")
    assert via_proxy("pit", PASSWORD, "192.168.1.22").status_code == 302
    assert AccessAttempt.objects.get(ip_address="172.18.0.5").failures_since_start == LIMIT


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
    # The login page shares the count: the user name is locked there too, at that address.
    assert login(client, "audit1", PASSWORD).status_code == 429
    assert login(Client(), "audit1", PASSWORD, address="10.0.3.3").status_code == 302

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
