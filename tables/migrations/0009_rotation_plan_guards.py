"""The rotation plans' guards: tables/sql/0009_rotation_plan_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('tables', '0008_rotation_plan')]
    operations = [run_sql_file("tables", "0009_rotation_plan_guards")]
