"""The ledger app's guards in PostgreSQL: ledger/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('ledger', '0001_initial')]
    operations = [run_sql_file("ledger", "0002_guards")]
