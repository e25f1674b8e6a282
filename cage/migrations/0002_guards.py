"""The cage app's guards in PostgreSQL: cage/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('cage', '0001_initial'), ('tables', '0001_initial')]
    operations = [run_sql_file("cage", "0002_guards")]
