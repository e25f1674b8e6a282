"""Dealer relief within a session: the relief record, a shift's current dealer and each
hand's dealer, filled for the shifts and hands there are (their shift's dealer)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

FILL = """
UPDATE tables_shift SET current_dealer_id = dealer_id WHERE current_dealer_id IS NULL;
UPDATE tables_hand h SET dealer_id = s.dealer_id FROM tables_shift s WHERE s.id = h.shift_id AND h.dealer_id IS NULL;
"""


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0003_disputes'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='shift',
            name='current_dealer',
            field=models.ForeignKey(db_index=False, null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name='dealing_shifts', to=settings.AUTH_USER_MODEL,
                                    verbose_name='current dealer'),
        ),
        migrations.AddField(
            model_name='hand',
            name='dealer',
            field=models.ForeignKey(blank=True, db_index=False, null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name='dealt_hands',
                                    to=settings.AUTH_USER_MODEL, verbose_name='dealer'),
        ),
        migrations.CreateModel(
            name='DealerRelief',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='at')),
                ('relieved', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                               related_name='reliefs_given', to=settings.AUTH_USER_MODEL,
                                               verbose_name='dealer relieved')),
                ('relieved_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+',
                                                  to=settings.AUTH_USER_MODEL, verbose_name='relieved by')),
                ('relieving', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT,
                                                related_name='reliefs_taken', to=settings.AUTH_USER_MODEL,
                                                verbose_name='relieving dealer')),
                ('shift', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='reliefs',
                                            to='tables.shift', verbose_name='shift')),
            ],
            options={
                'verbose_name': 'dealer relief',
                'verbose_name_plural': 'dealer reliefs',
                'ordering': ['shift', 'at', 'id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('relieved', models.F('relieving')),
                                                                          _negated=True),
                                                       name='tables_relief_another_dealer')],
            },
        ),
        migrations.RunSQL(FILL, migrations.RunSQL.noop),
        migrations.AlterField(
            model_name='shift',
            name='current_dealer',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT,
                                    related_name='dealing_shifts', to=settings.AUTH_USER_MODEL,
                                    verbose_name='current dealer'),
        ),
    ]
