"""Transactions get ``cause``: what caused them as data (``ledger.references``), put into
words in the reader's language when shown, instead of the English ``reference`` text.

Existing rows get the cause parsed from their ``reference`` (and a void's reversal the
void from its memo). The ledger is append-only (``ledger_transaction_append_only``), so
the trigger is disabled for this one schema-owned conversion and enabled again in the
same migration's transaction. Reversing removes the column (and with it what was filled).
[issue 17 "Every word is drawn in the reader's language from structured data"]
"""

from django.db import migrations, models

BATCH = 2000


def fill_causes(apps, schema_editor):
    from ledger.references import parse_reference

    transaction = apps.get_model("ledger", "Transaction")
    rows = transaction.objects.filter(cause={}).order_by("id").values_list("id", "reference", "memo")
    updates = []
    for pk, reference, memo in rows.iterator(BATCH):
        cause, reason = parse_reference(reference, memo)
        if cause:
            if cause.get("void") and reason != memo:
                cause["void"]["reason"] = reason
            updates.append((pk, cause))
    if not updates:
        return
    import json

    with schema_editor.connection.cursor() as cursor:
        cursor.execute("ALTER TABLE ledger_transaction DISABLE TRIGGER ledger_transaction_append_only")
        for start in range(0, len(updates), BATCH):
            chunk = updates[start:start + BATCH]
            cursor.execute(
                "UPDATE ledger_transaction t SET cause = v.cause::jsonb "
                "FROM unnest(%s::bigint[], %s::text[]) AS v(id, cause) WHERE t.id = v.id",
                [[pk for pk, _c in chunk], [json.dumps(c) for _pk, c in chunk]])
        cursor.execute("ALTER TABLE ledger_transaction ENABLE TRIGGER ledger_transaction_append_only")


class Migration(migrations.Migration):

    dependencies = [
        ("ledger", "0003_tenure_capital_may_be_zero"),
    ]

    operations = [
        migrations.AddField(
            model_name="transaction",
            name="cause",
            field=models.JSONField(blank=True, default=dict, verbose_name="cause"),
        ),
        # Rows inserted by SQL that names no cause (a copy, a benchmark's load) get none.
        migrations.RunSQL("ALTER TABLE ledger_transaction ALTER COLUMN cause SET DEFAULT '{}'::jsonb",
                          "ALTER TABLE ledger_transaction ALTER COLUMN cause DROP DEFAULT"),
        migrations.RunPython(fill_causes, migrations.RunPython.noop),
    ]
