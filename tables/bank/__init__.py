"""The bank's life at a table: its tenures (``tenures``: opened, closed, sold, passed,
the cover a limited bank gives), its auction, withdrawals and rebuilds (``life``), and
what it owes at the cage before it plays (``deposits``). [rules.md "The bank passes";
seed 003 for syndicates]"""
