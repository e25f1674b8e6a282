"""Players changed in the Django admin are changed as at the cage: attributed."""
import pytest

from patrons.models import Player, PlayerChange
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_a_player_added_and_changed_in_the_admin_is_attributed(client):
    admin_user = UserFactory(username="adm", roles=["admin"], is_staff=True)
    client.force_login(admin_user)
    data = {"code": "nuevo", "name": "Nuevo", "document_type": "dni", "document_number": "12345678Z",
            "nationality": "ES", "date_of_birth": "1990-01-01", "card_number": ""}
    assert client.post("/admin/patrons/player/add/", data).status_code == 302
    player = Player.objects.get(code="nuevo")
    change = client.post(f"/admin/patrons/player/{player.pk}/change/", {**data, "name": "Nuevo Pérez"})
    assert change.status_code == 302
    assert list(PlayerChange.objects.filter(player=player).order_by("id").values_list("action", "changed_by")) == [
        ("registered", admin_user.pk), ("changed", admin_user.pk)]
    minor = client.post("/admin/patrons/player/add/", {**data, "code": "nene", "document_number": "2X",
                                                      "date_of_birth": "2020-01-01"})
    assert minor.status_code == 200 and not Player.objects.filter(code="nene").exists()


def test_a_dni_without_its_letter_is_refused_on_the_admins_form(client):
    """Refused on the field, as at the cage (``patrons.documents``), never at the save."""
    admin_user = UserFactory(username="adm", roles=["admin"], is_staff=True)
    client.force_login(admin_user)
    data = {"code": "nuevo", "name": "Nuevo", "document_type": "dni", "document_number": "12345678A",
            "nationality": "ES", "date_of_birth": "1990-01-01", "card_number": ""}
    refused = client.post("/admin/patrons/player/add/", data)
    assert refused.status_code == 200 and "12345678A no es un número de DNI" in refused.content.decode()
    assert not Player.objects.filter(code="nuevo").exists()
