"""The cage: the cashiers' drawers (float, count, close with two signatures) and the
anti-money-laundering records (per patron per gaming day, alerts, the register)."""
