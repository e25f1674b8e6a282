"""Each request of a logged-in user reads his session, then him and his roles, in one
query each (PostgreSQL); sessions live in the database, so a logout or an expiry ends
them for every copy of the cookie."""

from datetime import timedelta

import pytest
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.utils import timezone

from casino.auth import RoleAwareBackend
from casino.roles import has_role, roles_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the roles are aggregated by PostgreSQL")
def test_a_user_and_his_roles_in_one_query(django_assert_num_queries):
    dealer = UserFactory(username="dealer7", roles=["dealer", "auditor"], email="d7@casino.test")
    with django_assert_num_queries(1):
        user = RoleAwareBackend().get_user(dealer.pk)
        assert roles_of(user) == {"dealer", "auditor"} and has_role(user, "dealer")
    assert (user.pk, user.username, user.email, user.is_active) == (dealer.pk, "dealer7", "d7@casino.test", True)
    assert user.check_password("secret-pass-1")
    assert user.date_joined == dealer.date_joined and user._state.adding is False


def test_no_roles_no_user_and_an_inactive_user():
    plain = UserFactory(username="plain")
    assert roles_of(RoleAwareBackend().get_user(plain.pk)) == frozenset()
    assert RoleAwareBackend().get_user(plain.pk + 1000) is None
    plain.is_active = False
    plain.save()
    assert RoleAwareBackend().get_user(plain.pk) is None


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the roles are aggregated by PostgreSQL")
def test_a_logged_in_page_reads_the_session_and_the_user_with_his_roles(client, django_assert_num_queries):
    dealer = UserFactory(username="dealer8", roles=["dealer"])
    client.force_login(dealer)
    with django_assert_num_queries(2) as queries:  # the session; the user with his roles
        response = client.get("/")
    assert response.status_code == 200 and "dealer" in response.content.decode()
    assert queries.captured_queries[0]["sql"].startswith('SELECT session_data FROM "django_session"')
    assert "ARRAY(SELECT" in queries.captured_queries[1]["sql"]


def test_a_session_ends_at_logout_and_at_expiry_for_every_copy_of_its_cookie(client, settings):
    UserFactory(username="dealer9", roles=["dealer"])
    assert client.login(username="dealer9", password="secret-pass-1")
    copy = Client()
    copy.cookies[settings.SESSION_COOKIE_NAME] = client.cookies[settings.SESSION_COOKIE_NAME].value
    assert copy.get("/").status_code == 200
    client.post("/accounts/logout/")
    assert copy.get("/").status_code == 302  # sent to log in: the session is gone from the database

    assert client.login(username="dealer9", password="secret-pass-1")
    assert client.get("/").status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert client.get("/").status_code == 302
