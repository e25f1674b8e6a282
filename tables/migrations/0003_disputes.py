"""The dispute desk: disputes of a hand and incidents at a table, with their guards (tables/sql/0003_disputes.sql)."""

import django.db.models.deletion
import django.utils.timezone
from django.conf import settings
from django.db import migrations, models

from casino.sql import run_sql_file


class Migration(migrations.Migration):

    dependencies = [
        ('patrons', '0002_guards'),
        ('tables', '0002_guards'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='Dispute',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('claim', models.TextField(verbose_name='what is claimed')),
                ('opened_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='opened at')),
                ('status', models.CharField(choices=[('open', 'open'), ('decided', 'decided')], default='open', max_length=8, verbose_name='status')),
                ('outcome', models.CharField(blank=True, choices=[('upheld', 'upheld'), ('rejected', 'rejected')], max_length=8, verbose_name='outcome')),
                ('decision', models.TextField(blank=True, verbose_name='decision')),
                ('decided_at', models.DateTimeField(blank=True, null=True, verbose_name='decided at')),
                ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='decided by')),
                ('hand', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='disputes', to='tables.hand', verbose_name='hand')),
                ('opened_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='opened by')),
                ('player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='disputes', to='patrons.player', verbose_name='patron')),
                ('void', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='dispute', to='tables.handevent', verbose_name="the hand's void")),
            ],
            options={
                'verbose_name': 'dispute',
                'verbose_name_plural': 'disputes',
                'ordering': ['-opened_at', '-id'],
                'indexes': [models.Index(fields=['hand'], name='tables_dispute_hand_idx')],
                'constraints': [models.CheckConstraint(condition=models.Q(('claim', ''), _negated=True), name='tables_dispute_has_claim'), models.CheckConstraint(condition=models.Q(models.Q(('decided_at__isnull', True), ('decided_by__isnull', True), ('decision', ''), ('outcome', ''), ('status', 'open'), ('void__isnull', True)), models.Q(('decided_at__isnull', False), ('decided_by__isnull', False), ('outcome__in', ['upheld', 'rejected']), ('status', 'decided'), models.Q(('decision', ''), _negated=True)), _connector='OR'), name='tables_dispute_decided_whole'), models.CheckConstraint(condition=models.Q(('void__isnull', True), ('outcome', 'upheld'), _connector='OR'), name='tables_dispute_void_if_upheld')],
            },
        ),
        migrations.CreateModel(
            name='Incident',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('kind', models.CharField(choices=[('card_exposed', 'a card exposed'), ('misdeal', 'a misdeal'), ('behaviour', "a patron's behaviour"), ('other', 'other')], max_length=16, verbose_name='kind')),
                ('text', models.TextField(verbose_name='what happened')),
                ('recorded_at', models.DateTimeField(default=django.utils.timezone.now, verbose_name='recorded at')),
                ('hand', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='incidents', to='tables.hand', verbose_name='hand')),
                ('player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='incidents', to='patrons.player', verbose_name='patron')),
                ('recorded_by', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='recorded by')),
                ('table', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='incidents', to='tables.table', verbose_name='table')),
            ],
            options={
                'verbose_name': 'incident',
                'verbose_name_plural': 'incidents',
                'ordering': ['-recorded_at', '-id'],
                'constraints': [models.CheckConstraint(condition=models.Q(('text', ''), _negated=True), name='tables_incident_has_text')],
            },
        ),
        run_sql_file("tables", "0003_disputes"),
    ]
