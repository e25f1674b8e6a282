"""The house's own figures in a shift's report: the commission recomputed per hand from
the rate and compared with the one posted, the house's hold (commission over handle),
and per bank tenure its float at the shift's open and close and the sale price it
received.

Casino terms: the *handle* is the sum of stakes; the *house hold %* is the house's
commission over the handle (the bank holder's own hold %, his win over the handle, is
money moving between players); the bank's *float* is what its tenure's account holds.
"""

import json
from decimal import Decimal

from django.db import connection
from django.db.models import Q, Sum
from django.utils import timezone

from game import Profile
from ledger.models import Entry, Transaction
from reports.figures import money, percent, signed_amount
from tables.models import BankTenure, Hand

#: Hands whose commission differs listed by number, at most.
DIFFER_LIMIT = 50

_COMMISSION_SQL = """
SELECT coalesce(sum(posted), 0), coalesce(sum(recomputed), 0), count(*) FILTER (WHERE posted <> recomputed),
       (array_agg(number ORDER BY number) FILTER (WHERE posted <> recomputed))[1:%(limit)s]
  FROM (SELECT number, posted,
               CASE WHEN bank > 0 THEN floor(bank * %(rate)s::numeric)::bigint ELSE 0 END AS recomputed
          FROM (SELECT h.number, (s.commission * 100)::bigint AS posted,
                       coalesce(-sum(b.net) * 100, 0)::bigint AS bank
                  FROM tables_hand h
                       LEFT JOIN tables_handbet b ON b.hand_id = h.id
                       LEFT JOIN LATERAL jsonb_to_record(h.settlement) AS s(commission numeric) ON true
                 WHERE h.shift_id = %(shift)s AND h.status = 'settled' AND h.rules = %(rules)s::jsonb
                 GROUP BY h.id, h.number, s.commission) AS hand
       ) AS figures"""


def commission_check(shift) -> dict:
    """The house's commission of the shift's settled hands recomputed from each hand's
    rules (``commission_rate``: the bank's result, if positive, times the rate, rounded
    down to the cent, as ``game.payouts.settle``) and its bets, against the
    commission posted with each settlement.

    Returns:
        dict: ``posted`` and ``recomputed`` (euros as strings), ``difference``
        (recomputed − posted), ``differ`` (hands that differ), ``numbers`` (the first
        ``DIFFER_LIMIT`` of them), ``rates`` (``[{"rules", "rate"}]`` per rule set used).
    """
    posted = recomputed = 0
    differ, numbers, rates = 0, [], []
    rules_values = (Hand.objects.filter(shift=shift, status=Hand.Status.SETTLED).order_by()
                    .values_list("rules", flat=True).distinct())
    for rules in rules_values:
        rate = Profile.from_rules(rules).commission_rate
        rates.append({"rules": rules, "rate": str(rate)})
        with connection.cursor() as cursor:
            cursor.execute(_COMMISSION_SQL, {"limit": DIFFER_LIMIT, "rate": str(rate), "shift": shift.pk,
                                             "rules": json.dumps(rules)})
            p, r, d, n = cursor.fetchone()
        posted += int(p)
        recomputed += int(r)
        differ += d
        numbers.extend(n or [])
    cent = Decimal("0.01")
    return {"posted": money(posted * cent), "recomputed": money(recomputed * cent),
            "difference": money((recomputed - posted) * cent), "differ": differ,
            "numbers": sorted(numbers)[:DIFFER_LIMIT], "rates": rates}


def tenure_floats(shift) -> list[dict]:
    """Per bank tenure at the shift's table that was open at any time during the shift:
    its float (its account's balance) at the shift's open — or at its own opening, its
    capital, if it opened later — and at the shift's close — or just before its own
    close, before the price of a sale came in and the balance was distributed — and the
    sale price it received if it was sold in the shift.

    Returns:
        list of ``{"id", "holder", "opened_in_shift", "closed_in_shift", "float_open",
        "float_close", "sale_price" (None unless sold in the shift), "buyer"}`` in order of
        opening; amounts strings of euros.
    """
    start = shift.opened_at
    end = shift.closed_at or timezone.now()
    tenures = list(BankTenure.objects.filter(table=shift.table, opened_at__lte=end)
                   .filter(Q(closed_at__isnull=True) | Q(closed_at__gte=start))
                   .select_related("holder").order_by("opened_at", "id"))
    ids = [t.pk for t in tenures]
    sums = {row["account__tenure"]: row for row in
            Entry.objects.filter(account__tenure__in=ids).values("account__tenure").annotate(
                at_open=Sum(signed_amount(), filter=Q(transaction__posted_at__lt=start)
                            | Q(transaction__kind=Transaction.Kind.CAPITAL_IN)),
                at_close=Sum(signed_amount(), filter=Q(transaction__posted_at__lte=end)
                             & ~Q(transaction__kind__in=[Transaction.Kind.DISTRIBUTION,
                                                         Transaction.Kind.BANK_SALE]))).order_by()}
    sales = {t.previous_id: t for t in BankTenure.objects.filter(previous_id__in=ids, began=BankTenure.Began.SALE)
             .select_related("holder")}
    rows = []
    for tenure in tenures:
        figures = sums.get(tenure.pk, {})
        closed_in = tenure.closed_at is not None and tenure.closed_at <= end
        sale = sales.get(tenure.pk) if closed_in else None
        rows.append({"id": tenure.pk, "holder": tenure.holder.code, "opened_in_shift": tenure.opened_at >= start,
                     "closed_in_shift": closed_in, "float_open": money(figures.get("at_open")),
                     "float_close": money(figures.get("at_close")),
                     "sale_price": money(sale.price) if sale is not None else None,
                     "buyer": sale.holder.code if sale is not None else None})
    return rows


def house_figures(shift, handle: str, exceptions: list) -> dict:
    """The shift report's ``house`` section; appends a ``commission_recomputed`` exception
    (``posted``, ``recomputed``, ``difference``, ``count``, ``numbers``) when the
    recomputed commission differs from the posted one.

    Args:
        shift: the Shift; handle: the shift's handle (euros, a string with two places);
        exceptions: the report's exceptions list.
    Returns:
        dict: ``commission`` (``commission_check``), ``house_hold_percent`` (commission
        posted over handle, a string with two places, or None), ``tenures``
        (``tenure_floats``).
    """
    commission = commission_check(shift)
    if commission["differ"]:
        exceptions.append({"code": "commission_recomputed", "posted": commission["posted"],
                           "recomputed": commission["recomputed"], "difference": commission["difference"],
                           "count": commission["differ"], "numbers": commission["numbers"]})
    return {"commission": commission, "house_hold_percent": percent(Decimal(commission["posted"]), Decimal(handle)),
            "tenures": tenure_floats(shift)}
