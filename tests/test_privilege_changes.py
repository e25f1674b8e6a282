"""Privilege changes recorded by PostgreSQL (issue 29, point 6): a user made superuser or
staff, a role or a permission given or taken, a lock-out record deleted — by the app's
role with SQL, or by an admin through the site — each is recorded with the database role
and the app's user where known; the app's role cannot write, change or delete that record;
``ledger_check`` and the auditor's page list them."""

from datetime import timedelta
from io import StringIO

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from psycopg import errors

from casino.models import PrivilegeChange
from tests.test_database_roles import app_role, as_app, server_params  # noqa: F401

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def mark(staff):
    """The last change recorded before the test (the staff's roles, given by the fixture)."""
    return PrivilegeChange.objects.order_by("-id").values_list("id", flat=True).first() or 0


def check_output():
    out = StringIO()
    try:
        call_command("ledger_check", stdout=out, stderr=StringIO())
    except SystemExit:
        pass
    return out.getvalue()


def test_the_apps_role_making_itself_superuser_is_recorded_and_cannot_hide_it(staff, mark, as_app,  # noqa: F811
                                                                             app_role):  # noqa: F811
    dealer = staff["dealer"]
    as_app.execute("UPDATE auth_user SET is_superuser = true WHERE id = %s", [dealer.pk])
    change = PrivilegeChange.objects.get(id__gt=mark)
    assert (change.db_role, change.actor, change.subject) == (app_role, "", dealer.username)
    assert (change.before["is_superuser"], change.after["is_superuser"]) == (False, True)
    for statement in ("DELETE FROM casino_privilegechange",
                      "UPDATE casino_privilegechange SET subject = 'nobody'",
                      "INSERT INTO casino_privilegechange (at, db_role, actor, table_name, operation, subject) "
                      "VALUES (now(), 'x', '', 'auth_user', 'UPDATE', 'x')",
                      "TRUNCATE casino_privilegechange"):
        with pytest.raises(errors.InsufficientPrivilege):
            as_app.execute(statement)
    assert PrivilegeChange.objects.filter(id__gt=mark).count() == 1
    out = check_output()
    assert f"privilege changes: {PrivilegeChange.objects.count()}\n" in out
    assert f"user {dealer.username}: active → superuser, active — by {app_role}" in out


def test_roles_and_permissions_given_or_taken_by_sql_are_recorded(staff, mark, as_app):  # noqa: F811
    dealer = staff["dealer"]
    admin = Group.objects.get(name="admin")
    as_app.execute("INSERT INTO auth_user_groups (user_id, group_id) VALUES (%s, %s)", [dealer.pk, admin.pk])
    as_app.execute("INSERT INTO auth_group_permissions (group_id, permission_id) "
                   "SELECT %s, id FROM auth_permission WHERE codename = 'change_user'", [admin.pk])
    as_app.execute("DELETE FROM auth_user_groups WHERE user_id = %s AND group_id = %s", [dealer.pk, admin.pk])
    found = list(PrivilegeChange.objects.filter(id__gt=mark).order_by("id").values_list("table_name", "operation", "subject",
                                                                     "before", "after"))
    assert found == [
        ("auth_user_groups", "INSERT", dealer.username, None, {"group": "admin"}),
        ("auth_group_permissions", "INSERT", "group admin", None, {"permission": "auth.change_user"}),
        ("auth_user_groups", "DELETE", dealer.username, {"group": "admin"}, None)]


def test_deleting_a_lockout_is_recorded_and_an_expired_clean_up_is_told_apart(staff, mark, as_app):  # noqa: F811
    now = timezone.now()
    for name, when in (("pit", now), ("old", now - timedelta(hours=2))):
        attempt = AccessAttempt.objects.create(username=name, ip_address="10.0.0.7", user_agent="x", http_accept="x",
                                               path_info="/login/", get_data="", post_data="", failures_since_start=5)
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=when)
    as_app.execute("DELETE FROM axes_accessattempt")
    assert PrivilegeChange.objects.filter(table_name="axes_accessattempt", operation="DELETE").count() == 2
    out = check_output()
    shown = PrivilegeChange.objects.count() - 1
    assert f"privilege changes: {shown} (and 1 expired lock-out records cleaned up)" in out
    assert "lock-out record of pit @ 10.0.0.7 deleted (5 failures)" in out and "old @" not in out


def test_an_admin_giving_a_role_on_the_site_is_recorded_with_his_name(staff):
    boss = User.objects.create_superuser("boss", "boss@example.com", "x-very-long-password-1")
    mark = PrivilegeChange.objects.order_by("-id").values_list("id", flat=True).first()
    target = staff["dealer"]
    client = Client()
    client.force_login(boss)
    url = reverse("admin:auth_user_change", args=[target.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items()
            if value is not None and name not in ("password", "groups", "user_permissions", "last_login",
                                                  "date_joined")}
    joined = timezone.localtime(target.date_joined)
    data.update({"groups": [Group.objects.get(name="pit_supervisor").pk] + list(target.groups.values_list("pk", flat=True)),
                 "is_staff": "on", "is_active": "on", "date_joined_0": joined.strftime("%Y-%m-%d"),
                 "date_joined_1": joined.strftime("%H:%M:%S")})
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    made = PrivilegeChange.objects.filter(id__gt=mark).order_by("id")
    assert {(change.table_name, change.operation) for change in made} == {("auth_user", "UPDATE"),
                                                                         ("auth_user_groups", "INSERT")}
    assert {change.actor for change in made} == {f"boss (#{boss.pk})"}


def test_the_auditors_page_lists_them_and_only_for_the_auditor(staff, as_app):  # noqa: F811
    as_app.execute("UPDATE auth_user SET is_staff = true WHERE id = %s", [staff["cashier"].pk])
    client = Client()
    client.cookies["django_language"] = "en"
    client.force_login(staff["auditor"])
    page = client.get(reverse("reports:privileges")).content.decode()
    assert f"user {staff['cashier'].username}: active → staff, active" in page and "outside the app" in page
    assert "pit1 given pit supervisor" in page  # a staff role in words, not its group's name
    client.force_login(staff["dealer"])
    assert client.get(reverse("reports:privileges")).status_code == 403
