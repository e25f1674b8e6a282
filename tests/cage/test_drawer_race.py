"""A close and a slip at once, each on its own connection: the close waits for the slip
being booked (its drawer row ``FOR SHARE`` against the close's ``FOR UPDATE``) and counts
it; a slip after the close is refused. Never a slip in a drawer closed under it."""

import threading
from decimal import Decimal

import pytest
from django.db import connection, transaction

from cage.errors import DrawerError
from cage.models import Drawer
from cage.services.drawer import drawer_close, drawer_open
from cage.services.slips import cashier_buy_in

pytestmark = pytest.mark.django_db(transaction=True)


def waiting_on_a_lock(pid):
    """True once the backend ``pid`` waits for a lock (pg_stat_activity)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT wait_event_type FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return row is not None and row[0] == "Lock"


def test_a_close_waits_for_the_slip_being_booked_and_counts_it(cashier, supervisor, luis):
    drawer = drawer_open(cashier=cashier, count={"50.00": 2})
    booked, closer_pid, result, errors = threading.Event(), [], [], []

    def close():
        try:
            booked.wait(10)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_backend_pid()")
                closer_pid.append(cursor.fetchone()[0])
            result.append(drawer_close(drawer=Drawer.objects.get(pk=drawer.pk), cashier=cashier,
                                       supervisor=supervisor, count={"50.00": 2, "20.00": 2}))
        except Exception as error:  # reported by the main thread
            errors.append(repr(error))
        finally:
            connection.close()

    closer = threading.Thread(target=close)
    closer.start()
    with transaction.atomic():  # the slip is booked, not yet committed, when the close starts
        cashier_buy_in(player=luis, amount=Decimal("40.00"), posted_by=cashier)
        booked.set()
        for _ in range(2000):  # until the close waits on the drawer's lock (at most ~20 s)
            if closer_pid and waiting_on_a_lock(closer_pid[0]):
                break
            threading.Event().wait(0.01)
        else:
            pytest.fail("the close never waited for the slip's lock")
    closer.join(30)
    assert errors == []
    (closed,) = result
    assert (closed.cash_in, closed.expected, closed.counted, closed.variance) == (
        Decimal("40.00"), Decimal("140.00"), Decimal("140.00"), Decimal("0.00"))
    with pytest.raises(DrawerError):
        cashier_buy_in(player=luis, amount=Decimal("1.00"), posted_by=cashier)
