"""The exclusion register's guards in PostgreSQL: patrons/sql/0004_register_guards.sql
(docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('patrons', '0003_admission')]
    operations = [run_sql_file("patrons", "0004_register_guards")]
