"""The staff roles as Django groups (``casino.roles.ROLES``)."""

from django.db import migrations

ROLES = ("dealer", "pit_supervisor", "cashier", "cage_supervisor", "auditor", "admin", "compliance_officer")


def create_groups(apps, schema_editor):
    group = apps.get_model("auth", "Group")
    for name in ROLES:
        group.objects.get_or_create(name=name)


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]
    operations = [migrations.RunPython(create_groups, migrations.RunPython.noop)]
