"""The pits' rotation plans (issue 34, item 2): a pit supervisor sets a pit's plan (its
tables, minutes at a table, relief order) on a page; each change a new attributed version,
the earlier kept (PostgreSQL refuses a change or delete); the pit's overview shows the plan,
who is due and who relieves him; a bad form names the field; a bank holder on the
exclusion register refuses a session's opening, the refusal recorded."""

from datetime import date, timedelta

import pytest
from django.db import DatabaseError, transaction
from django.urls import reverse
from django.utils import translation

from patrons.admission import self_exclusion_add
from patrons.errors import AdmissionRefused
from patrons.models import AdmissionRefusal
from tables import services
from tables.errors import PlanRefused
from tables.models import Pit, RotationPlan, RotationSlot, Shift
from tables.rotation import pit_rotations, rotation_plan
from tests.factories import TableFactory, UserFactory
from tests.tables.test_dealer_relief import english_client

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english():
    with translation.override("en"):
        yield


@pytest.fixture
def pit(mesa):
    """Mesa 1 (dealer1's shift open) and Mesa 2 (dealer3's), the relief dealers dealer2,
    dealer4; pit A's plan v1: both tables, 20 minutes, relief order dealer4, dealer2."""
    mesa.mesa2 = TableFactory(name="Mesa 2")
    mesa.dealer2 = UserFactory(username="dealer2", roles=["dealer"])
    mesa.dealer3 = UserFactory(username="dealer3", roles=["dealer"])
    mesa.dealer4 = UserFactory(username="dealer4", roles=["dealer"])
    mesa.shift2 = services.shift_open(table=mesa.mesa2, dealer=mesa.dealer3, opened_by=mesa.supervisor)
    mesa.plan = services.rotation_plan_set(pit=None, name="Pit A", minutes=20, tables=[mesa.table, mesa.mesa2],
                                           dealers=[mesa.dealer4, mesa.dealer2], set_by=mesa.supervisor)
    return mesa


def _open_shifts():
    return Shift.objects.filter(closed_at__isnull=True).select_related("current_dealer", "table")


def test_a_plan_is_a_version_attributed_and_a_change_a_new_one(pit):
    assert (pit.plan.version, pit.plan.minutes, pit.plan.set_by) == (1, 20, pit.supervisor)
    assert [s.dealer.username for s in pit.plan.slots.all()] == ["dealer4", "dealer2"]
    second = services.rotation_plan_set(pit=pit.plan.pit, minutes=30, tables=[pit.table], dealers=[pit.dealer2],
                                        set_by=pit.supervisor, note="Mesa 2 closes early")
    assert second.version == 2 and RotationPlan.objects.filter(pit=pit.plan.pit).count() == 2
    first = RotationPlan.objects.get(pk=pit.plan.pk)  # kept as it was
    assert first.minutes == 20 and {t.name for t in first.tables.all()} == {"Mesa 1", "Mesa 2"}
    assert services.current_plans()[pit.plan.pit.pk] == second


@pytest.mark.parametrize("change", [
    "UPDATE tables_rotationplan SET minutes = 40", "DELETE FROM tables_rotationslot",
    "DELETE FROM tables_rotationplan_tables", "UPDATE tables_pit SET name = 'B'",
    "UPDATE tables_rotationslot SET position = 9"])
def test_postgresql_refuses_a_change_in_place(pit, change):
    from django.db import connection
    with pytest.raises(DatabaseError, match="never"), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(change)


def test_postgresql_refuses_a_version_out_of_turn(pit):
    with pytest.raises(DatabaseError, match="next plan is version 2"), transaction.atomic():
        RotationPlan.objects.create(pit=pit.plan.pit, version=5, minutes=30, set_by=pit.supervisor)


def test_refusals_name_the_field_and_write_nothing(pit):
    cases = [
        (dict(pit=None, name="pit a", minutes=30, tables=[pit.table], dealers=[pit.dealer2]), "name", "exists"),
        (dict(pit=None, name="Pit B", minutes=45, tables=[pit.table], dealers=[pit.dealer2]), "minutes", "20 to 40"),
        (dict(pit=None, name="Pit B", minutes=30, tables=[pit.mesa2], dealers=[pit.dealer2]), "tables",
         "Mesa 2 is in the plan of pit Pit A"),
        (dict(pit=None, name="Pit B", minutes=30, tables=[], dealers=[pit.dealer2]), "tables", "at least one"),
        (dict(pit=None, name="Pit B", minutes=30, tables=[TableFactory(name="Mesa 9")],
              dealers=[pit.dealer2, pit.dealer2]), "dealers", "twice"),
        (dict(pit=None, name="Pit B", minutes=30, tables=[TableFactory(name="Mesa 8")], dealers=[pit.supervisor]),
         "dealers", "not an active dealer"),
    ]
    for kwargs, field, words in cases:
        with pytest.raises(PlanRefused, match=words) as refused:
            services.rotation_plan_set(set_by=pit.supervisor, **kwargs)
        assert refused.value.field == field
    assert Pit.objects.count() == 1 and RotationPlan.objects.count() == 1 and RotationSlot.objects.count() == 2


def test_who_is_due_and_who_relieves_him_follow_the_pits_order(pit):
    shifts = _open_shifts()
    opened = min(s.opened_at for s in shifts)
    now = opened + timedelta(minutes=25)
    (rotation,) = pit_rotations(shifts, now=now)
    assert rotation.plan == pit.plan
    # Mesa 1 opened first: due first, relieved by the first free dealer of the order (dealer4)
    assert [(d.shift.table.name, d.dealer.username, d.due, d.suggested.username) for d in rotation.dealings] == [
        ("Mesa 1", "dealer1", True, "dealer4"), ("Mesa 2", "dealer3", True, "dealer2")]
    assert rotation.next.due_at == rotation.dealings[0].since + timedelta(minutes=20)
    # a table in no plan: the setting's minutes (30), not due at 25
    other = TableFactory(name="Mesa 5")
    services.shift_open(table=other, dealer=UserFactory(username="dealer5", roles=["dealer"]),
                        opened_by=pit.supervisor)
    plan = rotation_plan(_open_shifts(), now=Shift.objects.get(table=other).opened_at + timedelta(minutes=25))
    assert plan[other.pk].plan is None and not plan[other.pk].due


def test_the_pit_sets_the_plan_on_its_page_and_the_overview_shows_it(client, pit):
    client = english_client(client)
    client.force_login(pit.supervisor)
    url = reverse("tables:rotation_set", args=[pit.plan.pit.pk])
    form = client.get(url)
    assert b"In force: version 1" in form.content and b"dealer4, dealer2" in form.content
    refused = client.post(url, {"minutes": "50", "tables": [pit.table.pk], "dealers": "dealer2, nobody"})
    assert refused.status_code == 200 and b"Minutes: at most 40." in refused.content
    assert b"nobody is not an active dealer" in refused.content
    refused = client.post(url, {"minutes": "30", "dealers": "dealer2"})
    assert b"Choose at least one table of the pit." in refused.content
    assert RotationPlan.objects.count() == 1
    done = client.post(url, {"minutes": "30", "tables": [pit.table.pk, pit.mesa2.pk], "dealers": "dealer2 dealer4",
                             "note": "more hands tonight"})
    assert done.status_code == 302 and done.url == reverse("tables:rotation")
    plan = services.current_plans()[pit.plan.pit.pk]
    assert (plan.version, plan.minutes, plan.note, plan.set_by) == (2, 30, "more hands tonight", pit.supervisor)
    page = client.get(reverse("tables:rotation")).content.decode()
    assert "plan v2" in page and "dealer2 → dealer4" in page and "more hands tonight" in page
    overview = client.get(reverse("tables:pit")).content.decode()
    assert "Pit A" in overview and "Due next" in overview and "dealer2 relieves dealer1 at Mesa 1" in overview
    new = client.post(reverse("tables:rotation_new"), {"name": "", "minutes": "30", "tables": [pit.table.pk],
                                                       "dealers": "dealer2"})
    assert b"Name the pit." in new.content
    taken = client.post(reverse("tables:rotation_new"), {"name": "Pit B", "minutes": "30",
                                                         "tables": [pit.table.pk], "dealers": "dealer2"})
    assert b"Mesa 1 is in the plan of pit Pit A" in taken.content and Pit.objects.count() == 1
    client.force_login(UserFactory(username="audit2", roles=["auditor"]))  # reads, sets nothing
    assert client.get(url).status_code == 200
    assert client.post(url, {"minutes": "30", "tables": [pit.table.pk], "dealers": "dealer2"}).status_code == 403


def test_a_bank_holder_on_the_register_refuses_the_sessions_opening(mesa):
    ana = mesa.players["ana"]
    services.shift_close(shift=mesa.table.shifts.get(closed_at__isnull=True), closed_by=mesa.supervisor)
    self_exclusion_add(entered_by=UserFactory(username="compliance1", roles=["compliance_officer"]),
                       document_number=ana.document_number, valid_from=date(2000, 1, 1))
    with pytest.raises(AdmissionRefused, match="exclusion register"):
        services.shift_open(table=mesa.table, dealer=mesa.dealer, opened_by=mesa.supervisor)
    assert not mesa.table.shifts.filter(closed_at__isnull=True).exists()
    refusal = AdmissionRefusal.objects.get()
    assert (refusal.where, refusal.reason, refusal.player, refusal.place, refusal.attempted_by) == (
        "session_open", "excluded", ana, "Mesa 1", mesa.supervisor)


def test_a_free_dealer_is_suggested_once_across_pits_and_other_tables(pit):
    """dealer2 is the only free dealer: the pit's table due first takes him, the table in no
    pit (due later) is left without one."""
    from tables.rotation import rotation_overview

    services.rotation_plan_set(pit=pit.plan.pit, minutes=20, tables=[pit.table], dealers=[pit.dealer2],
                               set_by=pit.supervisor)
    pit.dealer4.is_active = False
    pit.dealer4.save()
    shifts = _open_shifts()
    now = max(s.opened_at for s in shifts) + timedelta(minutes=45)
    rotations, dealings = rotation_overview(shifts, now=now)
    assert dealings[pit.table.pk].suggested == pit.dealer2 and dealings[pit.mesa2.pk].plan is None
    assert dealings[pit.mesa2.pk].due and dealings[pit.mesa2.pk].suggested is None
    assert rotations[0].idle == [] and [d.shift.table for d in rotations[0].dealings] == [pit.table]
