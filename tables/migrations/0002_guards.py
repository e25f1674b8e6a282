"""The tables app's guards in PostgreSQL: tables/sql/0002_guards.sql (docs/guards.md)."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('tables', '0001_initial')]
    operations = [run_sql_file("tables", "0002_guards")]
