"""The reports' periodic schedules, held by django-celery-beat (editable in the admin).

- ``reports: send pending report requests``: every minute, the outbox's sweep
  (``reports.dispatch_pending``): requests left unsent while Redis was down go out as
  soon as it is back. Enabled.
- ``reports: nightly bank-rotation reports``: 06:30 every day in the casino's time zone,
  yesterday's bank-rotation report of every table that played
  (``reports.nightly_bank_reports``). Enabled: auditors read them in the morning.
"""

from django.conf import settings
from django.db import migrations

SWEEP = "reports: send pending report requests"
NIGHTLY = "reports: nightly bank-rotation reports"


def create(apps, schema_editor):
    interval_model = apps.get_model("django_celery_beat", "IntervalSchedule")
    crontab_model = apps.get_model("django_celery_beat", "CrontabSchedule")
    task_model = apps.get_model("django_celery_beat", "PeriodicTask")
    every_minute, _ = interval_model.objects.get_or_create(every=1, period="minutes")
    morning, _ = crontab_model.objects.get_or_create(minute="30", hour="6", day_of_week="*", day_of_month="*",
                                                     month_of_year="*", timezone=settings.TIME_ZONE)
    task_model.objects.update_or_create(name=SWEEP, defaults={
        "task": "reports.dispatch_pending", "interval": every_minute, "crontab": None, "enabled": True,
        "description": "Send report requests the broker missed (the reports' outbox)."})
    task_model.objects.update_or_create(name=NIGHTLY, defaults={
        "task": "reports.nightly_bank_reports", "crontab": morning, "interval": None, "enabled": True,
        "description": "Yesterday's bank-rotation report of every table that played."})


def remove(apps, schema_editor):
    apps.get_model("django_celery_beat", "PeriodicTask").objects.filter(name__in=[SWEEP, NIGHTLY]).delete()


class Migration(migrations.Migration):
    dependencies = [
        ("reports", "0002_guards"),
        ("django_celery_beat", "0019_alter_periodictasks_options"),
    ]
    operations = [migrations.RunPython(create, remove)]
