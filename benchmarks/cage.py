"""What the benchmarks' cashiers and players need since the cage has drawers and the
anti-money-laundering checks: a cashier with his drawer open, players identified."""

import datetime


def identity(code):
    """An identity on file for the player ``code`` (the benchmarks' buy-ins are far above
    the AML threshold): a passport numbered after him, one player per document."""
    return {"document_type": "passport", "document_number": f"BENCH-{code}"[:32], "nationality": "ES",
            "date_of_birth": datetime.date(1980, 1, 1)}


def cage_cashier(user):
    """``user`` with the cashier role and a drawer open (a float of 1,000.00 €); returns him."""
    from cage.services.drawer import drawer_open, open_drawer_of
    from casino.roles import CASHIER, ensure_role_groups

    user.groups.add(ensure_role_groups()[CASHIER])
    if hasattr(user, "role_names"):
        del user.role_names
    if open_drawer_of(user) is None:
        drawer_open(cashier=user, count={"50.00": 20})
    return user
