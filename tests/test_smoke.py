"""The project's wiring: settings, the demo data command."""
import pytest
from django.core.management import call_command

from tables.models import Player, Table


@pytest.mark.django_db
def test_demo_data_is_idempotent():
    call_command("demo")
    call_command("demo")
    assert Player.objects.filter(code="ana").count() == 1
    assert Table.objects.count() == 3
