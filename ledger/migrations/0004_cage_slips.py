"""The cage's slips (issue 15): the player's balance after each slip as it was at issue
(filled in from the ledger for the slips booked before: the sum of the player's entries
up to the slip's own), a slip's void by a cage supervisor, the history of players'
records. Voids and player changes are append-only, as the slips are (triggers on
``ledger_refuse_change`` of migration 0002). The cage supervisor's role group."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models


BACKFILL = r"""
ALTER TABLE ledger_cashierslip DISABLE TRIGGER ledger_cashierslip_append_only;
UPDATE ledger_cashierslip s
   SET balance_after = (
       SELECT COALESCE(SUM(CASE WHEN e.side = 'C' THEN e.amount ELSE -e.amount END), 0)
         FROM ledger_entry e
        WHERE e.account_id = a.id
          AND e.id <= (SELECT MAX(own.id) FROM ledger_entry own
                        WHERE own.transaction_id = s.transaction_id AND own.account_id = a.id))
  FROM ledger_account a
 WHERE a.player_id = s.player_id;
ALTER TABLE ledger_cashierslip ENABLE TRIGGER ledger_cashierslip_append_only;
"""

GUARDS = r"""
CREATE TRIGGER ledger_slipvoid_append_only BEFORE UPDATE OR DELETE ON ledger_slipvoid
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
CREATE TRIGGER ledger_playerchange_append_only BEFORE UPDATE OR DELETE ON ledger_playerchange
    FOR EACH ROW EXECUTE FUNCTION ledger_refuse_change();
"""

UNGUARDS = r"""
DROP TRIGGER IF EXISTS ledger_playerchange_append_only ON ledger_playerchange;
DROP TRIGGER IF EXISTS ledger_slipvoid_append_only ON ledger_slipvoid;
"""


def cage_supervisor_group(apps, schema_editor):
    apps.get_model("auth", "Group").objects.get_or_create(name="cage_supervisor")


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0003_tenure_capital_may_be_zero'),
        ('tables', '0007_player_identity'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
        ('auth', '0012_alter_user_first_name_max_length'),
    ]

    operations = [
        migrations.AddField(
            model_name='cashierslip',
            name='balance_after',
            field=models.DecimalField(decimal_places=2, max_digits=14, null=True, verbose_name='balance after the slip'),
        ),
        migrations.RunSQL(BACKFILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name='cashierslip',
            name='balance_after',
            field=models.DecimalField(decimal_places=2, max_digits=14, verbose_name='balance after the slip'),
        ),
        migrations.CreateModel(
            name='PlayerChange',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('action', models.CharField(choices=[('registered', 'registered'), ('changed', 'changed')], max_length=16, verbose_name='action')),
                ('changes', models.JSONField(default=dict, verbose_name='changes')),
                ('changed_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='changed at')),
                ('changed_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='player_changes', to=settings.AUTH_USER_MODEL, verbose_name='changed by')),
                ('player', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='changes', to='tables.player', verbose_name='player')),
            ],
            options={
                'verbose_name': 'player record change',
                'verbose_name_plural': 'player record changes',
                'ordering': ['-changed_at', '-id'],
            },
        ),
        migrations.CreateModel(
            name='SlipVoid',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('reason', models.TextField(verbose_name='reason')),
                ('voided_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='voided at')),
                ('reversal', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='slip_void', to='ledger.transaction', verbose_name='reversal')),
                ('slip', models.OneToOneField(on_delete=django.db.models.deletion.PROTECT, related_name='void', to='ledger.cashierslip', verbose_name='slip')),
                ('voided_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='slip_voids', to=settings.AUTH_USER_MODEL, verbose_name='voided by')),
            ],
            options={
                'verbose_name': 'slip void',
                'verbose_name_plural': 'slip voids',
                'ordering': ['-voided_at'],
                'constraints': [models.CheckConstraint(condition=models.Q(('reason', ''), _negated=True), name='ledger_slipvoid_has_reason')],
            },
        ),
        migrations.RunSQL(GUARDS, UNGUARDS),
        migrations.RunPython(cage_supervisor_group, migrations.RunPython.noop),
    ]
