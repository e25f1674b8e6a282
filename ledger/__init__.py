"""Ledger: the money, in double entry, guarded by PostgreSQL.

- ``models``: accounts, transactions, entries, bank tenures and their syndicates, slips.
- ``services``: every write (hand settlements, cashier, bank tenures, reversals).
- ``selectors``: balances, statements, the audit behind ``manage.py ledger_check``.
- ``shares``: splitting an amount by percentage shares (pure).
"""
