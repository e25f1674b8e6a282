"""Stored reports are versions, never overwritten (issue 14): ``version`` and ``at_close``
replace ``runs``; a key may have several versions, at most one of them stored at the
shift's close; PostgreSQL refuses any UPDATE or DELETE of a stored report.

Reports stored before this migration become version 1, not ``at_close``: they were
updated in place and nothing tells whether one is still the one computed at the close.
Reversing refuses while a key has more than one version (``key`` unique again would
lose them).
"""
from django.db import migrations, models

APPEND_ONLY = """
CREATE FUNCTION reports_report_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'stored reports are append-only: % of report #% refused (a new run adds a version)',
        TG_OP, OLD.id USING ERRCODE = 'integrity_constraint_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER reports_report_append_only BEFORE UPDATE OR DELETE ON reports_report
    FOR EACH ROW EXECUTE FUNCTION reports_report_append_only();
"""
DROP_APPEND_ONLY = """
DROP TRIGGER IF EXISTS reports_report_append_only ON reports_report;
DROP FUNCTION IF EXISTS reports_report_append_only();
"""


def refuse_losing_versions(apps, schema_editor):
    from django.db.models import Count

    report = apps.get_model("reports", "Report")
    several = report.objects.values("key").annotate(n=Count("id")).filter(n__gt=1).values_list("key", flat=True)
    if several.exists():
        raise RuntimeError(f"reports {list(several[:5])} have several versions: reversing would lose them")


class Migration(migrations.Migration):

    dependencies = [
        ('reports', '0002_schedules'),
        ('tables', '0007_keyed_chain'),
    ]

    operations = [
        migrations.RemoveField(
            model_name='report',
            name='runs',
        ),
        migrations.AddField(
            model_name='report',
            name='at_close',
            field=models.BooleanField(default=False, verbose_name="stored at the shift's close"),
        ),
        migrations.AddField(
            model_name='report',
            name='version',
            field=models.PositiveIntegerField(default=1, verbose_name='version'),
        ),
        migrations.AlterField(
            model_name='report',
            name='key',
            field=models.CharField(db_index=True, max_length=80, verbose_name='key'),
        ),
        migrations.AddConstraint(
            model_name='report',
            constraint=models.UniqueConstraint(fields=('key', 'version'), name='reports_report_key_version'),
        ),
        migrations.AddConstraint(
            model_name='report',
            constraint=models.UniqueConstraint(condition=models.Q(('at_close', True)), fields=('key',), name='reports_report_one_at_close'),
        ),
        migrations.AddConstraint(
            model_name='report',
            constraint=models.CheckConstraint(condition=models.Q(('version__gte', 1)), name='reports_report_version_from_one'),
        ),
        migrations.RunSQL(APPEND_ONLY, DROP_APPEND_ONLY),
        migrations.RunPython(migrations.RunPython.noop, refuse_losing_versions),
    ]
