"""Ledger: the money. ``ledger.payouts`` is the pure settlement of a hand (no Django import)."""
