"""The cage's writes, one database transaction each.

- ``drawer``: open a drawer with its float, lock it for a slip, close it with two signatures.
- ``aml``: the per-patron gaming-day checks and records the ledger's posting core calls,
  the day's totals, an alert's review.
- ``identity``: a patron's identity, recorded and attributed.
"""
