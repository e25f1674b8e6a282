"""Alerts of kind ``transfers`` (``reports.transfers``), and their nightly schedule held by
django-celery-beat: ``reports: nightly chip-transfer alerts`` at 06:40 in the casino's time
zone, the week ending with yesterday's gaming day (``reports.transfer_alerts``)."""

from django.conf import settings
from django.db import migrations, models

NIGHTLY = "reports: nightly chip-transfer alerts"


def create(apps, schema_editor):
    crontab_model = apps.get_model("django_celery_beat", "CrontabSchedule")
    task_model = apps.get_model("django_celery_beat", "PeriodicTask")
    morning, _ = crontab_model.objects.get_or_create(minute="40", hour="6", day_of_week="*", day_of_month="*",
                                                     month_of_year="*", timezone=settings.TIME_ZONE)
    task_model.objects.update_or_create(name=NIGHTLY, defaults={
        "task": "reports.transfer_alerts", "crontab": morning, "interval": None, "enabled": True,
        "description": "Chip transfers of the week ending yesterday: one-way, in a round, after a win."})


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name=NIGHTLY).delete()


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0003_schedules'),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]

    operations = [
        migrations.AlterField(
            model_name='alert',
            name='kind',
            field=models.CharField(choices=[('exception', 'report exception'), ('large_bet', 'large bet'), ('expected', 'result against the expected'), ('pair', 'improbable pair'), ('cards', 'card test'), ('bank_changes', 'bank changes'), ('large_losses', 'large stakes lost to one bank'), ('transfers', 'chip transfers')], max_length=16, verbose_name='kind'),
        ),
        migrations.RunPython(create, remove),
    ]
