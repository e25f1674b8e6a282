"""``manage.py ledger_balances [--format table|json]``: every account's balance.

Balances are ``Decimal`` euros, credits − debits (what the owner holds; the cage's is
minus the cash it took in). JSON: a list of ``{"id", "account", "kind", "owner",
"balance", "open"}`` with ``balance`` a string like ``"-120.50"``, and the total.
"""

import json

from django.core.management.base import BaseCommand

from ledger.selectors import all_balances


def owner_of(account):
    """The account's owner as a reader names it: a player's code, ``Mesa 1 · ana``, or ''."""
    if account.player_id:
        return account.player.code
    tenure = getattr(account, "tenure", None) if account.kind == account.Kind.TENURE else None
    if tenure is not None:
        return f"{tenure.table.name} · tenure #{tenure.pk}"
    return ""


class Command(BaseCommand):
    help = "Print every ledger account's balance (credits - debits), as a table or JSON."

    def add_arguments(self, parser):
        parser.add_argument("--format", choices=("table", "json"), default="table")

    def handle(self, *args, format, **options):
        accounts = all_balances()
        total = sum((account.balance for account in accounts), start=0)
        if format == "json":
            rows = [{"id": account.id, "account": account.label, "kind": account.kind, "owner": owner_of(account),
                     "balance": str(account.balance), "open": account.is_open} for account in accounts]
            self.stdout.write(json.dumps({"accounts": rows, "total": f"{total:.2f}"}, ensure_ascii=False, indent=1))
            return
        rows = [(str(account.id), account.label, owner_of(account), f"{account.balance:.2f}",
                 "" if account.is_open else "closed") for account in accounts]
        header = ("id", "account", "owner", "balance", "")
        widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
        line = "  ".join(f"{{:{'>' if i in (0, 3) else '<'}{width}}}" for i, width in enumerate(widths))
        self.stdout.write(line.format(*header).rstrip())
        for row in rows:
            self.stdout.write(line.format(*row).rstrip())
        self.stdout.write(f"total {total:.2f} over {len(rows)} accounts (credits - debits; zero when sound)")
