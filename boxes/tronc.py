"""The tronc: the tips counted in the tables' tips boxes, posted to the tronc account as
they are counted (``boxes.services._count_effect``), and shared out by the configured policy: ``settings.TRONC_STAFF_PERCENT``
(default 75.00) to the staff pool, the rest to the casino; the pool among the dealers by
the minutes each dealt in the sessions whose tips are shared (a session's minutes cut at its
reliefs: ``Shift.dealer_spells``). Every split is to the cent by largest
remainder (as ``ledger.shares``). [Madrid, Decreto 58/2006 art. 19.6]
"""

from collections import defaultdict
from decimal import Decimal
from fractions import Fraction

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction as db
from django.utils.translation import gettext as _

from boxes.errors import BoxError
from boxes.models import BoxCount, TroncDistribution, TroncShare
from ledger import posting
from ledger.models import Account, Transaction
from ledger.money import cents, euros
from ledger.posting import CREDIT, DEBIT

HUNDRED = Decimal(100)


def staff_percent() -> Decimal:
    """The staff pool's percentage of the tronc: ``settings.TRONC_STAFF_PERCENT`` (0–100,
    two decimals), default 75.00."""
    value = Decimal(str(getattr(settings, "TRONC_STAFF_PERCENT", "75.00"))).quantize(Decimal("0.01"))
    if not 0 <= value <= HUNDRED:
        raise ValueError(f"TRONC_STAFF_PERCENT must be between 0 and 100, not {value}")
    return value


def split_by_weights(total_cents: int, weights) -> list[int]:
    """Split ``total_cents`` in proportion to ``weights`` (non-negative ints, not all
    zero), to the cent by largest remainder: each part its exact share rounded down, the
    cents left one each to the largest remainders (ties: the earlier first).

    Returns:
        list[int] of cents, one per weight, summing to ``total_cents``.
    Raises:
        ValueError: negative total or weight, or all weights zero.
    """
    weights = list(weights)
    if total_cents < 0 or any(w < 0 for w in weights) or not sum(weights):
        raise ValueError("a split needs a total of zero or more and weights of zero or more, not all zero")
    whole = sum(weights)
    exact = [Fraction(total_cents * w, whole) for w in weights]
    parts = [int(e) for e in exact]
    left = total_cents - sum(parts)
    order = sorted(range(len(weights)), key=lambda i: (-(exact[i] - parts[i]), i))
    for i in order[:left]:
        parts[i] += 1
    return parts


def tronc_account():
    return posting.singleton_account(Account.Kind.TRONC)


def undistributed_tips():
    """The tips counts (with money) not yet in a distribution, oldest first."""
    return (BoxCount.objects.latest_counts()
            .filter(box=BoxCount.Box.TIPS, total__gt=0, tronc_distributions__isnull=True)
            .select_related("shift__dealer", "shift__table").prefetch_related("shift__reliefs")
            .order_by("counted_at", "id"))


def tronc_plan(counts=None) -> dict:
    """What a distribution of ``counts`` (default: every undistributed tips count) gives:
    ``{"total", "staff_percent", "staff_total", "casino_total" (Decimal euros),
    "shares": [(user, minutes, Decimal amount)]}``; the staff pool by the minutes each
    dealer dealt in the counts' sessions (cut at their reliefs), the parts adding to the cent."""
    counts = list(undistributed_tips() if counts is None else counts)
    total = sum(cents(c.total) for c in counts)
    percent = staff_percent()
    if not total:
        return {"total": euros(0), "staff_percent": percent, "staff_total": euros(0), "casino_total": euros(0),
                "shares": [], "counts": counts}
    staff_cents, casino_cents = split_by_weights(total, [int(percent * 100), int((HUNDRED - percent) * 100)])
    minutes = defaultdict(int)
    for count in counts:
        for dealer_id, start, end in count.shift.dealer_spells():
            minutes[dealer_id] += max(int((end - start).total_seconds() // 60), 0)
    users = get_user_model().objects.in_bulk(list(minutes))
    ids = sorted(users, key=lambda pk: users[pk].get_username())
    weights = [minutes[pk] for pk in ids]
    if staff_cents and not sum(weights):
        weights = [1] * len(ids)  # sessions of under a minute: the pool in equal parts
    parts = split_by_weights(staff_cents, weights) if staff_cents else [0] * len(ids)
    return {"total": euros(total), "staff_percent": percent, "staff_total": euros(staff_cents),
            "casino_total": euros(casino_cents), "counts": counts,
            "shares": [(users[pk], minutes[pk], euros(part)) for pk, part in zip(ids, parts, strict=True)]}


def tronc_distribute(*, made_by) -> TroncDistribution:
    """Share out every undistributed tips count: the tronc debited by their total, the
    house credited the casino's part, the cage credited the staff pool (paid out to the
    staff, each his share by minutes worked, ``TroncShare``).

    Raises:
        BoxError: nothing to distribute.
    """
    with db.atomic():
        counts = list(undistributed_tips().select_for_update(of=("self",)))
        plan = tronc_plan(counts)
        total = cents(plan["total"])
        if not total:
            raise BoxError(_("the tronc holds no undistributed tips"))
        tronc, house, cage = (tronc_account(), posting.singleton_account(Account.Kind.HOUSE),
                              posting.singleton_account(Account.Kind.CAGE))
        locked = posting.lock([tronc, house, cage])
        legs = [(tronc, DEBIT, total)]
        if cents(plan["casino_total"]):
            legs.append((house, CREDIT, cents(plan["casino_total"])))
        if cents(plan["staff_total"]):
            legs.append((cage, CREDIT, cents(plan["staff_total"])))
        first = counts[0].pk
        txn = posting.post(locked=locked, kind=Transaction.Kind.TRONC, legs=legs,
                    idempotency_key=f"tronc:{first}:{counts[-1].pk}:{len(counts)}",
                    reference=f"tronc distribution of {len(counts)} tips count(s)", posted_by=made_by,
                    source="pit", detail={"staff_percent": str(plan["staff_percent"]),
                                          "shares": [[u.get_username(), m, str(a)] for u, m, a in plan["shares"]]})
        distribution = TroncDistribution.objects.create(
            total=plan["total"], staff_percent=plan["staff_percent"], staff_total=plan["staff_total"],
            casino_total=plan["casino_total"], transaction=txn, made_by=made_by, made_at=txn.posted_at)
        distribution.counts.add(*counts)
        TroncShare.objects.bulk_create([TroncShare(distribution=distribution, user=user, minutes=minutes,
                                                   amount=amount) for user, minutes, amount in plan["shares"]])
        return distribution
