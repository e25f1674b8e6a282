"""One ongoing alert per group: an alert's ``group``, at most one open alert per group, and
``AlertEvidence``, a later finding joined to an open alert (insert only: the guards of
reports/sql/0011_alert_evidence.sql, the alert's guard keeping its group too)."""

import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models

from casino.sql import run_sql_file


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0010_pooled_review_guard'),
        ('tables', '0009_rotation_plan_guards'),
    ]

    operations = [
        migrations.CreateModel(
            name='AlertEvidence',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('fingerprint', models.CharField(max_length=64, unique=True, verbose_name='fingerprint')),
                ('evidence', models.JSONField(default=dict, verbose_name='evidence')),
                ('found_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='found at')),
            ],
            options={
                'verbose_name': 'alert evidence',
                'verbose_name_plural': 'alert evidences',
                'ordering': ['alert', 'found_at', 'id'],
            },
        ),
        migrations.AddField(
            model_name='alert',
            name='group',
            field=models.CharField(blank=True, default='', max_length=64, verbose_name='group'),
        ),
        migrations.AddConstraint(
            model_name='alert',
            constraint=models.UniqueConstraint(condition=models.Q(('status', 'open'), models.Q(('group', ''), _negated=True)), fields=('group',), name='reports_alert_one_open_per_group'),
        ),
        migrations.AddField(
            model_name='alertevidence',
            name='alert',
            field=models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='updates', to='reports.alert', verbose_name='alert'),
        ),
        migrations.AddField(
            model_name='alertevidence',
            name='run',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='evidences', to='reports.pooledreview', verbose_name='pooled review'),
        ),
        run_sql_file("reports", "0011_alert_evidence"),
    ]
