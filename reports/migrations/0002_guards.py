"""The reports app's guards in PostgreSQL: reports/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('reports', '0001_initial')]
    operations = [run_sql_file("reports", "0002_guards")]
