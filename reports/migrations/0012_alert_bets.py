"""The bets a statistical finding tested, on its alert and on a later finding joined to one
(``Alert.bets``, ``AlertEvidence.bets``): the same bets found again under another name
are the same finding. The alert's guard keeps them too (reports/sql/0012_alert_bets.sql)."""

from django.db import migrations, models

from casino.sql import run_sql_file


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0011_alert_evidence'),
        ('tables', '0009_rotation_plan_guards'),
    ]

    operations = [
        migrations.AddField(
            model_name='alert',
            name='bets',
            field=models.CharField(blank=True, default='', max_length=64, verbose_name='bets'),
        ),
        migrations.AddField(
            model_name='alertevidence',
            name='bets',
            field=models.CharField(blank=True, default='', max_length=64, verbose_name='bets'),
        ),
        migrations.AddIndex(
            model_name='alert',
            index=models.Index(condition=models.Q(('bets', ''), _negated=True), fields=['bets'], name='reports_alert_bets'),
        ),
        migrations.AddIndex(
            model_name='alertevidence',
            index=models.Index(condition=models.Q(('bets', ''), _negated=True), fields=['bets'], name='reports_alertevidence_bets'),
        ),
        run_sql_file("reports", "0012_alert_bets"),
    ]
