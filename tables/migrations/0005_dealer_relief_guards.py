"""The dealer relief's guards: tables/sql/0005_dealer_relief_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('tables', '0004_dealer_relief')]
    operations = [run_sql_file("tables", "0005_dealer_relief_guards")]
