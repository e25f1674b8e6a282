"""Each request of a logged-in user reads his session from the cache (Django's
``cached_db``), then him with his roles in one statement (``casino.auth.RoleAwareBackend``); sessions are
written through to the database, so a logout ends them for every copy of the cookie, and
an expiry still ends them once the cache has lost them."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.core.cache import cache
from django.http import HttpRequest
from django.test import Client
from django.utils import timezone

from casino.auth import RoleAwareBackend
from casino.roles import has_role, roles_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_user_is_read_with_his_roles_and_the_checks_ask_nothing_more(django_assert_num_queries):
    dealer = UserFactory(username="dealer7", roles=["dealer", "auditor"], email="d7@casino.test")
    with django_assert_num_queries(1):  # the user with his groups' names
        user = RoleAwareBackend().get_user(dealer.pk)
        assert roles_of(user) == {"dealer", "auditor"} and has_role(user, "dealer")
        assert not has_role(user, "cashier")
    assert (user.pk, user.username, user.email, user.is_active) == (dealer.pk, "dealer7", "d7@casino.test", True)
    assert user.check_password("secret-pass-1")


def test_no_roles_no_user_and_an_inactive_user():
    plain = UserFactory(username="plain")
    assert roles_of(RoleAwareBackend().get_user(plain.pk)) == frozenset() == roles_of(plain)
    assert roles_of(UserFactory(username="cajera", roles=["cashier"])) == {"cashier"}  # not read with them
    assert RoleAwareBackend().get_user(plain.pk + 1000) is None
    plain.is_active = False
    plain.save()
    assert RoleAwareBackend().get_user(plain.pk) is None


def test_a_logged_in_page_reads_the_session_from_the_cache(client, django_assert_num_queries):
    dealer = UserFactory(username="dealer8", roles=["dealer"])
    client.force_login(dealer)
    # The user with his roles, and the dealer's open shifts (his console one click away); the
    # session from the cache.
    with django_assert_num_queries(2) as queries:
        response = client.get("/")
    assert response.status_code == 200 and "dealer" in response.content.decode()
    assert all("django_session" not in query["sql"] for query in queries.captured_queries)


def test_a_session_ends_at_logout_and_at_expiry_for_every_copy_of_its_cookie(client, settings):
    UserFactory(username="dealer9", roles=["dealer"])
    assert client.login(request=HttpRequest(), username="dealer9", password="secret-pass-1")
    copy = Client()
    copy.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert copy.get("/").status_code == 200
    client.post("/accounts/logout/")
    assert copy.get("/").status_code == 302  # sent to log in: the session is gone

    assert client.login(request=HttpRequest(), username="dealer9", password="secret-pass-1")
    assert client.get("/").status_code == 200
    cache.clear()  # the cache lost it (a restart): read from the database again
    assert client.get("/").status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    cache.clear()
    assert client.get("/").status_code == 302
