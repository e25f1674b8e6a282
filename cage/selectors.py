"""The cage's reads: a drawer's slips, the AML register of a gaming day (page, CSV,
command), the cage's part of the ledger's audit (``slip_faults``)."""

from collections import Counter, defaultdict
from datetime import date

from django.db.models import Exists, F, OuterRef, Prefetch
from django.utils.translation import gettext as _

from cage.models import AmlAlert, AmlMovement, AmlRefusal, AmlReview, CashierSlip
from cage.services import aml
from casino import formatting, periods
from ledger.models import Account, Entry, Transaction


def aml_register(*, day: date) -> dict:
    """The AML register of gaming day ``day``.

    Returns:
        dict: ``day``, ``profile`` ("eu"/"us"), ``threshold`` and ``log_threshold``
        (Decimal), ``bounds`` (the day's aware start and end), ``totals`` (``[(code,
        {in, out, total, movements, largest, identified})]``, as ``aml.day_totals``),
        ``alerts`` (AmlAlerts with ``latest_review`` or None), ``movements`` (the day's
        AmlMovements, oldest first, each with ``voided``: its posting reversed, so not in
        the totals, and ``place``: where it happened, ``aml.movement_place``), ``refusals`` (the day's refused attempts, ``AmlRefusal``), ``log`` (us: the movements above the log's threshold).
    """
    reviews = Prefetch("reviews", queryset=AmlReview.objects.select_related("reviewed_by"))
    alerts = list(AmlAlert.objects.filter(gaming_day=day).select_related("player", "movement")
                  .prefetch_related(reviews).order_by("id"))
    for alert in alerts:
        found = list(alert.reviews.all())
        alert.latest_review = found[0] if found else None
    movements = list(AmlMovement.objects.filter(gaming_day=day).select_related("player", "transaction", "recorded_by")
                     .annotate(voided=Exists(Transaction.objects.filter(reverses=OuterRef("transaction"))))
                     .order_by("at", "id"))
    for movement in movements:
        movement.place = aml.movement_place(movement)
    us = aml.profile() == "us"
    log_threshold = aml.log_threshold()
    return {"day": day, "profile": aml.profile(), "threshold": aml.threshold(), "log_threshold": log_threshold,
            "bounds": periods.gaming_day_bounds(day), "totals": list(aml.day_totals(day=day).items()),
            "alerts": alerts, "movements": movements,
            "refusals": list(AmlRefusal.objects.filter(gaming_day=day).select_related("player", "refused_by")),
            "log": [m for m in movements if m.amount > log_threshold] if us else []}


def alert_label(alert) -> str:
    return str(AmlAlert.Kind(alert.kind).label)


def register_csv(register: dict) -> str:
    """The register as CSV text in the reader's convention (``casino.formatting.csv_text``:
    his separator, headers, decimal mark and times): one block per table, a header row
    each."""
    amount, at = formatting.csv_amount, formatting.csv_instant
    yes = _("yes")
    logged = {m.pk for m in register["log"]}
    blocks = [
        [[_("AML register"), formatting.day(register["day"]), register["profile"].upper(), _("threshold"),
          amount(register["threshold"])]],
        [[_("player"), _("in"), _("out"), _("total"), _("movements"), _("largest"), _("identity on file")],
         *([code, amount(row["in"]), amount(row["out"]), amount(row["total"]), row["movements"],
            amount(row["largest"]), yes if row["identified"] else _("no")] for code, row in register["totals"])],
        [[_("alert"), _("kind"), _("player"), _("total"), _("movements"), _("reviewed by"), _("reviewed at"),
          _("note")],
         *([alert.pk, alert_label(alert), alert.player.code, amount(alert.total), alert.movements,
            alert.latest_review.reviewed_by.get_username() if alert.latest_review else "",
            at(alert.latest_review.reviewed_at) if alert.latest_review else "",
            alert.latest_review.note if alert.latest_review else ""] for alert in register["alerts"])],
        [[_("movement"), _("at"), _("player"), _("kind"), _("where"), _("direction"), _("amount"), _("transaction"),
          _("recorded by"), _("identity on file"), _("in the log"), _("voided")],
         *([m.pk, at(m.at), m.player.code, m.get_kind_display(), m.place, m.get_direction_display(), amount(m.amount),
            m.transaction_id, m.recorded_by.get_username() if m.recorded_by else _("system"),
            yes if m.identified else _("no"), yes if m.pk in logged else "", yes if m.voided else ""]
           for m in register["movements"])],
        [[_("refused attempt"), _("at"), _("player"), _("kind"), _("direction"), _("amount"),
          _("day's total with it"), _("threshold"), _("entered by")],
         *([r.pk, at(r.at), r.player.code, r.get_kind_display(), r.get_direction_display(), amount(r.amount),
            amount(r.day_total), amount(r.threshold), r.refused_by.get_username()] for r in register["refusals"])],
    ]
    return formatting.csv_text(blocks)


def slip_faults() -> list[str]:
    """The cage's part of ``ledger.selectors.ledger_faults``: cashier slips numbered 1..n
    without gaps, each of its transaction's kind and exactly its two legs. Returns
    messages (English, for operators), one per fault."""
    faults = []
    numbers = list(CashierSlip.objects.order_by("number").values_list("number", flat=True))
    for expected_number, number in enumerate(numbers, start=1):
        if number != expected_number:
            faults.append(f"cashier slip {expected_number:06d} is missing (the next is {number:06d})")
            break
    kinds = (CashierSlip.objects.exclude(transaction__kind=F("kind"))
             .exclude(kind=CashierSlip.Kind.BANK_DEPOSIT, rebuild__isnull=True,
                      transaction__kind=Transaction.Kind.CAPITAL_IN)
             .exclude(kind=CashierSlip.Kind.BANK_DEPOSIT, rebuild__isnull=False,
                      transaction__kind=Transaction.Kind.BANK_REBUILD)
             .values_list("number", flat=True))
    for number in kinds:
        faults.append(f"cashier slip {number:06d} does not match its transaction's kind")
    return faults + _slip_amount_faults()


def _slip_amount_faults():
    """Every cashier slip's transaction is exactly its two legs: the cage's cash and the
    slip's player's chips, each of the slip's amount (a buy-in debits the cage and credits
    the chips; a cash-out the other way; a bank deposit debits the cage and credits the
    slip's tenure's bank)."""
    slips = {tx_id: (number, kind, player_id, amount, tenure_id)
             for tx_id, number, kind, player_id, amount, tenure_id in
             CashierSlip.objects.values_list("transaction_id", "number", "kind", "player_id", "amount", "tenure_id")}
    accounts = {account_id: (kind, player_id or tenure_id) for account_id, kind, player_id, tenure_id in
                Account.objects.filter(kind__in=[Account.Kind.PLAYER, Account.Kind.CAGE, Account.Kind.TENURE])
                .values_list("id", "kind", "player_id", "tenure__id")}
    legs = defaultdict(Counter)
    for tx_id, account_id, side, amount in (Entry.objects.filter(transaction_id__in=list(slips))
                                            .values_list("transaction_id", "account_id", "side", "amount")):
        legs[tx_id][(accounts.get(account_id, ("other", None)), side, amount)] += 1
    faults = []
    for tx_id, (number, kind, player_id, amount, tenure_id) in sorted(slips.items(), key=lambda item: item[1][0]):
        cash, chips = (("cage", None), ("player", player_id))
        if kind == CashierSlip.Kind.BANK_DEPOSIT:
            expected = Counter({(cash, Entry.Side.DEBIT, amount): 1, (("tenure", tenure_id), Entry.Side.CREDIT, amount): 1})
        elif kind == CashierSlip.Kind.BUY_IN:
            expected = Counter({(cash, Entry.Side.DEBIT, amount): 1, (chips, Entry.Side.CREDIT, amount): 1})
        else:
            expected = Counter({(chips, Entry.Side.DEBIT, amount): 1, (cash, Entry.Side.CREDIT, amount): 1})
        if legs[tx_id] != expected:
            moved = sum(a * n for (_account, side, a), n in legs[tx_id].items() if side == Entry.Side.DEBIT)
            faults.append(f"cashier slip {number:06d} reads {amount} but its transaction #{tx_id} moves {moved} "
                          f"in {sum(legs[tx_id].values())} entries: not the slip's two legs")
    return faults
