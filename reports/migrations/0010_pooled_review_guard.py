"""The pooled review's runs guarded by PostgreSQL (reports/sql/0010_pooled_review_guard.sql):
never deleted, what was asked for never changed, a run done never changed."""

from django.db import migrations

from casino.sql import run_sql_file


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0009_checkpoints'),
    ]

    operations = [
        run_sql_file("reports", "0010_pooled_review_guard"),
    ]
