"""A hand's own fields signed at its opening (tables/chain.py, ``sign_opening``): the
columns, and the hands already opened signed with the current key (``CHAIN_KEY``)."""

import json

from django.db import migrations, models


def sign_existing(apps, schema_editor):
    """Sign every hand already opened (its fields as they stand). Needs ``CHAIN_KEY`` only
    when there are hands; the hands' update trigger lets these two columns change."""
    from casino.keys import current_key_id, secret
    from tables.chain import opening_signature, opening_body

    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT id, table_id, number, shift_id, tenure_id, bank_id, seats::text, rules::text, min_bet,"
                       " max_bet, imported FROM tables_hand ORDER BY id")
        rows = cursor.fetchall()
        if not rows:
            return
        key_id = current_key_id()
        key = secret(key_id)
        ids, signatures = [], []
        for pk, table, number, shift, tenure, bank, seats, rules, low, high, imported in rows:
            body = opening_body(table_id=table, number=number, shift_id=shift, tenure_id=tenure, bank_id=bank,
                                seats=json.loads(seats), rules=json.loads(rules), min_bet=low, max_bet=high,
                                imported=imported)
            ids.append(pk)
            signatures.append(opening_signature(key_id, key, body))
        cursor.execute("UPDATE tables_hand h SET signature = v.s, key_id = %s"
                       " FROM unnest(%s::bigint[], %s::text[]) AS v(id, s) WHERE h.id = v.id",
                       [key_id, ids, signatures])


class Migration(migrations.Migration):

    dependencies = [
        ('tables', '0005_dealer_relief_guards'),
    ]

    operations = [
        migrations.AddField(
            model_name='hand',
            name='key_id',
            field=models.CharField(blank=True, db_default='', default='', help_text="the id of the key that signed the hand's opening", max_length=16, verbose_name='key id'),
        ),
        migrations.AddField(
            model_name='hand',
            name='signature',
            field=models.CharField(blank=True, db_default='', default='', max_length=64, verbose_name='signature'),
        ),
        migrations.RunPython(sign_existing, migrations.RunPython.noop),
    ]
