"""The cage's pages through Django's client: who may open them, refusals shown on the
form with nothing written, the close's signature checked, the pages never cached."""

from decimal import Decimal

from cage.models import Drawer
from patrons.models import IdentityRecord
from tests.factories import PlayerFactory, UserFactory, open_drawer


def test_the_drawer_pages_are_the_cashiers(client, cashier, supervisor):
    client.force_login(UserFactory(username="dealer5", roles=["dealer"]))
    assert client.get("/cage/drawer/").status_code == 403
    client.force_login(supervisor)
    assert client.get("/cage/drawers/").status_code == 200
    client.force_login(cashier)
    page = client.get("/cage/drawer/")
    assert page.status_code == 200 and "no-store" in page["Cache-Control"]
    assert client.get("/cage/drawer/close/").status_code == 302  # nothing to close


def test_a_bad_count_is_refused_on_its_field_and_opens_nothing(client, cashier):
    client.force_login(cashier)
    page = client.post("/cage/drawer/", {"d50_00": "-2", "d0_01": "abc"})
    assert page.status_code == 200 and not Drawer.objects.exists()
    assert set(page.context["form"].errors) == {"d50_00", "d0_01"}


def test_the_close_needs_the_supervisors_password(client, cashier, supervisor):
    drawer = open_drawer(cashier, {"10.00": 3})
    client.force_login(cashier)
    confirm = client.post("/cage/drawer/close/", {"d10_00": "3"})
    assert confirm.context["preview"]["expected"] == Decimal("30.00") and confirm.context["preview"]["variance"] == 0
    wrong = client.post("/cage/drawer/close/", {"d10_00": "3", "confirm": "yes", "supervisor": "jefa",
                                                "password": "not-it"})
    assert "password" in wrong.context["form"].errors
    drawer.refresh_from_db()
    assert drawer.is_open
    done = client.post("/cage/drawer/close/", {"d10_00": "3", "confirm": "yes", "supervisor": "jefa",
                                               "password": "secret-pass-1"})
    drawer.refresh_from_db()
    assert done.status_code == 302 and done["Location"] == f"/cage/drawers/{drawer.pk}/"
    assert not drawer.is_open and drawer.supervisor == supervisor and drawer.variance == 0


def test_a_cashier_sees_only_his_own_drawers(client, cashier):
    other = UserFactory(username="caja8", roles=["cashier"])
    theirs = open_drawer(other)
    client.force_login(cashier)
    assert client.get(f"/cage/drawers/{theirs.pk}/").status_code == 302
    assert theirs not in client.get("/cage/drawers/").context["drawers"]


def test_an_identity_with_a_bad_field_is_refused_on_it(client, cashier):
    anon = PlayerFactory(code="anon", unidentified=True)
    client.force_login(cashier)
    page = client.post("/cage/players/anon/identity/", {
        "name": "Ana", "document_type": "dni", "document_number": "12345678Z", "nationality": "E1",
        "date_of_birth": "2090-01-01"})
    assert page.status_code == 200 and set(page.context["form"].errors) == {"nationality"}
    page = client.post("/cage/players/anon/identity/", {
        "name": "Ana", "document_type": "dni", "document_number": "12345678Z", "nationality": "ES",
        "date_of_birth": "2090-01-01"})
    assert set(page.context["form"].errors) == {"date_of_birth"} and page.context["focus"] == "date_of_birth"
    anon.refresh_from_db()
    assert not anon.has_identity and not IdentityRecord.objects.exists()
    assert client.get("/cage/identity/", {"code": "ANON"})["Location"] == "/cage/players/anon/identity/"
    assert client.get("/cage/identity/", {"code": "nobody"})["Location"] == "/cage/drawer/"


def test_the_register_in_the_us_profile_shows_the_log(client, compliance, cashier, settings):
    settings.AML_PROFILE = "us"
    open_drawer(cashier)
    from cage.services.slips import cashier_buy_in

    luis = PlayerFactory(code="luis")
    cashier_buy_in(player=luis, amount=Decimal("3000.01"), posted_by=cashier)
    cashier_buy_in(player=luis, amount=Decimal("3000.00"), posted_by=cashier)
    client.force_login(compliance)
    page = client.get("/cage/aml/")
    assert [m.amount for m in page.context["register"]["log"]] == [Decimal("3000.01")]
    assert 'id="log"' in page.content.decode() and "EE. UU." in page.content.decode()


def test_the_drawers_state_is_said_in_the_drawers_gender(client, cashier, supervisor):
    """Spanish: a drawer (el cajón) is "abierto" or "cerrado", "Abierto el", "Cerrado el",
    never the bank's feminine forms."""
    from cage.services.drawer import drawer_close

    closed = open_drawer(cashier, {"10.00": 3})
    drawer_close(drawer=closed, cashier=cashier, supervisor=supervisor, count={"10.00": 3})
    current = open_drawer(cashier, {"10.00": 2})
    client.force_login(supervisor)
    pages = {
        "open": client.get(f"/cage/drawers/{current.pk}/").content.decode(),
        "closed": client.get(f"/cage/drawers/{closed.pk}/").content.decode(),
        "list": client.get("/cage/drawers/").content.decode(),
    }
    assert f"Cajón n.º {current.pk} · abierto</h1>" in pages["open"]
    assert f"Cajón n.º {closed.pk} · cerrado</h1>" in pages["closed"]
    assert "Abierto el" in pages["closed"] and "Cerrado el" in pages["closed"] and "<th>Esperado</th>" in pages["closed"]
    assert "Abierto el" in pages["list"] and "Cerrado el" in pages["list"] and "<td>abierto</td>" in pages["list"]
    for page in pages.values():
        assert "abierta" not in page and "cerrada" not in page.lower() and "Esperadas" not in page
    client.force_login(cashier)
    assert "Abierto el" in client.get("/cage/drawer/").content.decode()
