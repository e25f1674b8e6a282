"""An entry's hand and table checked by one foreign key, not two.

``tables_handevent`` had a foreign key to its hand and one to its table: two checks an
entry at each COMMIT, about 20 entries a hand. Now one composite foreign key, (hand_id,
table_id) to the hand's (id, table_id), checks both at once and says more: an entry's
table is its hand's (before, an entry could name a hand of another table), and the table
exists since the hand does (the hand's own key). Django declares no composite foreign key:
the model's two fields keep no constraint of their own (``db_constraint=False``) and this
migration adds it in SQL, deferred to COMMIT like Django's. The hands' unique (id,
table_id) is what it refers to.

Measured in-process on 3,000 of benchmarks/import.py's chained hands, two runs each
(2026-11-25): COMMIT 0.45-0.46 s without the entries' two keys, 0.89-0.91 s with them.
"""

import django.db.models.deletion
from django.db import migrations, models

FORWARD = """
ALTER TABLE tables_handevent ADD CONSTRAINT tables_event_hand_table_fk
    FOREIGN KEY (hand_id, table_id) REFERENCES tables_hand (id, table_id) DEFERRABLE INITIALLY DEFERRED;
"""
BACKWARD = "ALTER TABLE tables_handevent DROP CONSTRAINT tables_event_hand_table_fk;"


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0012_statement_number_guards'),
    ]

    operations = [
        # First the hands' (id, table) unique, which the key refers to; then the key, before the two
        # single keys go (in reverse: they come back before it goes), so entries are never unchecked.
        migrations.AddConstraint(
            model_name='hand',
            constraint=models.UniqueConstraint(fields=('id', 'table'), name='tables_hand_id_table_unique'),
        ),
        migrations.RunSQL(FORWARD, BACKWARD),
        migrations.AlterField(
            model_name='handevent',
            name='hand',
            field=models.ForeignKey(db_constraint=False, db_index=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name='events',
                                    to='tables.hand', verbose_name='hand'),
        ),
        migrations.AlterField(
            model_name='handevent',
            name='table',
            field=models.ForeignKey(db_constraint=False, db_index=False,
                                    on_delete=django.db.models.deletion.PROTECT, related_name='hand_events',
                                    to='tables.table', verbose_name='table'),
        ),
    ]
