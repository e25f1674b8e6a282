"""Each request of a logged-in user reads him and his roles in one query (PostgreSQL)."""

import pytest
from django.db import connection

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
    assert "ARRAY(SELECT" in queries.captured_queries[1]["sql"]
