"""Reads of a bank tenure's money: its statement (balance, syndicate shares, entries)
and its closing balance and result.

Amounts are ``Decimal`` euros; balances are credits − debits (what the owner holds).
"""

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal

from django.db.models import Q, Sum

from ledger.models import Account, Entry, Transaction
from ledger.money import cents, euros
from ledger.selectors import PER_PAGE, SIGNED, ZERO, Statement, account_statement
from ledger.shares import split_by_shares
from tables.models import BankTenure


@dataclass
class ShareLine:
    """A syndicate member's share of a tenure: percent, capital paid in, and what he got
    back (the actual distribution once closed; while open, what he would get now)."""

    player: object
    percent: Decimal
    capital: Decimal
    distribution: Decimal


@dataclass
class TenureStatement:
    """A bank tenure's statement: the tenure, its balance, its syndicate and entries;
    ``closing_balance`` and ``result`` as ``tenure_closings`` gives them."""

    tenure: BankTenure
    balance: Decimal
    shares: list[ShareLine]
    statement: Statement
    distribution: Transaction | None
    closing_balance: Decimal = ZERO
    result: Decimal = ZERO


def tenure_closings(tenures) -> dict[int, tuple[Decimal, Decimal]]:
    """``{tenure id: (closing balance, result)}`` (``Decimal`` euros) of ``tenures``
    (BankTenure objects with their ``account`` loaded), in one query.

    A closed tenure's account is empty (its balance went back to the syndicate), so its
    balance says nothing: its *closing balance* is what it held when it closed, the
    distribution taken out of its account (a tenure that closed on zero distributed
    nothing); its *result* is all the syndicate took out (its withdrawals and that
    closing balance) less all it put in (the capital, from chips or deposited at the cage,
    less the deposits voided, and its rebuilds): its gain or loss, the sale price received
    included, as the bank-rotation report's. An open tenure's closing balance is its
    balance now.
    """
    tenures = list(tenures)
    closed = [tenure.pk for tenure in tenures if tenure.closed_at is not None]
    distributed = dict(
        Entry.objects.filter(account__tenure__in=closed, transaction__kind=Transaction.Kind.DISTRIBUTION)
        .values("account__tenure").annotate(total=Sum(SIGNED)).values_list("account__tenure", "total")
        .order_by()) if closed else {}
    # voids after the close, taken from (or given to) the syndicate (posting.reverse(…,
    # closed_legs=through_distribution)): part of the syndicate's result, not of the balance
    later = defaultdict(lambda: ZERO)
    for cause in (Transaction.objects.filter(cause__has_key="through_distribution")
                  .values_list("cause", flat=True) if closed else []):
        for moved in cause["through_distribution"]:
            if moved["tenure"] not in closed:
                continue
            later[moved["tenure"]] += euros(sum(amount if side == Entry.Side.CREDIT else -amount
                                                for _account, side, amount in moved["legs"]))
    # what went in and out of the bank's account besides its hands: capital (net of
    # voided deposits), withdrawals, rebuilds, signed as the account sees them
    life = dict(
        Entry.objects.filter(Q(transaction__kind__in=[Transaction.Kind.CAPITAL_IN, Transaction.Kind.BANK_WITHDRAWAL,
                                                      Transaction.Kind.BANK_REBUILD])
                             | Q(transaction__reverses__kind__in=[Transaction.Kind.CAPITAL_IN,
                                                                  Transaction.Kind.BANK_REBUILD]),
                             account__tenure__in=[tenure.pk for tenure in tenures])
        .values("account__tenure").annotate(total=Sum(SIGNED)).values_list("account__tenure", "total")
        .order_by()) if tenures else {}
    out = {}
    for tenure in tenures:
        if tenure.closed_at is None:
            balance = tenure.account.balance if getattr(tenure, "account", None) is not None else ZERO
        else:
            balance = -distributed.get(tenure.pk, ZERO)
        out[tenure.pk] = (balance, balance + later[tenure.pk] - life.get(tenure.pk, ZERO))
    return out


def tenure_statement(*, tenure: BankTenure, page: int | str = 1, per_page: int = PER_PAGE) -> TenureStatement:
    """A tenure's statement: balance (``Decimal`` euros), the syndicate's shares with the
    capital each paid and the distribution (actual if closed, prospective if open:
    ``split_by_shares`` of the balance), and a page of the tenure's entries.
    [distribution by shares, largest remainder]
    """
    account = Account.objects.get(pk=tenure.account_id)
    shares = list(tenure.shares.select_related("player").order_by("id"))
    percents = [share.percent for share in shares]
    capital_parts = split_by_shares(cents(tenure.capital), percents)
    distribution = (Transaction.objects.filter(entries__account_id=tenure.account_id,
                                               kind=Transaction.Kind.DISTRIBUTION).first())
    statement = account_statement(account=account, page=page, per_page=per_page)
    if tenure.is_open:
        parts = [euros(part) for part in split_by_shares(cents(statement.balance), percents)]
    elif distribution is None:
        parts = [ZERO for _share in shares]
    else:
        got = {}
        for entry in distribution.entries.select_related("account"):
            if entry.account.player_id is not None:
                got[entry.account.player_id] = entry.signed
        parts = [got.get(share.player_id, ZERO) for share in shares]
    lines = [ShareLine(share.player, share.percent, euros(capital), part)
             for share, capital, part in zip(shares, capital_parts, parts, strict=True)]
    tenure.account = account
    closing_balance, result = tenure_closings([tenure])[tenure.pk]
    return TenureStatement(tenure, statement.balance, lines, statement, distribution, closing_balance, result)
