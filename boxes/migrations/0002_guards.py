"""The boxes app's guards in PostgreSQL: boxes/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('boxes', '0001_initial')]
    operations = [run_sql_file("boxes", "0002_guards")]
