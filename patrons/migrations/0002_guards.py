"""The patrons app's guards in PostgreSQL: patrons/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('patrons', '0001_initial')]
    operations = [run_sql_file("patrons", "0002_guards")]
