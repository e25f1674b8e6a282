"""A slip's void names the open drawer that moved its cash (``SlipVoid.drawer``), and
PostgreSQL refuses a void into no open drawer: cage/sql/0003_void_drawer.sql."""

import django.db.models.deletion
from django.db import migrations, models

from casino.sql import run_sql_file


class Migration(migrations.Migration):
    dependencies = [('cage', '0002_guards')]
    operations = [
        migrations.AddField(
            model_name='slipvoid',
            name='drawer',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT,
                                    related_name='voids', to='cage.drawer', verbose_name='drawer'),
        ),
        run_sql_file("cage", "0003_void_drawer"),
    ]
