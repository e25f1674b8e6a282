"""What the benchmarks' cashiers and players need since the cage has drawers and the
anti-money-laundering checks: a cashier with his drawer open, players identified."""

import datetime

#: An identity on file: the benchmarks' buy-ins are far above the AML threshold.
IDENTITY = {"document_type": "dni", "document_number": "00000000T", "nationality": "ES",
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
