"""Every ledger transaction signed and chained (ledger/signing.py): the columns, the
chain's head, the transactions already posted signed in id order with the current key
(``CHAIN_KEY``), and the guard that refuses a late entry by the number of entries a
transaction was posted with (ledger/sql/0004_signed_postings.sql) in place of the
posting's database transaction id (``sealed_xact``, gone: a restored backup kept it
as the restore's own)."""

import json

from django.db import migrations, models

from casino.sql import read

SIGN_EVERY = 2000


def sign_existing(apps, schema_editor):
    """Sign every transaction already posted, chained in id order, and set the chain's head.

    Runs as the owner (the migration's role): the append-only trigger is disabled for
    the update and enabled again. Needs ``CHAIN_KEY`` only when there are transactions."""
    from ledger.money import cents
    from ledger.signing import GENESIS, posting_body, signature
    from casino.keys import current_key_id, secret

    connection = schema_editor.connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM ledger_transaction")
        if not cursor.fetchone()[0]:
            return
    key_id = current_key_id()
    key = secret(key_id)
    previous, last = GENESIS, None
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_transaction DISABLE TRIGGER ledger_transaction_append_only")
        after = 0
        while True:
            cursor.execute(
                "SELECT t.id, t.kind, t.reference, t.idempotency_key, t.cause::text, t.posted_by_id, t.source, t.posted_at,"
                " t.memo, t.reverses_id, array_agg(e.account_id), array_agg(e.side), array_agg(e.amount)"
                " FROM ledger_transaction t JOIN ledger_entry e ON e.transaction_id = t.id"
                " WHERE t.id > %s GROUP BY t.id ORDER BY t.id LIMIT %s", [after, SIGN_EVERY])
            rows = cursor.fetchall()
            if not rows:
                break
            ids, signatures, previouses, counts = [], [], [], []
            for (tx_id, kind, reference, key_text, cause, by, source, at, memo, reverses, accounts, sides,
                 amounts) in rows:
                legs = [(a, s, cents(m)) for a, s, m in zip(accounts, sides, amounts, strict=True)]
                body = posting_body(kind=kind, reference=reference, idempotency_key=key_text,
                                    cause=json.loads(cause), posted_by_id=by, source=source,
                                    posted_at=at, memo=memo, reverses_id=reverses, legs=legs)
                digest = signature(key_id=key_id, key=key, previous=previous, body=body)
                ids.append(tx_id)
                signatures.append(digest)
                previouses.append(previous)
                counts.append(len(legs))
                previous, last = digest, tx_id
            cursor.execute(
                "UPDATE ledger_transaction t SET signature = v.s, previous_signature = v.p, key_id = %s, legs = v.n"
                " FROM unnest(%s::bigint[], %s::text[], %s::text[], %s::int[]) AS v(id, s, p, n) WHERE t.id = v.id",
                [key_id, ids, signatures, previouses, counts])
            after = ids[-1]
        cursor.execute("ALTER TABLE ledger_transaction ENABLE TRIGGER ledger_transaction_append_only")
        cursor.execute("INSERT INTO ledger_chainhead (id, signature, last_id) VALUES (1, %s, %s)"
                       " ON CONFLICT (id) DO UPDATE SET signature = EXCLUDED.signature, last_id = EXCLUDED.last_id",
                       [previous, last])


class Migration(migrations.Migration):

    dependencies = [
        ('ledger', '0003_floats_and_outstanding_chips'),
    ]

    operations = [
        migrations.AddField(
            model_name='transaction',
            name='key_id',
            field=models.CharField(blank=True, db_default='', default='', help_text='the id of the key that signed the transaction', max_length=16, verbose_name='key id'),
        ),
        migrations.AddField(
            model_name='transaction',
            name='legs',
            field=models.PositiveSmallIntegerField(blank=True, null=True, verbose_name='legs'),
        ),
        migrations.AddField(
            model_name='transaction',
            name='previous_signature',
            field=models.CharField(blank=True, db_default='', default='', max_length=64, verbose_name='previous signature'),
        ),
        migrations.AddField(
            model_name='transaction',
            name='signature',
            field=models.CharField(blank=True, db_default='', default='', max_length=64, verbose_name='signature'),
        ),
        migrations.CreateModel(
            name='ChainHead',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('signature', models.CharField(max_length=64, verbose_name='signature')),
                ('last_id', models.BigIntegerField(blank=True, null=True, verbose_name='last transaction')),
            ],
            options={
                'verbose_name': "ledger's chain head",
                'verbose_name_plural': "ledger's chain heads",
                'constraints': [models.CheckConstraint(condition=models.Q(('id', 1)), name='ledger_chainhead_one_row')],
            },
        ),
        migrations.RunPython(sign_existing, migrations.RunPython.noop),
        migrations.RunSQL(read("ledger", "0004_signed_postings"),
                          "DROP FUNCTION IF EXISTS ledger_entry_legs() CASCADE;\n" + read("ledger", "0002_guards")),
        # The posting's database transaction no longer seals it (ledger_entry_legs does, by count).
        migrations.RemoveField(
            model_name='transaction',
            name='sealed_xact',
        ),
    ]
