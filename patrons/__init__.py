"""Patrons: the kernel every desk shares — the player, his identity and its history.

``tables``, ``ledger``, ``cage`` and ``boxes`` all use it; it imports none of them.
"""
