"""Alerts of kind ``pooled`` and the stored runs of the pooled review (``reports.pooling``),
and its nightly schedule held by django-celery-beat: ``reports: nightly pooled review`` at
06:45 in the casino's time zone, the day, week and month ending with yesterday's gaming day
(``reports.pooled_review_nightly``)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

NIGHTLY = "reports: nightly pooled review"


def create(apps, schema_editor):
    crontab_model = apps.get_model("django_celery_beat", "CrontabSchedule")
    task_model = apps.get_model("django_celery_beat", "PeriodicTask")
    morning, _ = crontab_model.objects.get_or_create(minute="45", hour="6", day_of_week="*", day_of_month="*",
                                                     month_of_year="*", timezone=settings.TIME_ZONE)
    task_model.objects.update_or_create(name=NIGHTLY, defaults={
        "task": "reports.pooled_review_nightly", "crontab": morning, "interval": None, "enabled": True,
        "description": "Every table's hands pooled by dealer, player and bank holder over the day, week and month."})


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NIGHTLY).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0007_edge_strategy'),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name='alert',
            name='kind',
            field=models.CharField(choices=[('exception', 'report exception'), ('large_bet', 'large bet'), ('expected', 'result against the expected'), ('pair', 'improbable pair'), ('cards', 'card test'), ('bank_changes', 'bank changes'), ('large_losses', 'large stakes lost to one bank'), ('transfers', 'chip transfers'), ('pooled', 'pooled over tables and shifts')], max_length=16, verbose_name='kind'),
        ),
        migrations.CreateModel(
            name='PooledReview',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('day', models.DateField(verbose_name='last gaming day')),
                ('status', models.CharField(choices=[('pending', 'pending'), ('running', 'running'), ('done', 'done'), ('failed', 'failed')], default='pending', max_length=8, verbose_name='status')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='requested at')),
                ('started_at', models.DateTimeField(blank=True, null=True, verbose_name='started at')),
                ('finished_at', models.DateTimeField(blank=True, null=True, verbose_name='finished at')),
                ('result', models.JSONField(blank=True, null=True, verbose_name='result')),
                ('alerts', models.PositiveIntegerField(default=0, verbose_name='alerts')),
                ('opened', models.PositiveIntegerField(default=0, verbose_name='alerts opened')),
                ('error', models.TextField(blank=True, verbose_name='error')),
                ('requested_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='requested by')),
            ],
            options={
                'verbose_name': 'pooled review',
                'verbose_name_plural': 'pooled reviews',
                'ordering': ['-created_at', '-id'],
            },
        ),
        migrations.RunPython(create, remove),
    ]
