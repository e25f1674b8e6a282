"""The postings that still named their cause only in English text get it as data too
(``ledger.references``): opening chips, chip transfers, table buy-ins, tips, the tronc's
distributions, the bank's withdrawals and rebuilds, and a cashier slip's void (a
reversal of the slip). New postings store it (the services); existing rows get it parsed
from their ``reference`` (``parse_reference``), the append-only trigger disabled for this
one schema-owned conversion and enabled again in the same transaction, as
``0004_trust_transaction_cause`` did. Reversing empties the causes filled here.
[issue 17 "Every word is drawn in the reader's language from structured data"]
"""

import json

from django.db import migrations

BATCH = 2000
KINDS = ("opening", "transfer", "table_buy_in", "tips", "tronc", "bank_withdrawal", "bank_rebuild")
TRIGGER = "ledger_transaction_append_only"


def _update(cursor, updates):
    cursor.execute(f"ALTER TABLE ledger_transaction DISABLE TRIGGER {TRIGGER}")
    for start in range(0, len(updates), BATCH):
        chunk = updates[start:start + BATCH]
        cursor.execute(
            "UPDATE ledger_transaction t SET cause = v.cause::jsonb "
            "FROM unnest(%s::bigint[], %s::text[]) AS v(id, cause) WHERE t.id = v.id",
            [[pk for pk, _c in chunk], [json.dumps(c) for _pk, c in chunk]])
    cursor.execute(f"ALTER TABLE ledger_transaction ENABLE TRIGGER {TRIGGER}")


def fill_causes(apps, schema_editor):
    from ledger.references import parse_reference

    transaction = apps.get_model("ledger", "Transaction")
    rows = (transaction.objects.filter(cause={}).order_by("id")
            .values_list("id", "reference", "memo", "reverses_id"))
    updates = []
    for pk, reference, memo, reverses in rows.iterator(BATCH):
        cause, _memo = parse_reference(reference, memo, reverses=reverses)
        if cause.get("kind") in KINDS or (cause.get("kind") == "reversal" and reference.startswith("void of slip ")):
            updates.append((pk, cause))
    if updates:
        with schema_editor.connection.cursor() as cursor:
            _update(cursor, updates)


def empty_causes(apps, schema_editor):
    transaction = apps.get_model("ledger", "Transaction")
    ids = list(transaction.objects.filter(cause__kind__in=KINDS).values_list("id", flat=True))
    ids += list(transaction.objects.filter(cause__kind="reversal", reference__startswith="void of slip ")
                .values_list("id", flat=True))
    if ids:
        with schema_editor.connection.cursor() as cursor:
            _update(cursor, [(pk, {}) for pk in ids])


class Migration(migrations.Migration):

    dependencies = [
        ("ledger", "0011_merge_20261124_1114"),
    ]

    operations = [
        migrations.RunPython(fill_causes, empty_causes),
    ]
