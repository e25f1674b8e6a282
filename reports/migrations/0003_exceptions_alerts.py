"""Alerts (issue 17): the alert, its attributed changes, the stored edge; and PostgreSQL's
guards: an alert is never deleted and only its status changes, open -> acknowledged, with
its acknowledgement row written first; an alert change is never updated nor deleted."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


FORWARD = r"""
CREATE FUNCTION reports_alert_guard() RETURNS trigger AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        RAISE EXCEPTION 'alert % cannot be deleted: acknowledge it', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF (NEW.kind, NEW.code, NEW.subject, NEW.fingerprint, NEW.table_id, NEW.shift_id, NEW.report_id, NEW.evidence,
        NEW.opened_at) IS DISTINCT FROM
       (OLD.kind, OLD.code, OLD.subject, OLD.fingerprint, OLD.table_id, OLD.shift_id, OLD.report_id, OLD.evidence,
        OLD.opened_at) THEN
        RAISE EXCEPTION 'alert %: only its status changes', OLD.id USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status <> NEW.status AND NOT (OLD.status = 'open' AND NEW.status = 'acknowledged'
            AND EXISTS (SELECT 1 FROM reports_alertchange c WHERE c.alert_id = OLD.id AND c.action = 'acknowledged')) THEN
        RAISE EXCEPTION 'alert % cannot go from % to % without an acknowledgement', OLD.id, OLD.status, NEW.status
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER reports_alert_guard BEFORE UPDATE OR DELETE ON reports_alert
    FOR EACH ROW EXECUTE FUNCTION reports_alert_guard();

CREATE FUNCTION reports_alertchange_refuse() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'alert change % is final: it cannot be changed or deleted', OLD.id
        USING ERRCODE = 'check_violation';
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER reports_alertchange_refuse BEFORE UPDATE OR DELETE ON reports_alertchange
    FOR EACH ROW EXECUTE FUNCTION reports_alertchange_refuse();
"""

BACKWARD = r"""
DROP TRIGGER IF EXISTS reports_alertchange_refuse ON reports_alertchange;
DROP FUNCTION IF EXISTS reports_alertchange_refuse();
DROP TRIGGER IF EXISTS reports_alert_guard ON reports_alert;
DROP FUNCTION IF EXISTS reports_alert_guard();
"""


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0002_schedules'),
        ('tables', '0007_exceptions_large_bet'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='EdgeFigure',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('key', models.CharField(max_length=400, unique=True, verbose_name='key')),
                ('rules', models.JSONField(verbose_name='rules')),
                ('seats', models.PositiveSmallIntegerField(verbose_name='seats')),
                ('hands', models.PositiveIntegerField(verbose_name='hands simulated')),
                ('seed', models.BigIntegerField(verbose_name='seed')),
                ('result', models.JSONField(verbose_name='result')),
                ('computed_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='computed at')),
            ],
            options={
                'verbose_name': "bank's edge",
                'verbose_name_plural': "bank's edges",
                'ordering': ['key'],
            },
        ),
        migrations.CreateModel(
            name='Alert',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('exception', 'report exception'), ('large_bet', 'large bet'), ('expected', 'result against the expected'), ('pair', 'improbable pair'), ('cards', 'card test'), ('bank_changes', 'bank changes'), ('large_losses', 'large stakes lost to one bank')], max_length=16, verbose_name='kind')),
                ('code', models.CharField(max_length=64, verbose_name='code')),
                ('subject', models.CharField(max_length=120, verbose_name='subject')),
                ('fingerprint', models.CharField(max_length=64, unique=True, verbose_name='fingerprint')),
                ('evidence', models.JSONField(default=dict, verbose_name='evidence')),
                ('opened_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='opened at')),
                ('status', models.CharField(choices=[('open', 'open'), ('acknowledged', 'acknowledged')], default='open', max_length=16, verbose_name='status')),
                ('report', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='alerts', to='reports.report', verbose_name='report')),
                ('shift', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='alerts', to='tables.shift', verbose_name='shift')),
                ('table', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='alerts', to='tables.table', verbose_name='table')),
            ],
            options={
                'verbose_name': 'alert',
                'verbose_name_plural': 'alerts',
                'ordering': ['-opened_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='AlertChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(choices=[('opened', 'opened'), ('acknowledged', 'acknowledged')], max_length=16, verbose_name='action')),
                ('note', models.TextField(blank=True, verbose_name='note')),
                ('at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='at')),
                ('alert', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='reports.alert', verbose_name='alert')),
                ('by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='alert_changes', to=settings.AUTH_USER_MODEL, verbose_name='by')),
            ],
            options={
                'verbose_name': 'alert change',
                'verbose_name_plural': 'alert changes',
                'ordering': ['alert', 'at', 'id'],
            },
        ),
        migrations.AddIndex(
            model_name='alert',
            index=models.Index(fields=['status', 'opened_at'], name='reports_alert_open'),
        ),
        migrations.AddConstraint(
            model_name='alertchange',
            constraint=models.CheckConstraint(condition=models.Q(('action', 'opened'), models.Q(('by__isnull', False), models.Q(('note', ''), _negated=True)), _connector='OR'), name='reports_alert_ack_has_auditor_and_note'),
        ),
        migrations.AddConstraint(
            model_name='alertchange',
            constraint=models.UniqueConstraint(fields=('alert', 'action'), name='reports_alert_change_once'),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
    ]
